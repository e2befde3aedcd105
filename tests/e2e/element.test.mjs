// <depthprod-plot> at full strength, in a host page with a strict CSP: every variance model (power,
// exponential, a measured list from an attribute or from child text), kind = product / remainder /
// tail, light and dark (attribute or the host's prefers-color-scheme), and fallback content that
// shows until the element upgrades and stays when its script never loads. Numbers are checked
// against the core itself, called through js/common/core.js in the same page.
import assert from 'node:assert/strict';
import { browsers } from './harness.mjs';
import { spoiltServer } from './servers.mjs';

const { test, session } = browsers();

const HEAD = (script) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="color-scheme" content="light dark">
<meta http-equiv="Content-Security-Policy" content="default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'">
<title>host</title>${script ? `<script type="module" src="${script}"></script>` : ''}</head>`;

const GALLERY = `${HEAD('/depthprod-plot.js')}<body>
<depthprod-plot id="exp" variance="exp" c="1" lambda="0.01" family="scaled" n="1000"><p class="fb">The depthprod plot is loading.</p></depthprod-plot>
<depthprod-plot id="list-attr" variance="list" list="1, 2, 3, 4, 5, 6, 7, 8" family="unscaled"></depthprod-plot>
<depthprod-plot id="list-child" variance="list" family="unscaled"><pre data-list>1 2 3
4 5 6 7 8</pre></depthprod-plot>
<depthprod-plot id="rem" kind="remainder" family="unscaled"></depthprod-plot>
<depthprod-plot id="tail" kind="tail" family="scaled"></depthprod-plot>
<depthprod-plot id="dark" theme="dark"></depthprod-plot>
<depthprod-plot id="light" theme="light"></depthprod-plot>
</body></html>`;

const BROKEN = `${HEAD('/not-here/depthprod-plot.js')}<body>
<depthprod-plot id="broken"><p class="fb">The plot could not load: <a href="/">open the explorer</a>.</p></depthprod-plot>
</body></html>`;

/** The number shown by element `id`, once it parses. */
async function shown(page, id) {
  const h = await page.waitForFunction((sel) => {
    const t = document.querySelector(sel)?.shadowRoot?.querySelector('[data-testid="value"]')?.textContent ?? '';
    const x = Number.parseFloat(t);
    return Number.isFinite(x) ? x : null;
  }, `#${id}`, { timeout: 30_000 });
  return h.jsonValue();
}

/** The core's value for `params` (log P_N), through the page's own js/common/core.js. */
const coreLog = (page, params) =>
  page.evaluate(async (p) => {
    const core = await import('/js/common/core.js');
    const r = core.evaluate(p);
    if (!r.ok) throw new Error(r.error);
    return r.value.log_product.value;
  }, params);

const near = (x, want) => Math.abs(x - want) <= 1e-9 * Math.max(1, Math.abs(want));

const inked = (page, id) =>
  page.evaluate((sel) => {
    const c = document.querySelector(sel).shadowRoot.querySelector('canvas');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    const set = new Set();
    for (let i = 0; i < d.length; i += 8) set.add(((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]) * 256 + d[i + 3]);
    return set.size;
  }, `#${id}`);

const boxBg = (page, id) => page.evaluate((sel) => getComputedStyle(document.querySelector(sel).shadowRoot.querySelector('.box')).backgroundColor, `#${id}`);

test('every variance model and kind, checked against the core', { timeout: 120_000 }, async (t) => {
  const srv = await spoiltServer({ pages: { '/gallery.html': GALLERY } });
  const page = await session.page(t, { allowOrigins: [srv.origin], viewport: { width: 900, height: 2400 } });
  await page.goto(`${srv.url}gallery.html`);

  const exp = await shown(page, 'exp');
  assert.ok(near(exp, await coreLog(page, { family: 'scaled', a: 1, b: 1, variance: { kind: 'exponential', c: 1, lambda: 0.01 }, n: 1000 })), `exp ${exp}`);
  assert.match(await page.evaluate(() => document.querySelector('#exp').shadowRoot.querySelector('.params').textContent), /λ = 0\.01; N = 1,000$/);

  const measured = await coreLog(page, { family: 'unscaled', a: 1, b: 1, variance: { kind: 'measured', values: [1, 2, 3, 4, 5, 6, 7, 8] }, n: 8 });
  assert.ok(near(await shown(page, 'list-attr'), measured), 'list from the attribute; N defaults to its length');
  assert.ok(near(await shown(page, 'list-child'), measured), 'list from child text');

  // Remainder: the unscaled product diverges; the element shows its constant C and the curve.
  await shown(page, 'rem');
  assert.match(await page.evaluate(() => document.querySelector('#rem').shadowRoot.querySelector('.what').textContent), /^C, the constant/);
  const tailValue = await shown(page, 'tail');
  assert.ok(near(tailValue, await coreLog(page, { family: 'scaled', a: 1, b: 1, variance: { kind: 'power', c: 1, q: 1 }, n: 1e6 })));
  for (const id of ['exp', 'list-attr', 'rem', 'tail']) assert.ok((await inked(page, id)) > 20, `${id} draws its plot`);
  assert.match(await page.evaluate(() => document.querySelector('#tail').shadowRoot.querySelector('canvas').getAttribute('aria-label')), /tail bound/);

  // A kind that does not apply says so in the plot and keeps the number.
  await page.evaluate(() => document.querySelector('#tail').setAttribute('family', 'unscaled'));
  await page.waitForFunction(() => /^2004\.44407/.test(document.querySelector('#tail').shadowRoot.querySelector('[data-testid="value"]').textContent));
  await page.evaluate(() => document.querySelector('#rem').setAttribute('kind', 'bogus'));
  await page.waitForFunction(() => /kind = “bogus”: use product, remainder or tail/.test(document.querySelector('#rem').shadowRoot.querySelector('.err').textContent));

  // Upgraded: the fallback content is no longer rendered.
  assert.equal(await page.evaluate(() => document.querySelector('#exp .fb').getClientRects().length), 0);

  // Theme: attribute wins; otherwise the host's scheme (light here).
  assert.equal(await boxBg(page, 'dark'), 'rgb(23, 26, 32)');
  assert.equal(await boxBg(page, 'light'), 'rgb(255, 255, 255)');
  assert.equal(await boxBg(page, 'exp'), 'rgb(255, 255, 255)');
});

test('a dark host: elements follow prefers-color-scheme unless theme="light"', { timeout: 120_000 }, async (t) => {
  const srv = await spoiltServer({ pages: { '/gallery.html': GALLERY } });
  const page = await session.page(t, { allowOrigins: [srv.origin], context: { colorScheme: 'dark' }, viewport: { width: 900, height: 2400 } });
  await page.goto(`${srv.url}gallery.html`);
  await shown(page, 'exp');
  assert.equal(await boxBg(page, 'exp'), 'rgb(23, 26, 32)');
  assert.equal(await boxBg(page, 'light'), 'rgb(255, 255, 255)');
  assert.ok((await inked(page, 'exp')) > 20);
});

test('fallback content stays when the element’s script never loads', async (t) => {
  const srv = await spoiltServer({ pages: { '/broken.html': BROKEN } });
  const page = await session.page(t, { allowOrigins: [srv.origin], allowConsole: [/./] });
  await page.goto(`${srv.url}broken.html`);
  // The outcome of the element's script: a module script runs (or fails: a 404 here) before the
  // document's load event, so once the document is complete it has failed and will not run.
  await page.waitForFunction(() => document.readyState === 'complete');
  assert.equal(await page.evaluate(() => customElements.get('depthprod-plot')), undefined);
  assert.equal(await page.locator('#broken .fb').isVisible(), true);
  assert.match(await page.textContent('#broken .fb'), /could not load/);
});
