// Each page preloads its whole module graph (first paint is otherwise a waterfall of one round trip
// per import level): index.html the modules of js/explorer/ and js/common/ and the wasm, lab.html
// those of js/lab/ (its worker excepted) and js/common/. A module added to a folder must be listed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const WWW = fileURLToPath(new URL('../../www/', import.meta.url));

/** The modules of the given folders of www/js/, as paths relative to www/. */
const modules = (...folders) =>
  folders.flatMap((dir) => readdirSync(`${WWW}js/${dir}`).filter((f) => f.endsWith('.js')).map((f) => `js/${dir}/${f}`));

test('www/js/ holds only the three folders', () => {
  assert.deepEqual(readdirSync(`${WWW}js`).sort(), ['common', 'explorer', 'lab']);
});

test('index.html preloads every module and the wasm', () => {
  const html = readFileSync(`${WWW}index.html`, 'utf8');
  for (const file of modules('explorer', 'common')) {
    assert.ok(html.includes(`<link rel="modulepreload" href="${file}">`), `${file} is not preloaded`);
  }
  assert.ok(!html.includes('js/lab/'), 'index.html names a module of the lab page');
  assert.ok(html.includes('href="pkg/depthprod_wasm_bg.wasm" as="fetch"'));
});

test('lab.html preloads its modules (the worker excepted: it loads in the worker)', () => {
  const html = readFileSync(`${WWW}lab.html`, 'utf8');
  for (const file of modules('lab', 'common').filter((f) => f !== 'js/lab/worker.js')) {
    assert.ok(html.includes(`<link rel="modulepreload" href="${file}">`), `${file} is not preloaded by lab.html`);
  }
});
