// Cross-origin embedding: the explorer on one origin, the host page on another (two loopback
// ports). The iframe works; <depthprod-plot> works with CORS and the CSP docs/EMBED.md gives; with
// CORS but without connect-src for the explorer's origin the element says so; without CORS the
// element's script cannot load at all, and the host's fallback text inside the element stays.
import assert from 'node:assert/strict';
import { browsers } from './harness.mjs';
import { spoiltServer } from './servers.mjs';

const { test, session } = browsers();

const page = (csp, body, script = null) => `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<title>host</title>${script ? `<script type="module" src="${script}"></script>` : ''}</head><body>${body}</body></html>`;

const ELEMENT = '<depthprod-plot id="plot" family="scaled" n="1e6"><p class="fb">The depthprod plot could not load here.</p></depthprod-plot>';

async function hostFor(t, explorer, csp, body, script) {
  const host = await spoiltServer({ pages: { '/': page(csp, body, script) } });
  const p = await session.page(t, { allowOrigins: [host.origin, explorer.origin], allowConsole: [/./], viewport: { width: 900, height: 900 } });
  await p.goto(host.url);
  return p;
}

test('the iframe from another origin shows the explorer’s numbers', { timeout: 120_000 }, async (t) => {
  const explorer = await spoiltServer();
  const p = await hostFor(
    t,
    explorer,
    `default-src 'self'; frame-src ${explorer.origin}; style-src 'self'`,
    `<iframe src="${explorer.url}#families=unscaled,scaled&amp;a=1&amp;b=1&amp;c=1&amp;q=1&amp;n=1e6&amp;embed=1" title="depthprod" width="600" height="400"></iframe>`,
  );
  let frame = null;
  for (let i = 0; i < 100 && !frame; i++) {
    frame = p.frames().find((f) => f !== p.mainFrame() && f.url().startsWith(explorer.url)) ?? null;
    if (!frame) await p.waitForTimeout(100);
  }
  assert.ok(frame, 'the cross-origin frame is there');
  await frame.waitForFunction(() => /^2\.7784912/.test(document.querySelector('[data-testid="log-product-scaled"]')?.textContent ?? ''), null, { timeout: 30_000 });
  assert.equal(await p.evaluate(() => { try { return !!document.querySelector('iframe').contentDocument; } catch { return false; } }), false, 'really another origin');
});

test('the element from another origin with CORS and the documented CSP', { timeout: 120_000 }, async (t) => {
  const explorer = await spoiltServer({ cors: /./ });
  const csp = `default-src 'self'; script-src 'self' ${explorer.origin} 'wasm-unsafe-eval'; connect-src 'self' ${explorer.origin}; style-src 'self'`;
  const p = await hostFor(t, explorer, csp, ELEMENT, `${explorer.url}depthprod-plot.js`);
  await p.waitForFunction(() => /^2\.7784912/.test(document.querySelector('#plot')?.shadowRoot?.querySelector('[data-testid="value"]')?.textContent ?? ''), null, { timeout: 30_000 });
  assert.equal(await p.locator('#plot .fb').isVisible(), false, 'upgraded: the fallback is not rendered');
});

test('the element with CORS but no connect-src for its origin explains itself', { timeout: 120_000 }, async (t) => {
  const explorer = await spoiltServer({ cors: /./ });
  const csp = `default-src 'self'; script-src 'self' ${explorer.origin} 'wasm-unsafe-eval'; style-src 'self'`;
  const p = await hostFor(t, explorer, csp, ELEMENT, `${explorer.url}depthprod-plot.js`);
  await p.waitForFunction(() => document.querySelector('#plot')?.shadowRoot?.querySelector('.err')?.textContent !== '' && !!document.querySelector('#plot')?.shadowRoot, null, { timeout: 30_000 });
  const err = await p.evaluate(() => document.querySelector('#plot').shadowRoot.querySelector('.err').textContent);
  assert.equal(err, `This page’s Content-Security-Policy does not allow fetching ${explorer.url}pkg/depthprod_wasm_bg.wasm: add ${explorer.origin} to its connect-src (see docs/EMBED.md).`);
});

test('without CORS the element never loads and the host’s fallback text stays', { timeout: 120_000 }, async (t) => {
  const explorer = await spoiltServer();
  const csp = `default-src 'self'; script-src 'self' ${explorer.origin} 'wasm-unsafe-eval'; connect-src 'self' ${explorer.origin}; style-src 'self'`;
  const p = await hostFor(t, explorer, csp, ELEMENT, `${explorer.url}depthprod-plot.js`);
  // The outcome of the element's script: a module script runs (or fails: refused without CORS)
  // before the document's load event, so once the document is complete it has failed for good.
  await p.waitForFunction(() => document.readyState === 'complete');
  assert.equal(await p.evaluate(() => customElements.get('depthprod-plot')), undefined);
  assert.equal(await p.locator('#plot .fb').isVisible(), true);
});
