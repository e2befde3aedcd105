// Static (no browser): the committed MathML of the cards' "Why" derivations (www/js/explorer/proofs-math.js)
// is what scripts/build-math.mjs makes from scripts/proofs-source.mjs with the pinned temml, and it
// carries nothing the page may not set.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

const REPO = fileURLToPath(new URL('../..', import.meta.url));

test('www/js/explorer/proofs-math.js is up to date with scripts/proofs-source.mjs', () => {
  const r = spawnSync(process.execPath, ['scripts/build-math.mjs', '--check'], { cwd: REPO, encoding: 'utf8' });
  assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
});

test('the generated trees are MathML with live-number slots and no style, script or link', () => {
  const text = readFileSync(new URL('../../www/js/explorer/proofs-math.js', import.meta.url), 'utf8');
  const packed = /PACKED =\s*'([A-Za-z0-9+/=]+)'/.exec(text)[1];
  const { PROOFS, FALLBACK } = JSON.parse(gunzipSync(Buffer.from(packed, 'base64')).toString('utf8'));
  for (const id of ['eq11', 'eq65', 'eq50', 's41']) assert.ok(PROOFS[id]?.blocks.length >= 3, `no derivation for ${id}`);
  assert.ok(FALLBACK.blocks.length >= 1);
  const tags = new Set();
  let slots = 0;
  const walk = (n) => {
    if (typeof n === 'string') {
      assert.ok(!/\\[a-zA-Z]/.test(n), `raw TeX in the output: ${n}`);
      return;
    }
    tags.add(n[0]);
    const hasAttrs = !!n[1] && typeof n[1] === 'object' && !Array.isArray(n[1]);
    const attrs = hasAttrs ? n[1] : {};
    for (const k of Object.keys(attrs)) assert.ok(!/^(style|on.*|href|src)$/i.test(k), `<${n[0]} ${k}>`);
    if (attrs['data-slot']) {
      assert.equal(n[0], 'mn', 'a live number is an <mn>');
      slots++;
    }
    n.slice(hasAttrs ? 2 : 1).forEach(walk);
  };
  for (const p of Object.values(PROOFS)) {
    for (const b of p.blocks) {
      if (b.m) {
        assert.equal(b.m[0], 'math');
        walk(b.m);
      }
      for (const part of b.p || []) walk(part);
    }
  }
  assert.ok(slots >= 30, `${slots} slots`);
  for (const t of tags) assert.match(t, /^(math|mrow|mi|mn|mo|mtext|mspace|msub|msup|msubsup|munder|mover|munderover|mfrac|msqrt|mroot|mstyle|mpadded|mphantom|menclose|mtable|mtr|mtd)$/, `unexpected element <${t}>`);
});
