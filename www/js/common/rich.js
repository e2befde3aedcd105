// Renders a small math-ish notation as DOM text with <sub>/<sup> (never as HTML):
//   x_N, x_{l>N}  → subscript;   N^0.5, l^(2−ε), e^{λ l} → superscript.
// Only createElement / textContent are used, so no text can become markup.

const RUN = /^[A-Za-z0-9∞.−-]+/;

/**
 * Replaces el's children with the rendered form of `text`. When only the words changed (the same
 * runs of text, subscripts and superscripts, as a slider move's numbers usually are) the existing
 * nodes keep their place and only their text changes: no nodes enter the tree, so the browser
 * restyles nothing and relays out only the changed text.
 */
export function rich(el, text) {
  const key = String(text);
  if (el.__rich === key) return;
  el.__rich = key;
  const parts = parse(key);
  const kids = el.childNodes;
  if (kids.length === parts.length && parts.every((p, i) => sameShape(kids[i], p))) {
    parts.forEach((p, i) => {
      const node = kids[i];
      if (node.textContent !== p.text) node.textContent = p.text;
    });
    return;
  }
  el.replaceChildren(...parts.map(nodeOf));
}

/** Whether an existing child renders a part of the same kind (text, <sub> or <sup> with one text). */
function sameShape(node, part) {
  if (part.tag === null) return node.nodeType === Node.TEXT_NODE;
  return node.nodeType === Node.ELEMENT_NODE && node.localName === part.tag && node.childNodes.length <= 1;
}

function nodeOf(part) {
  if (part.tag === null) return document.createTextNode(part.text);
  const node = document.createElement(part.tag);
  node.textContent = part.text;
  return node;
}

/** The parts of a text: [{ tag: null | 'sub' | 'sup', text }] in order. */
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
        if (buf) out.push({ tag: null, text: buf });
        buf = '';
        out.push({ tag: ch === '_' ? 'sub' : 'sup', text: body });
        i = next;
        continue;
      }
    }
    buf += ch;
    i++;
  }
  if (buf) out.push({ tag: null, text: buf });
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
