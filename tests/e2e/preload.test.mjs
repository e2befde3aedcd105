// The page preloads its whole module graph and the wasm (first paint is otherwise a waterfall of
// one round trip per import level). A module added to www/js/ must be added to index.html too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const WWW = fileURLToPath(new URL('../../www/', import.meta.url));

test('index.html preloads every module and the wasm', () => {
  const html = readFileSync(`${WWW}index.html`, 'utf8');
  for (const file of readdirSync(`${WWW}js`).filter((f) => f.endsWith('.js'))) {
    assert.ok(html.includes(`<link rel="modulepreload" href="js/${file}">`), `js/${file} is not preloaded`);
  }
  assert.ok(html.includes('href="pkg/depthprod_wasm_bg.wasm" as="fetch"'));
});
