// Failures that explain themselves: a host can break the explorer in a handful of ways (a CSP
// without 'wasm-unsafe-eval' or without connect-src, a 404 under a sub-path, a cross-origin copy
// without CORS, a .wasm served as text/plain). Each is caused here for real by a server that sends
// the offending headers, and the page must say, in one sentence, what went wrong and how to fix it.
import assert from 'node:assert/strict';
import { browsers } from './harness.mjs';
import { spoiltServer } from './servers.mjs';

const { test, session } = browsers();

/** Opens `url` and waits for the explorer's status line to say something; returns it. */
async function statusOf(t, url, { allowConsole = [/./], allowOrigins = [] } = {}) {
  const page = await session.page(t, { allowConsole, allowOrigins: [new URL(url).origin, ...allowOrigins] });
  await page.goto(url);
  await page.waitForFunction(() => !/^(|Loading the WebAssembly core…)$/.test(document.querySelector('[data-testid="status"]')?.textContent.trim() ?? ''), null, { timeout: 20_000 });
  return { page, status: (await page.getByTestId('status').textContent()).trim() };
}

/** One sentence: a single full stop at the end (URLs and decimals aside). */
function assertOneSentence(text) {
  const stops = text.replace(/https?:\/\/\S+/g, 'URL').replace(/\d\.\d/g, '').match(/[.!?](\s|$)/g) ?? [];
  assert.equal(stops.length, 1, `one sentence: ${text}`);
}

test('a CSP without wasm-unsafe-eval: the page says to add it', async (t) => {
  const srv = await spoiltServer({ csp: "script-src 'self'" });
  const { status } = await statusOf(t, srv.url);
  assert.match(status, /Content-Security-Policy blocks WebAssembly: add 'wasm-unsafe-eval' to its script-src/);
  assert.doesNotMatch(status, /npm run build/, 'the build exists: the advice is about the CSP');
  assertOneSentence(status);
});

test('a CSP whose connect-src forbids the wasm fetch: the page names connect-src and the URL', async (t) => {
  const srv = await spoiltServer({ csp: "connect-src 'none'" });
  const { status } = await statusOf(t, srv.url);
  assert.match(status, new RegExp(`does not allow fetching ${srv.url}pkg/depthprod_wasm_bg\\.wasm: add 'self' to its connect-src`));
  assertOneSentence(status);
});

test('the glue module answers 404 (a sub-path deployment): the page gives the URL it tried', async (t) => {
  const srv = await spoiltServer({ missing: /\/pkg\/depthprod_wasm\.js$/ });
  const { status } = await statusOf(t, srv.url);
  assert.match(status, new RegExp(`${srv.url}pkg/depthprod_wasm\\.js was not found \\(HTTP 404\\).*sub-path`));
  assertOneSentence(status);
});

test('the wasm answers 404: the page gives the URL it tried', async (t) => {
  const srv = await spoiltServer({ missing: /\.wasm$/ });
  const { status } = await statusOf(t, srv.url);
  assert.match(status, new RegExp(`${srv.url}pkg/depthprod_wasm_bg\\.wasm was not found \\(HTTP 404\\)`));
  assertOneSentence(status);
});

test('a .wasm served as text/plain still computes, and the page says how to fix the server', async (t) => {
  const srv = await spoiltServer({ types: { '.wasm': 'text/plain' } });
  const { page, status } = await statusOf(t, srv.url, { allowConsole: [] });
  assert.match(status, /served as “text\/plain” instead of application\/wasm, so it was compiled from its bytes \(slower\): configure the server to send application\/wasm/);
  assertOneSentence(status);
  await page.waitForFunction(() => /^2\.7784912/.test(document.querySelector('[data-testid="log-product-scaled"]')?.textContent ?? ''));
  assert.equal(await page.getByTestId('status').evaluate((el) => el.classList.contains('is-error')), false, 'a notice, not an error');
});

test('core.js loaded from another origin whose server sends CORS for scripts but not for the wasm', async (t) => {
  const explorer = await spoiltServer({ cors: /\.js$/ });
  const host = await spoiltServer({
    pages: {
      '/': '<!doctype html><meta charset="utf-8"><title>host</title><p id="out">loading</p><script type="module" src="/host.js"></script>',
      '/host.js': `const { initCore } = await import(${JSON.stringify(`${explorer.url}js/common/core.js`)});\ndocument.getElementById('out').textContent = (await initCore()) ?? 'loaded';\n`,
    },
  });
  const page = await session.page(t, { allowConsole: [/./], allowOrigins: [host.origin, explorer.origin] });
  await page.goto(host.url);
  await page.waitForFunction(() => document.getElementById('out').textContent !== 'loading', null, { timeout: 20_000 });
  const out = await page.textContent('#out');
  assert.equal(out, `${explorer.origin} did not allow this page (${host.origin}) to load ${explorer.url}pkg/depthprod_wasm_bg.wasm: its server must send Access-Control-Allow-Origin for depthprod’s files (see docs/EMBED.md).`);

  // With CORS for everything, the same host page loads the core.
  const open = await spoiltServer({ cors: /./ });
  const host2 = await spoiltServer({
    pages: {
      '/': '<!doctype html><meta charset="utf-8"><title>host</title><p id="out">loading</p><script type="module" src="/host.js"></script>',
      '/host.js': `const { initCore } = await import(${JSON.stringify(`${open.url}js/common/core.js`)});\ndocument.getElementById('out').textContent = (await initCore()) ?? 'loaded';\n`,
    },
  });
  const ok = await session.page(t, { allowOrigins: [host2.origin, open.origin] });
  await ok.goto(host2.url);
  await ok.waitForFunction(() => document.getElementById('out').textContent === 'loaded', null, { timeout: 20_000 });
});
