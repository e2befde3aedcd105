// What counts as floating-point noise in displayed text (noise.test.mjs scans every preset's page
// with it). A number token is a decimal with a fraction part, optionally with an exponent
// ("0.016384000000000003", "2.5e-3", "1.950000000000000"). It is noise when
//   - digits:   it has more than 17 significant digits (no double carries more information);
//   - artifact: it has 16 or more significant digits and ends in a run of at least five 0s or 9s
//               followed by one or two final digits ("0.016384000000000003", "0.30000000000000004",
//               "1.9499999999999998"): the shortest round-trip form of a double that is not the
//               decimal meant; an enclosure's outward-rounded bound ("[2.4999999999999982, …]") is
//               the exception, since directed rounding makes exactly such digits;
//   - padding:  its fraction part ends in four or more 0s ("1.950000000000000", "2.50000000000000",
//               "0.2068100000000000"): zeros past the digits that identify the value.
// Scanned: every text node under `root` (hidden ones too: the plots' data tables, closed panels),
// the title and aria-label attributes, and the values of the page's fields. The function runs
// inside the page (it is passed to page.evaluate as a string).

export function scanForNoise(root) {
  const TOKEN = /(?<![\d.])\d+\.\d+(?:e[+\-−]?\d+)?/g;
  const found = [];
  const check = (text, where) => {
    for (const m of String(text).matchAll(TOKEN)) {
      const tok = m[0];
      const mant = tok.split('e')[0];
      const sig = mant.replace('.', '').replace(/^0+/, '');
      const before = text.slice(0, m.index);
      const after = text.slice(m.index + tok.length);
      const bound = /\[\s*[-−]?$/.test(before) || (/,\s*[-−]?$/.test(before) && /^\s*\]/.test(after)) || (/^\s*,/.test(after) && /\[\s*[-−]?$/.test(before));
      let why = null;
      if (sig.length > 17) why = 'more than 17 significant digits';
      else if (/\.\d*0{4,}$/.test(mant)) why = 'zeros padding the value';
      else if (!bound && sig.length >= 16 && /(0{5,}|9{5,})\d{1,2}$/.test(sig)) why = 'a double’s conversion artifact';
      if (why) found.push({ token: tok, why, where, context: text.slice(Math.max(0, m.index - 50), m.index + tok.length + 20).replace(/\s+/g, ' ') });
    }
  };
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (n.parentElement?.closest('script, style')) continue;
    const el = n.parentElement;
    const where = el?.closest('[data-testid]')?.dataset.testid ?? el?.localName ?? '?';
    check(n.data, el?.closest('details.why') ? `why: ${where}` : where);
  }
  // Every attribute a reader meets, and the values the page writes into its fields; the measured-list
  // box is left out: it holds the reader's own data as pasted.
  for (const el of root.querySelectorAll('[title], [aria-label], input, textarea:not([data-testid="input-list"])')) {
    for (const attr of ['title', 'aria-label']) if (el.hasAttribute(attr)) check(el.getAttribute(attr), `${el.dataset.testid ?? el.localName} @${attr}`);
    if ('value' in el && el.type !== 'range' && el.type !== 'checkbox' && el.type !== 'radio') check(el.value, `${el.dataset.testid ?? el.id} value`);
  }
  return found;
}
