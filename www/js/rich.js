// Renders a small math-ish notation as DOM text with <sub>/<sup> (never as HTML):
//   x_N, x_{l>N}  → subscript;   N^0.5, l^(2−ε), e^{λ l} → superscript.
// Only createElement / textContent are used, so no text can become markup.

const RUN = /^[A-Za-z0-9∞.−-]+/;

/** Replaces el's children with the rendered form of `text`. */
export function rich(el, text) {
  const key = String(text);
  if (el.__rich === key) return;
  el.__rich = key;
  el.replaceChildren(...parse(key));
}

function parse(s) {
  const out = [];
  let buf = '';
  let i = 0;
  while (i < s.length) {
    const ch = s[i];
    if ((ch === '_' || ch === '^') && i + 1 < s.length) {
      let body = null;
      let next = i + 1;
      const open = s[next];
      const close = open === '{' ? '}' : open === '(' && ch === '^' ? ')' : null;
      if (close) {
        const j = matching(s, next, open, close);
        if (j > next) {
          body = s.slice(next + 1, j);
          next = j + 1;
        }
      } else {
        const m = RUN.exec(s.slice(next));
        if (m) {
          // A subscript/superscript run stops before a trailing period ("N^2." ends a sentence).
          body = m[0].replace(/\.$/, '');
          next += body.length;
        }
      }
      if (body) {
        if (buf) out.push(document.createTextNode(buf));
        buf = '';
        const node = document.createElement(ch === '_' ? 'sub' : 'sup');
        node.textContent = body;
        out.push(node);
        i = next;
        continue;
      }
    }
    buf += ch;
    i++;
  }
  if (buf) out.push(document.createTextNode(buf));
  return out;
}

function matching(s, start, open, close) {
  let depth = 0;
  for (let k = start; k < s.length; k++) {
    if (s[k] === open) depth++;
    else if (s[k] === close && --depth === 0) return k;
  }
  return -1;
}
