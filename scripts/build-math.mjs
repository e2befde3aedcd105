#!/usr/bin/env node
// Renders the "Why" derivations (scripts/proofs-source.mjs, TeX and prose) to MathML with temml, at
// build time, and writes www/js/explorer/proofs-math.js: plain data (MathML element trees) that
// www/js/explorer/proofs.js turns into DOM nodes with createElementNS. The page parses no TeX and no markup.
//
// A live number is written `\slot{id}` in the TeX; it becomes <mn data-slot="id">, whose text the
// page sets from the core. `\general{…}` (a statement about other parameter values than the
// card's) becomes <mrow data-general="1">, which the equation tests skip. The generated module is
// committed, so the page, the offline single file and the embed need no build step for it;
// tests/e2e/math-build.test.mjs fails when it is stale.
//
//   node scripts/build-math.mjs           writes www/js/explorer/proofs-math.js
//   node scripts/build-math.mjs --check   exits 1 if www/js/explorer/proofs-math.js is not up to date
//
// Tree encoding: an element is [tag, {attributes}?, ...children], a text node is a string. The
// JSON of {PROOFS, FALLBACK} is shipped gzipped and base64-encoded (36 KiB of MathML would not fit
// the offline single file's 250 KiB budget; packed it is about 6 KiB), and inflated by the browser's
// DecompressionStream: data only, never parsed as markup or code.

import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';
import { createRequire } from 'node:module';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import temml from 'temml';
import { PROOFS, FALLBACK } from './proofs-source.mjs';

const REPO = resolve(fileURLToPath(new URL('..', import.meta.url)));
const OUT = join(REPO, 'www', 'js', 'explorer', 'proofs-math.js');
const TEMML_VERSION = JSON.parse(readFileSync(createRequire(import.meta.url).resolve('temml/package.json'), 'utf8')).version;

function fail(message) {
  console.error(`build-math: ERROR: ${message}`);
  process.exit(1);
}

const ENTITIES = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };
const decode = (s) =>
  s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e) => {
    if (e[0] === '#') return String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10));
    if (e in ENTITIES) return ENTITIES[e];
    fail(`unknown entity ${m} in temml's output`);
    return m;
  });

/** temml's MathML string → element tree (temml writes well-formed markup: no comments, no CDATA). */
function parseMarkup(text) {
  const root = { children: [] };
  const stack = [root];
  const re = /<\/([a-z][\w-]*)\s*>|<([a-z][\w-]*)((?:\s+[\w:-]+="[^"]*")*)\s*(\/?)>|([^<]+)/gi;
  let m;
  let consumed = 0;
  while ((m = re.exec(text))) {
    if (m.index !== consumed) fail(`unparsed markup at ${consumed}: ${text.slice(consumed, consumed + 40)}`);
    consumed = re.lastIndex;
    if (m[1]) {
      const node = stack.pop();
      if (node.tag !== m[1]) fail(`mismatched </${m[1]}> (open: ${node.tag})`);
    } else if (m[2]) {
      const attrs = {};
      for (const a of m[3].matchAll(/([\w:-]+)="([^"]*)"/g)) attrs[a[1]] = decode(a[2]);
      const node = { tag: m[2], attrs, children: [] };
      stack[stack.length - 1].children.push(node);
      if (!m[4]) stack.push(node);
    } else {
      stack[stack.length - 1].children.push(decode(m[5]));
    }
  }
  if (consumed !== text.length || stack.length !== 1) fail('unbalanced markup from temml');
  return root.children;
}

/** Element → compact array, dropping what the page may not set (style attributes: the CSP forbids them). */
function compact(node) {
  if (typeof node === 'string') return node;
  const attrs = {};
  for (const [k, v] of Object.entries(node.attrs)) {
    if (k === 'style') continue; // display:block math comes from www/proofs.css instead
    if (/^on/i.test(k) || k === 'href' || k === 'src') fail(`temml emitted ${k}="${v}": not allowed on the page`);
    attrs[k] = v;
  }
  const out = [node.tag];
  if (Object.keys(attrs).length) out.push(attrs);
  for (const c of node.children) out.push(compact(c));
  return out;
}

const slotIds = new Set();

function render(tex, display) {
  let markup;
  try {
    markup = temml.renderToString(tex, {
      displayMode: display,
      annotate: false,
      throwOnError: true,
      trust: (context) => context.command === '\\data',
      macros: { '\\slot': '\\data{slot=#1}{0}', '\\general': '\\data{general=1}{#1}' },
    });
  } catch (e) {
    fail(`temml could not render ${JSON.stringify(tex)}: ${e.message}`);
  }
  const nodes = parseMarkup(markup);
  if (nodes.length !== 1 || nodes[0].tag !== 'math') fail(`expected one <math> for ${JSON.stringify(tex)}`);
  const tree = compact(nodes[0]);
  const walk = (n) => {
    if (typeof n === 'string') return;
    const attrs = typeof n[1] === 'object' && !Array.isArray(n[1]) ? n[1] : null;
    if (attrs?.['data-slot']) {
      if (n[0] !== 'mn') fail(`slot ${attrs['data-slot']} rendered as <${n[0]}>, not <mn>`);
      slotIds.add(attrs['data-slot']);
    }
    for (const c of n.slice(attrs ? 2 : 1)) walk(c);
  };
  walk(tree);
  return tree;
}

/** Prose with $inline TeX$ → [text, <math>, text, …]. */
function prose(text) {
  const parts = text.split('$');
  if (parts.length % 2 === 0) fail(`unbalanced $ in ${JSON.stringify(text)}`);
  return parts
    .map((part, i) => {
      if (i % 2 === 1) return render(part, false);
      if (/[\\^_{}]/.test(part)) fail(`TeX outside $…$ would show raw: ${JSON.stringify(part)}`);
      return part;
    })
    .filter((x) => x !== '');
}

function compile(proof) {
  return {
    summary: proof.summary,
    blocks: proof.blocks.map((b) => {
      const out = {};
      if (b.p !== undefined) out.p = prose(b.p);
      else if (b.m !== undefined) out.m = render(b.m, true);
      else fail(`a block with neither p nor m: ${JSON.stringify(b)}`);
      for (const key of Object.keys(b)) if (!['p', 'm', 'when'].includes(key)) fail(`unknown block key ${key} in ${JSON.stringify(b)}`);
      if (b.when) out.when = b.when;
      return out;
    }),
  };
}

const proofs = Object.fromEntries(Object.entries(PROOFS).map(([id, p]) => [id, compile(p)]));
const fallback = compile(FALLBACK);

const json = JSON.stringify({ PROOFS: proofs, FALLBACK: fallback });
const packed = gzipSync(json, { level: 9 }).toString('base64');
const text = `// GENERATED by scripts/build-math.mjs from scripts/proofs-source.mjs with temml ${TEMML_VERSION}: do not edit.
// The JSON of {PROOFS, FALLBACK}: MathML element trees ([tag, {attributes}?, ...children]; strings
// are text), gzipped and base64-encoded, for www/js/explorer/proofs.js. Live numbers are <mn data-slot="…">.
// Slots: ${[...slotIds].sort().join(', ')}.
export const PACKED =
  '${packed}';
`;

/** The JSON inside a generated module (compared as JSON: gzip bytes may differ between zlib versions). */
function unpack(moduleText) {
  const m = /PACKED =\s*'([A-Za-z0-9+/=]*)'/.exec(moduleText);
  return m ? gunzipSync(Buffer.from(m[1], 'base64')).toString('utf8') : null;
}

if (process.argv.includes('--check')) {
  const current = existsSync(OUT) ? readFileSync(OUT, 'utf8') : '';
  if (unpack(current) !== json) fail(`${relative(REPO, OUT)} is not up to date: run \`node scripts/build-math.mjs\` and commit it`);
  console.log(`build-math: ${relative(REPO, OUT)} is up to date`);
} else {
  writeFileSync(OUT, text);
  console.log(`build-math: wrote ${relative(REPO, OUT)} (${(Buffer.byteLength(text) / 1024).toFixed(1)} KiB; ${(json.length / 1024).toFixed(1)} KiB of MathML trees, ${slotIds.size} slots)`);
}
