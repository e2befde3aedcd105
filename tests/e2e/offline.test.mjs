// The offline bundle (scripts/bundle.mjs; `npm test` runs it before these tests): dist/depthprod.html
// opened from disk with the network off computes the correction's numbers, loads nothing, and is
// allowed to run only by its CSP's hashes; dist/site/ serves the page with its download link.

import { before, test as plainTest } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { browsers, numberIn } from './harness.mjs';

const REPO = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const SINGLE = join(REPO, 'dist', 'depthprod.html');
const SITE = join(REPO, 'dist', 'site');
const FILE_URL = pathToFileURL(SINGLE).href;

// The correction's values (A = B = 1, c = 1, q = 1, N = 10^6), as the seed and the core give them.
const UNSCALED_1E6 = 2004.44407258252;
const SCALED_1E6 = 2.77849120417749;

const near = (x, want, rel = 1e-12) => Math.abs(x - want) <= rel * Math.abs(want);

before(() => {
  assert.ok(existsSync(SINGLE), `${SINGLE} is missing: run \`npm run bundle\` (npm test does)`);
});
// The browser tests run in Chromium and in Firefox ("[chromium] …", "[firefox] …").
const { test, session } = browsers();
const { session: siteSession } = browsers({ root: SITE });

plainTest('single file: one self-contained document, within the raw size goal', () => {
  const html = readFileSync(SINGLE, 'utf8');
  // No markup loads anything: every src/href outside the inline script is data: or #….
  const markup = html.replace(/<script>[\s\S]*?<\/script>/g, '').replace(/<style>[\s\S]*?<\/style>/g, '');
  const refs = [...markup.matchAll(/\s(?:src|href)\s*=\s*"([^"]*)"/gi)].map((m) => m[1]).filter((u) => !/^(data:|#)/.test(u));
  assert.deepEqual(refs, [], 'references to other files');
  assert.doesNotMatch(markup, /<script[^>]+src=|<link[^>]+rel="(stylesheet|modulepreload|preload)"/);
  assert.doesNotMatch(html, /type="module"/, 'module scripts do not run from file://');
  const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]);
  const styles = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1]);
  assert.equal(scripts.length, 1, 'one inline classic script');
  assert.equal(styles.length, 1, 'one inline style');

  // CSP: only this script and this style, by hash; wasm compilation; no connections, no 'self'.
  const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1];
  assert.ok(csp, 'a CSP meta');
  const hash = (s) => `'sha256-${createHash('sha256').update(s, 'utf8').digest('base64')}'`;
  const dir = Object.fromEntries(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([k, ...v]) => [k, v]));
  assert.deepEqual(dir['default-src'], ["'none'"]);
  assert.deepEqual(dir['script-src'].sort(), [hash(scripts[0]), "'wasm-unsafe-eval'"].sort());
  assert.deepEqual(dir['style-src'], [hash(styles[0])]);
  assert.equal(dir['connect-src'], undefined, 'no connect-src: default-src none forbids every connection');
  assert.doesNotMatch(csp, /'self'|'unsafe-inline'|'unsafe-eval'|https?:/);

  const raw = Buffer.byteLength(html);
  const gz = gzipSync(html, { level: 9 }).length;
  console.log(`# dist/depthprod.html: ${(raw / 1024).toFixed(1)} KiB raw, ${(gz / 1024).toFixed(1)} KiB gzipped`);
  // A regression guard, not the goal: the goals (under 200 KiB raw and 100 KiB gzipped, issue 11)
  // are not met (`npm run bundle` prints "OVER the goal"). Measured 282.5 / 152.3 KiB after the wasm
  // boundary dropped serde's deserializers (it was 302.9 / 167.0), then 290.7 / 157.4 KiB once the
  // near-resonant log-like terms, the exponential Euler-Maclaurin route and the list checkpoints
  // landed (the core built at opt-level "s" for the explorer's module, scripts/build-wasm.mjs); the
  // guard is that plus about 3 %, so growth shows up here. Most of the gzipped size is the wasm
  // module (98.8 KiB gzipped, see ARCHITECTURE.md for what it is made of). The answer first (the
  // headline, the comparison, the corner's words), per-product lists and the lab source took it from
  // 286.8 / 152.2 to 301.9 / 157.2 KiB (13 KiB of it script, mostly sentences esbuild cannot shorten);
  // the raw guard is that plus about 3 %.
  assert.ok(raw < 311 * 1024, `single file is ${raw} bytes (guard: under 311 KiB)`);
  assert.ok(gz < 162 * 1024, `single file is ${gz} bytes gzipped (guard: under 162 KiB)`);
});

test('single file from file:// with the network off computes the correction', async (t) => {
  const page = await session.page(t, { file: FILE_URL, offline: true });
  const requests = [];
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(FILE_URL);
  const unscaled = await numberIn(page, '[data-testid="log-product-unscaled"]');
  const scaled = await numberIn(page, '[data-testid="log-product-scaled"]');
  assert.ok(near(unscaled, UNSCALED_1E6), `unscaled log P at 1e6: ${unscaled}`);
  assert.ok(near(scaled, SCALED_1E6), `scaled log Q at 1e6: ${scaled}`);
  assert.match(await page.getByTestId('log-product-unscaled').textContent(), /^2004\.44407/);
  assert.match(await page.getByTestId('log-product-scaled').textContent(), /^2\.7784912/);

  // Interactive, not a snapshot: a fragment change recomputes (q = 3 makes the unscaled product converge).
  await page.evaluate(() => { location.hash = '#families=unscaled,scaled&a=1&b=1&c=1&q=3&n=inf'; });
  await page.waitForFunction(() => /^\d/.test(document.querySelector('[data-testid="limit-unscaled"]')?.textContent ?? ''));
  // The plot drew.
  const inked = await page.$eval('[data-testid="plot-main"]', (c) => {
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    const colours = new Set();
    for (let i = 0; i < d.length; i += 16) colours.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
    return colours.size;
  });
  assert.ok(inked > 20, `main plot has ${inked} colours`);
  assert.equal(await page.getByTestId('offline-link').count(), 0, 'the offline copy offers no download of itself');
  // data: URLs (the inlined font and icon) never reach a network; Firefox reports them as
  // requests and does not report the file:// load itself, Chromium the reverse.
  const loaded = [...new Set(requests.map((u) => u.split('#')[0]))].filter((u) => !u.startsWith('data:'));
  assert.deepEqual(loaded.filter((u) => u !== FILE_URL), [], 'the only request is the file itself');
});

test('dist/site serves the page with a working "Download offline copy" link', async (t) => {
  const page = await siteSession.page(t);
  const scripts = [];
  page.on('request', (r) => {
    if (/\.js(\?|$)/.test(r.url())) scripts.push(new URL(r.url()).pathname);
  });
  await page.goto(siteSession.url);
  await numberIn(page, '[data-testid="log-product-scaled"]');
  // its module graph comes as the bundles scripts/bundle.mjs made, not as ~25 modules
  assert.ok(scripts.length >= 2 && scripts.length <= 5, `scripts loaded: ${scripts.join(', ')}`);
  assert.ok(scripts.every((u) => /\/js\/bundle\/index-[\w-]+\.js$/.test(u)), `scripts loaded: ${scripts.join(', ')}`);
  const link = page.getByTestId('offline-link');
  await link.waitFor({ state: 'visible' });
  assert.equal(await link.getAttribute('href'), 'depthprod.html');
  const res = await page.request.get(new URL('depthprod.html', siteSession.url).href);
  assert.equal(res.status(), 200);
  assert.equal((await res.body()).length, readFileSync(SINGLE).length);
});

test('the dev site (www/) has no offline link: there is no bundle to offer', async (t) => {
  const page = await session.page(t);
  await page.goto(session.url);
  await numberIn(page, '[data-testid="log-product-scaled"]');
  assert.equal(await page.getByTestId('offline-link').isVisible(), false);
});
