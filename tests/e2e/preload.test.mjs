// The page preloads its whole module graph and the wasm (first paint is otherwise a waterfall of
// one round trip per import level). A module added to www/js/ must be added to index.html too,
// except the lab page's own modules (lab-*.js), which the explorer never loads: lab.html preloads those.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const WWW = fileURLToPath(new URL('../../www/', import.meta.url));

test('index.html preloads every module and the wasm', () => {
  const html = readFileSync(`${WWW}index.html`, 'utf8');
  for (const file of readdirSync(`${WWW}js`).filter((f) => f.endsWith('.js') && !f.startsWith('lab-'))) {
    assert.ok(html.includes(`<link rel="modulepreload" href="js/${file}">`), `js/${file} is not preloaded`);
  }
  assert.ok(html.includes('href="pkg/depthprod_wasm_bg.wasm" as="fetch"'));
});

test('lab.html preloads its modules (the worker excepted: it loads in the worker)', () => {
  const html = readFileSync(`${WWW}lab.html`, 'utf8');
  for (const file of readdirSync(`${WWW}js`).filter((f) => f.startsWith('lab-') && f !== 'lab-worker.js')) {
    assert.ok(html.includes(`<link rel="modulepreload" href="js/${file}">`), `js/${file} is not preloaded by lab.html`);
  }
});
