// Embed mode (#…&embed=1) at 600 × 400, the "Copy embed code" snippet, the iframe example and the
// <depthprod-plot> custom element.

import assert from 'node:assert/strict';
import { browsers, numberIn } from './harness.mjs';

// Each test runs in Chromium and in Firefox ("[chromium] …", "[firefox] …").
const { test, session } = browsers();

const EMBED = '#families=unscaled,scaled&a=1&b=1&c=1&q=1&n=1e6&embed=1';

/** Number of distinct colours in a canvas (a blank or cleared canvas has one or two). */
function inkedColours(canvas) {
  const d = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
  const colours = new Set();
  for (let i = 0; i < d.length; i += 8) colours.add(((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]) * 256 + d[i + 3]);
  return colours.size;
}

/** Whether an element's box lies inside the viewport. */
async function inside(page, testid) {
  const box = await page.getByTestId(testid).boundingBox();
  const vp = page.viewportSize();
  return !!box && box.width > 0 && box.height > 0 && box.x >= 0 && box.y >= 0 && box.x + box.width <= vp.width + 0.5 && box.y + box.height <= vp.height + 0.5;
}

test('embed mode at 600x400: plot, A/B/q/N and the key numbers in view, nothing else', async (t) => {
  const page = await session.page(t, { viewport: { width: 600, height: 400 } });
  await page.goto(session.url + EMBED);
  const unscaled = await numberIn(page, '[data-testid="log-product-unscaled"]');
  const scaled = await numberIn(page, '[data-testid="log-product-scaled"]');
  assert.ok(Math.abs(unscaled - 2004.44407258252) < 1e-8, `log P ${unscaled}`);
  assert.ok(Math.abs(scaled - 2.77849120417749) < 1e-11, `log Q ${scaled}`);
  assert.equal(await page.getByTestId('error-fragment').textContent(), '', 'embed=1 is not reported as an unknown setting');

  // Everything that matters is inside the 600 x 400 frame, without scrolling.
  for (const id of ['plot-main', 'input-a', 'input-b', 'input-q', 'input-n', 'log-product-unscaled', 'log-product-scaled', 'embed-open']) {
    assert.ok(await inside(page, id), `${id} is inside the 600x400 viewport`);
  }
  const { scrollW, scrollH } = await page.evaluate(() => ({ scrollW: document.scrollingElement.scrollWidth, scrollH: document.scrollingElement.scrollHeight }));
  assert.ok(scrollW <= 600 && scrollH <= 400, `no scrolling (${scrollW} x ${scrollH})`);
  const box = await page.getByTestId('plot-main').boundingBox();
  assert.ok(box.width >= 300 && box.height >= 200, `plot is ${box.width} x ${box.height}`);
  assert.ok(await page.$eval('[data-testid="plot-main"]', inkedColours) > 20, 'the plot is drawn');
  for (const id of ['plot-remainder', 'plot-tail', 'plot-rotation', 'preset-correction', 'family-unscaled', 'input-c', 'copy-embed']) {
    assert.equal(await page.getByTestId(id).isVisible(), false, `${id} is hidden in embed mode`);
  }

  // "Open full explorer": same state, no embed=1, new tab.
  const open = page.getByTestId('embed-open');
  assert.equal(await open.getAttribute('target'), '_blank');
  assert.match(await open.getAttribute('rel'), /noopener/);
  const href = new URL(await open.getAttribute('href'));
  assert.equal(href.origin + href.pathname, session.url);
  assert.doesNotMatch(href.hash, /embed/);
  assert.match(href.hash, /a=1&b=1&c=1&q=1&n=1e6/);

  // Controls work, the link follows the state, and the iframe writes no history.
  const historyBefore = await page.evaluate(() => history.length);
  await page.getByTestId('input-a').fill('2');
  await page.getByTestId('input-a').press('Enter');
  await page.waitForFunction(() => !document.querySelector('[data-testid="log-product-scaled"]').textContent.startsWith('2.7784912'));
  assert.match(await open.getAttribute('href'), /[#&]a=2(&|$)/);
  assert.equal(await page.evaluate(() => history.length), historyBefore);
  assert.equal(new URL(page.url()).hash, EMBED);
});

test('an embed with why=<card> carries that card and its derivation, with the view’s numbers', async (t) => {
  const page = await session.page(t, { viewport: { width: 600, height: 400 } });
  // In the LNS regime (ε = 1/2), where the card judges the plotted Q_N itself.
  await page.goto(`${session.url}${EMBED.replace('q=1', 'eps=0.5')}&why=eq65`);
  const limit = await numberIn(page, '[data-testid="limit-scaled"]');
  await page.waitForFunction(() => document.querySelector('[data-testid="why-eq65"]')?.open === true);
  assert.equal(await inside(page, 'plot-main'), true, 'the plot stays in the first view');
  // The card and its Why are shown (below the plot); the other cards and the page's tools are not.
  assert.equal(await page.getByTestId('card-eq65').isVisible(), true);
  for (const id of ['card-eq11', 'card-eq50', 'card-s41', 'verdict-legend', 'copy-embed']) {
    assert.equal(await page.getByTestId(id).isVisible(), false, `${id} is hidden in the embed`);
  }
  const qinf = await page.evaluate(() => document.querySelector('[data-testid="why-eq65"] mn[data-slot="qinf"]')?.textContent ?? '');
  assert.ok(Math.abs(Number.parseFloat(qinf) - limit) < 1e-9, `the proof's log Q_inf ${qinf} is the readout's ${limit}`);
  const formulas = await page.evaluate(() => [...document.querySelectorAll('[data-testid="why-eq65"] math')].filter((m) => m.getBoundingClientRect().height > 0).length);
  assert.ok(formulas >= 5, `${formulas} rendered formulas`);
  // Without why=, an embed shows no card.
  await page.goto(`${session.url}${EMBED.replace('n=1e6', 'n=1e5')}`);
  await numberIn(page, '[data-testid="log-product-scaled"]');
  assert.equal(await page.getByTestId('card-eq65').isVisible(), false);
});

test('embed mode opens the same state in the full explorer', async (t) => {
  const page = await session.page(t, { viewport: { width: 600, height: 400 } });
  await page.goto(session.url + '#families=scaled&a=0.5&b=2&c=1&q=1.5&n=1e9&embed=1');
  const embedded = await numberIn(page, '[data-testid="log-product-scaled"]');
  const href = await page.getByTestId('embed-open').getAttribute('href');
  const full = await session.page(t);
  await full.goto(href);
  assert.equal(await numberIn(full, '[data-testid="log-product-scaled"]'), embedded);
  // the full layout: its second row of plots (scaled alone converges: the tail plot; the remainder
  // figure says in words that no divergent product is shown, with no empty frame)
  assert.equal(await full.getByTestId('plot-tail').isVisible(), true, 'the full layout');
  assert.equal(await full.getByTestId('remainder-empty').isVisible(), true, 'the full layout');
});

test('"Copy embed code" gives an iframe snippet that embeds the current state', async (t) => {
  const page = await session.page(t, { context: { permissions: ['clipboard-read', 'clipboard-write'] } });
  await page.goto(session.url + '#families=unscaled,scaled&a=1&b=1&c=1&q=1&n=1e6');
  await numberIn(page, '[data-testid="log-product-scaled"]');
  await page.getByTestId('copy-embed').click();
  const code = page.getByTestId('embed-code');
  await code.waitFor({ state: 'visible' });
  const snippet = await code.inputValue();
  assert.match(snippet, /^<iframe src="[^"]+" title="depthprod: [^"]+" width="600" height="400" loading="lazy"[^>]*><\/iframe>$/);
  assert.match(await page.getByTestId('embed-status').textContent(), /copied|copy it/i);
  const clip = await page.evaluate(() => navigator.clipboard.readText());
  assert.equal(clip, snippet);

  // An open Why goes into the snippet.
  await page.evaluate(() => { document.querySelector('[data-testid="why-eq11"]').open = true; });
  await page.getByTestId('copy-embed').click();
  await page.waitForFunction(() => /why=eq11&(amp;)?embed=1/.test(document.querySelector('[data-testid="embed-code"]').value));
  await page.evaluate(() => { document.querySelector('[data-testid="why-eq11"]').open = false; });

  // The snippet works: put it in a page of its own and read the numbers inside the frame.
  const src = /src="([^"]+)"/.exec(snippet)[1].replace(/&amp;/g, '&');
  assert.ok(src.startsWith(session.url) && src.endsWith('&embed=1'), src);
  const host = await session.page(t);
  await host.goto(`${session.url}examples/iframe.html`);
  await host.evaluate((s) => { document.querySelector('iframe').src = s; }, src);
  const frame = host.frameLocator('iframe');
  await frame.getByTestId('log-product-scaled').waitFor();
  await host.waitForFunction(() => /^2\.7784912/.test(document.querySelector('iframe').contentDocument?.querySelector('[data-testid="log-product-scaled"]')?.textContent ?? ''));
  assert.equal(await frame.getByTestId('embed-open').isVisible(), true);
});

test('iframe example: the embedded explorer shows its plot and numbers', async (t) => {
  const page = await session.page(t, { viewport: { width: 900, height: 800 } });
  await page.goto(`${session.url}examples/iframe.html`);
  const frame = page.frames().find((f) => f !== page.mainFrame()) ?? (await (await page.waitForSelector('iframe')).contentFrame());
  await frame.waitForFunction(() => /^2004\.44407/.test(document.querySelector('[data-testid="log-product-unscaled"]')?.textContent ?? ''));
  assert.ok(await frame.$eval('[data-testid="plot-main"]', inkedColours) > 20);
  const size = await page.$eval('iframe', (f) => [f.clientWidth, f.clientHeight]);
  assert.deepEqual(size, [600, 400]);
});

test('<depthprod-plot>: renders in its shadow root, follows attributes, keeps styles apart', async (t) => {
  const page = await session.page(t, { viewport: { width: 1000, height: 800 } });
  await page.goto(`${session.url}examples/custom-element.html`);
  const value = (id) => page.evaluate((sel) => document.querySelector(sel).shadowRoot.querySelector('[data-testid="value"]').textContent, `#${id}`);
  await page.waitForFunction(() => /^2\.7784912/.test(document.querySelector('#scaled')?.shadowRoot?.querySelector('[data-testid="value"]')?.textContent ?? ''));
  await page.waitForFunction(() => /^2004\.44407/.test(document.querySelector('#unscaled')?.shadowRoot?.querySelector('[data-testid="value"]')?.textContent ?? ''));
  assert.match(await value('scaled'), /^2\.7784912\d* ∈ \[/);
  for (const id of ['scaled', 'unscaled']) {
    const colours = await page.evaluate((sel) => {
      const c = document.querySelector(sel).shadowRoot.querySelector('canvas');
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      const set = new Set();
      for (let i = 0; i < d.length; i += 8) set.add(((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]) * 256 + d[i + 3]);
      return set.size;
    }, `#${id}`);
    assert.ok(colours > 20, `${id}: the shadow canvas has ${colours} colours`);
  }
  assert.match(await page.$eval('#scaled', (el) => el.shadowRoot.querySelector('canvas').getAttribute('aria-label')), /scaled product/);

  // Attribute changes are observed (the example's slider sets q on both).
  await page.getByTestId('ce-q').fill('2');
  await page.waitForFunction(() => !/^2004\.4/.test(document.querySelector('#unscaled').shadowRoot.querySelector('[data-testid="value"]').textContent));
  assert.ok(Number.parseFloat(await value('unscaled')) < 100, 'q = 2: the unscaled product grows like log N, not like N^(1/2)');
  await page.evaluate(() => document.querySelector('#scaled').setAttribute('n', 'inf'));
  await page.waitForFunction(() => document.querySelector('#scaled').shadowRoot.querySelector('.what').textContent.startsWith('log Q_∞'));

  // Attribute text is never markup; the core's message or ours names the problem.
  await page.evaluate(() => document.querySelector('#scaled').setAttribute('a', '<img src=x onerror=alert(1)>'));
  await page.waitForFunction(() => document.querySelector('#scaled').shadowRoot.querySelector('.err').textContent.includes('is not a number'));
  assert.equal(await page.evaluate(() => document.querySelector('#scaled').shadowRoot.querySelectorAll('img').length), 0);
  await page.evaluate(() => document.querySelector('#scaled').setAttribute('a', '1000'));
  await page.waitForFunction(() => /\bA\b|\ba\b/.test(document.querySelector('#scaled').shadowRoot.querySelector('.err').textContent));
  await page.evaluate(() => document.querySelector('#scaled').setAttribute('a', '1'));
  await page.waitForFunction(() => document.querySelector('#scaled').shadowRoot.querySelector('.err').textContent === '');

  // No leaks either way: hostile page CSS does not reach inside; the element's CSS does not reach out.
  // (A constructed sheet: the example's CSP refuses inline <style>, as a careful host page would.)
  await page.evaluate(() => {
    const hostile = new CSSStyleSheet();
    hostile.replaceSync('body, depthprod-plot { color: rgb(255, 0, 0) !important; font-size: 40px !important; } canvas, .num, .box { display: none !important; }');
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, hostile];
    const outside = document.createElement('div');
    outside.className = 'num box';
    outside.id = 'outside';
    outside.textContent = 'page text';
    document.body.append(outside);
  });
  const inner = await page.$eval('#scaled', (el) => {
    const cs = getComputedStyle(el.shadowRoot.querySelector('[data-testid="value"]'));
    const canvas = el.shadowRoot.querySelector('canvas');
    return { color: cs.color, size: cs.fontSize, display: getComputedStyle(canvas).display };
  });
  assert.notEqual(inner.color, 'rgb(255, 0, 0)');
  assert.notEqual(inner.size, '40px');
  assert.equal(inner.display, 'block');
  const outer = await page.$eval('#outside', (el) => getComputedStyle(el).fontFamily);
  assert.doesNotMatch(outer, /monospace/, 'the element\'s .num style does not apply outside it');
});
