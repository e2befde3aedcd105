// "No mathematics in JavaScript" (ARCHITECTURE.md): every product, bound, exponent and verdict is the
// core's. This reads the page's sources (no browser) and fails on arithmetic that once lived in JS:
// the LNS change of variable q = 2 − ε, verdicts decided by comparing a core coefficient with 1, and
// transcendental functions in the modules that handle the core's numbers.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';

const WWW = new URL('../../www/', import.meta.url);
const sources = [
  ...['explorer', 'lab', 'common'].flatMap((dir) =>
    readdirSync(new URL(`js/${dir}/`, WWW)).filter((f) => f.endsWith('.js')).map((f) => `js/${dir}/${f}`)),
  ...readdirSync(WWW).filter((f) => f.endsWith('.js')),
];

/** Source text without comments (line and block), so a comment may quote the formula it avoids. */
function code(path) {
  return readFileSync(new URL(path, WWW), 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
}

const everywhere = [
  { what: 'q = 2 − ε computed in JS (the core takes ε)', re: /\b2\s*-\s*(q|eps|ε|epsilon)\b|\b(q|eps)\s*-\s*2\b/ },
  { what: 'a verdict from comparing a core coefficient with a constant (the core returns the growth class)', re: /\.coefficient\s*[!=<>]==?\s*-?\d/ },
];
// Modules that receive the core's numbers: no transcendental functions at all (pixels live in plot.js,
// slider positions in controls.js).
const numeric = ['js/explorer/cards.js', 'js/explorer/readouts.js', 'js/explorer/series.js', 'js/explorer/state.js', 'js/explorer/listplot.js', 'js/explorer/share.js', 'js/explorer/access.js', 'js/explorer/answer.js', 'js/explorer/expansion.js', 'js/explorer/handoff.js'];
const transcendental = /\bMath\.(exp|expm1|log|log1p|log2|pow|sqrt|cbrt|sin|cos|tan|atan2?|hypot)\s*\(/;

test('the page has JavaScript sources to check', () => {
  assert.ok(sources.includes('js/explorer/cards.js') && sources.includes('js/explorer/state.js'), sources.join(', '));
});

for (const path of sources) {
  test(`no mathematics in www/${path}`, () => {
    const lines = code(path).split('\n');
    const found = [];
    lines.forEach((line, i) => {
      for (const rule of everywhere) if (rule.re.test(line)) found.push(`${path}:${i + 1}: ${rule.what}: ${line.trim()}`);
      if (numeric.includes(path) && transcendental.test(line)) found.push(`${path}:${i + 1}: a transcendental function: ${line.trim()}`);
    });
    assert.deepEqual(found, []);
  });
}
