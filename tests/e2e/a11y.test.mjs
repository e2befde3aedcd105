// Reaching everyone: an axe-core audit (light and dark, several page states) with no violations,
// the keyboard (tab order, visible focus, arrow / PageUp / PageDown on sliders), screen-reader text
// (settled announcements, hidden data tables of the plots), print, and touch on a 360 px phone.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { browsers, numberIn } from './harness.mjs';

// Each test runs in Chromium and in Firefox ("[chromium] …", "[firefox] …").
const { test, session } = browsers();

const T = { timeout: 180_000 };
const sel = (id) => `[data-testid="${id}"]`;
const AXE = readFileSync(new URL('../../node_modules/axe-core/axe.min.js', import.meta.url), 'utf8');

const open = (t, hash = '', options = {}) => session.open(t, hash, options);

/**
 * Runs axe-core in the page and returns its violations. The page's CSP (script-src 'self') refuses
 * an inline <script> (page.addScriptTag({content}) is blocked, and logs a console error), so the
 * library is evaluated through the DevTools protocol instead; it still comes from node_modules, with
 * no network.
 */
async function axeViolations(page) {
  const loaded = await page.evaluate(() => typeof window.axe === 'object');
  if (!loaded) await page.evaluate(`${AXE}\n;void 0`);
  return page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, help: v.help, nodes: v.nodes.map((n) => `${n.target.join(' ')}: ${n.failureSummary}`) }));
  });
}

function assertNoViolations(violations, where) {
  const text = violations.map((v) => `${v.id} (${v.help}):\n    ${v.nodes.slice(0, 5).join('\n    ')}`).join('\n  ');
  assert.equal(violations.length, 0, `axe found violations ${where}:\n  ${text}`);
}

const STATES = [
  ['default', ''],
  ['LNS, all four products', '#eps=0.5&families=unscaled,scaled,harmonic,sqrt-scaled'],
  ['exponential variance', '#variance=exp&lambda=0.2'],
  ['errors shown', '#variance=list&list=1,2,x&zz=1'],
  ['N = inf', '#n=inf'],
  ['Pre-LN vs LNS, own power law, zoomed linear axis', '#families=unscaled,scaled&scaled.c=1&scaled.eps=0.5&zoom=10,500&linx=1'],
  ['measured list with its plot', '#variance=list&list=1,2,3,4,5,6,7,8&n=8'],
  ['stale numbers', '#eps=2'],
  ['the hard corner', '#a=100&b=100&c=0.001&q=0.05'],
];

for (const scheme of ['light', 'dark']) {
  test(`axe: no violations, ${scheme} theme`, T, async (t) => {
    const page = await open(t, '', { context: { colorScheme: scheme } });
    await numberIn(page, sel('log-product-unscaled'));
    const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    assert.equal(bg === 'rgb(15, 17, 21)', scheme === 'dark', `body background ${bg} in the ${scheme} theme`);
    for (const [name, hash] of STATES) {
      await page.goto(`${session.url}${hash}`);
      await page.waitForFunction(() => window.depthprodStats && window.depthprodStats.updates > 0);
      await page.waitForTimeout(900); // the hidden tables and announcements settle
      assertNoViolations(await axeViolations(page), `(${scheme}, ${name})`);
    }
    // Also with the toolbar's confirmation and a focused control.
    await page.goto(session.url);
    await numberIn(page, sel('log-product-unscaled'));
    await page.click(sel('export-csv'));
    await page.waitForFunction((s) => document.querySelector(s).textContent !== '', sel('share-status'));
    await page.focus(sel('slider-a'));
    assertNoViolations(await axeViolations(page), `(${scheme}, after an export)`);
  });
}

test('keyboard: tab order reaches every control, focus is visible, sliders step by 1 and by 10', T, async (t) => {
  const page = await open(t);
  await numberIn(page, sel('log-product-unscaled'));
  // Enter activates the ∞ button, and again brings N back (both browsers, on a fresh page).
  await page.focus(sel('button-inf'));
  await page.keyboard.press('Enter');
  await page.waitForFunction((s) => document.querySelector(s).getAttribute('aria-pressed') === 'true', sel('button-inf'));
  await page.keyboard.press('Enter');
  await page.waitForFunction((s) => document.querySelector(s).getAttribute('aria-pressed') === 'false', sel('button-inf'));
  // A fresh page again, so the Tab walk starts at the top.
  await page.goto('about:blank');
  await page.goto(session.url);
  await numberIn(page, sel('log-product-unscaled'));
  // Tab through the page from the top, recording what receives focus.
  const seen = [];
  for (let i = 0; i < 80; i++) {
    await page.keyboard.press('Tab');
    const f = await page.evaluate(() => {
      const el = document.activeElement;
      // Past the last control Tab may leave the document for the browser's own UI (Firefox):
      // activeElement then still names the last element, but nothing in the page has focus.
      if (!el || el === document.body || !el.matches(':focus')) return null;
      const cs = getComputedStyle(el);
      return { id: el.dataset.testid || el.id || el.className || el.tagName, outline: cs.outlineStyle, width: parseFloat(cs.outlineWidth) };
    });
    if (!f) continue;
    seen.push(f);
    // A visible focus indicator on everything that takes focus.
    assert.ok(f.outline !== 'none' && f.width >= 2, `focus on ${f.id} shows no outline (${f.outline} ${f.width}px)`);
  }
  const order = seen.map((f) => f.id);
  const must = ['preset-correction', 'family-unscaled', 'slider-a', 'input-a', 'slider-b', 'input-b', 'variance-model', 'slider-c', 'input-c', 'toggle-lns', 'slider-q', 'input-q', 'slider-n', 'input-n', 'button-inf', 'toggle-logy', 'plot-main', 'share-link', 'share-markdown', 'share-latex', 'export-png', 'export-svg', 'export-csv', 'plot-remainder', 'plot-tail'];
  let last = -1;
  for (const id of must) {
    const at = order.indexOf(id);
    assert.ok(at >= 0, `Tab never reaches ${id}; order: ${order.join(', ')}`);
    assert.ok(at > last, `${id} comes out of order; order: ${order.join(', ')}`);
    last = at;
  }
  // The skip link comes first and moves focus to the controls, leaving the URL (the state) alone.
  assert.equal(order[0], 'skip');
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.focus('a.skip');
  await page.keyboard.press('Enter');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'controls');
  assert.equal(await page.evaluate(() => location.hash), '');
  // Two frames later the page has handled the jump: no message about the link.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  assert.equal(await page.textContent(sel('error-fragment')), '');

  // The rest runs on a fresh page, in both browsers. The Tab walk above went past the last control
  // into the browser's own UI; from then on the document has no system focus (document.hasFocus()
  // is false; in headless firefox-esr under WebDriver BiDi neither window.focus(), a click nor
  // activating the tab gives it back). Firefox still delivers the keys to the focused element, and
  // native slider keys still work, but it performs no default activation in an unfocused document:
  // Enter on the ∞ button fired keydown and keypress and no click. A fresh page has focus.
  const keys = await open(t);
  await numberIn(keys, sel('log-product-unscaled'));
  assert.equal(await keys.evaluate(() => document.hasFocus()), true, 'the fresh page has focus');

  // Sliders: arrows move one step, PageUp / PageDown ten.
  await keys.focus(sel('slider-n'));
  const v0 = Number(await keys.inputValue(sel('slider-n')));
  const n0 = await keys.inputValue(sel('input-n'));
  const before = await numberIn(keys, sel('log-product-unscaled'));
  await keys.keyboard.press('ArrowLeft');
  assert.ok(Math.abs(Number(await keys.inputValue(sel('slider-n'))) - (v0 - 0.01)) < 1e-9, 'ArrowLeft moves one step');
  await keys.keyboard.press('ArrowRight');
  await keys.keyboard.press('PageDown');
  const v1 = Number(await keys.inputValue(sel('slider-n')));
  assert.ok(Math.abs(v1 - (v0 - 0.1)) < 1e-9, `PageDown moves ten steps of 0.01: ${v0} → ${v1}`);
  await keys.waitForFunction(([s, n]) => document.querySelector(s).value !== n, [sel('input-n'), n0]);
  assert.equal(await keys.inputValue(sel('input-n')), '794000', 'N follows the slider (10^5.9, 3 digits)');
  await keys.waitForFunction(([s, b]) => Number.parseFloat(document.querySelector(s).textContent) < b, [sel('log-product-unscaled'), before]);
  await keys.waitForFunction(() => location.hash.includes('n=794000'), null, { timeout: 5000 });
  await keys.keyboard.press('PageUp');
  await keys.keyboard.press('PageUp');
  const v2 = Number(await keys.inputValue(sel('slider-n')));
  assert.ok(Math.abs(v2 - (v0 + 0.1)) < 1e-9, `PageUp twice: ${v1} → ${v2}`);
  await keys.waitForFunction((s) => document.querySelector(s).value === '1.26e6', sel('input-n'));
  // At the end of the range PageUp stops at the maximum.
  await keys.focus(sel('slider-a'));
  await keys.keyboard.press('End');
  await keys.keyboard.press('PageUp');
  assert.equal(await keys.inputValue(sel('slider-a')), '1');
  assert.equal(await keys.inputValue(sel('input-a')), '100');
  // The rotation panel's slider takes the same keys.
  await keys.focus(sel('rot-n'));
  await keys.keyboard.press('Home');
  await keys.keyboard.press('PageUp');
  assert.equal(Number(await keys.inputValue(sel('rot-n'))), 0.05, 'rotation N: PageUp = 10 steps of 0.005');
  // Buttons and checkboxes work from the keyboard, after all the keys above.
  await keys.focus(sel('button-inf'));
  await keys.keyboard.press('Enter');
  await keys.waitForFunction((s) => document.querySelector(s).getAttribute('aria-pressed') === 'true', sel('button-inf'));
  await keys.focus(sel('family-harmonic'));
  await keys.keyboard.press('Space');
  // N = ∞ now: the harmonic product diverges, and says so.
  await keys.waitForFunction((s) => document.querySelector(s)?.textContent.startsWith('Infinity'), sel('log-product-harmonic'));
});

test('screen readers: controls are labelled, numbers are announced once settled, plots have data tables', T, async (t) => {
  const page = await open(t);
  const u = await numberIn(page, sel('log-product-unscaled'));
  // Every form control has an accessible name (axe checks it too; this names the culprit directly).
  const unnamed = await page.evaluate(() =>
    [...document.querySelectorAll('input, select, textarea, button, canvas[tabindex]')]
      .filter((el) => !el.closest('[hidden]'))
      .filter((el) => !(el.labels && el.labels.length) && !el.getAttribute('aria-label') && !el.getAttribute('aria-labelledby') && !el.textContent.trim())
      .map((el) => el.dataset.testid || el.id || el.outerHTML.slice(0, 60)),
  );
  assert.deepEqual(unnamed, []);
  // Readout values are not live regions (they change every frame of a drag) …
  assert.equal(await page.locator('#readouts [aria-live]').count(), 0);
  // … the announcer is, and speaks once the inputs settle.
  const live = page.locator(sel('announce'));
  assert.equal(await live.getAttribute('aria-live'), 'polite');
  await page.waitForTimeout(1000);
  assert.equal(await live.textContent(), '', 'nothing announced on load');
  await page.focus(sel('slider-a'));
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(([s, b]) => Number.parseFloat(document.querySelector(s).textContent) !== b, [sel('log-product-unscaled'), u]);
  await page.waitForFunction((s) => document.querySelector(s).textContent !== '', sel('announce'), { timeout: 5000 });
  // Read once the announcement is made (the inputs have settled): three key presses can make more
  // than one update, and the readout seen right after the first change may be an intermediate one.
  const shown = (await page.locator(sel('log-product-unscaled')).textContent()).trim().split(/\s/)[0];
  const said = await live.textContent();
  assert.ok(said.includes(`log P N, unscaled, at N = 10⁶: ${shown}`), `announced: ${said}`);
  assert.ok(!/NaN|undefined/.test(said));

  // The main plot's hidden table: the curves at N = 10, ~10³ and 10⁶ (grid depths), values as the series.
  const table = page.locator(`${sel('table-main')} table`);
  await page.waitForFunction((s) => document.querySelector(s)?.textContent.includes('10⁶'), `${sel('table-main')} table`);
  const rows = await table.evaluate((tb) => [...tb.querySelectorAll('tbody tr')].map((tr) => [...tr.children].map((c) => c.textContent)));
  const heads = await table.evaluate((tb) => [...tb.querySelectorAll('thead th')].map((c) => c.textContent));
  assert.equal(heads[0], 'depth N');
  assert.ok(heads.includes('log P N, unscaled'), heads.join(' | '));
  assert.deepEqual(rows.map((r) => r[0]).filter((n) => n === '10' || n === '10⁶'), ['10', '10⁶']);
  const last = rows[rows.length - 1];
  const col = heads.indexOf('log P N, unscaled');
  const fromTable = Number(last[col]);
  assert.ok(Math.abs(fromTable - Number(shown)) <= 1e-6 * Math.abs(fromTable), `table ${fromTable} vs readout ${shown}`);
  assert.equal(await page.locator(sel('table-main')).evaluate((el) => el.getBoundingClientRect().width <= 1), true, 'visually hidden');
  // The canvas says where its values are.
  assert.match(await page.getAttribute(sel('plot-main'), 'aria-label'), /table that follows/);
  // The other plots have tables (or say what is missing) too.
  await page.waitForFunction(() => document.querySelector('[data-testid="table-remainder"] table') && document.querySelector('[data-testid="table-tail"] table'));
});

/** The colour of the main plot's top-left corner (its background). */
const cornerColour = (page) =>
  page.evaluate(() => {
    const src = document.querySelector('[data-testid="plot-main"]');
    const c = document.createElement('canvas');
    c.width = 1;
    c.height = 1;
    const ctx = c.getContext('2d', { willReadFrequently: true });
    ctx.drawImage(src, 2, 2, 1, 1, 0, 0, 1, 1);
    return [...ctx.getImageData(0, 0, 1, 1).data.slice(0, 3)];
  });

/** Waits (up to 5 s) for the repaint to reach `rgb`; a loaded machine takes longer than a fixed pause. */
async function untilCorner(page, rgb) {
  const started = Date.now();
  while (Date.now() - started < 5000) {
    if ((await cornerColour(page)).join() === rgb.join()) return;
    await page.waitForTimeout(50);
  }
}

// Chromium only: it switches the page to print media while it runs (Playwright's emulateMedia, a
// DevTools-protocol feature); WebDriver BiDi in Firefox ESR has no media-type emulation.
test('print: plots and numbers, no controls, a light palette even from the dark theme', { ...T, browsers: ['chromium'] }, async (t) => {
  const page = await open(t, '', { context: { colorScheme: 'dark' } });
  await numberIn(page, sel('log-product-unscaled'));
  assert.deepEqual(await cornerColour(page), [23, 26, 32], 'dark plot background on screen');
  await page.emulateMedia({ media: 'print' });
  await untilCorner(page, [255, 255, 255]);
  assert.deepEqual(await cornerColour(page), [255, 255, 255], 'the plots repaint light for print');
  const vis = await page.evaluate(() => {
    const shown = (q) => {
      const el = document.querySelector(q);
      if (!el) return null;
      const r = el.getBoundingClientRect();
      return getComputedStyle(el).display !== 'none' && r.width > 0 && r.height > 0;
    };
    return {
      controls: shown('#controls'),
      toolbar: shown('[data-share-bar]'),
      presets: shown('[data-testid="preset-correction"]'),
      plot: shown('[data-testid="plot-main"]'),
      remainder: shown('[data-testid="plot-remainder"]'),
      readout: shown('[data-testid="log-product-unscaled"]'),
      cards: shown('#cards'),
      rotationPlot: shown('[data-testid="plot-rotation"]'),
      rotPlay: shown('[data-testid="rot-play"]'),
      bg: getComputedStyle(document.body).backgroundColor,
    };
  });
  assert.deepEqual(vis, { controls: false, toolbar: false, presets: false, plot: true, remainder: true, readout: true, cards: true, rotationPlot: true, rotPlay: false, bg: 'rgb(255, 255, 255)' });
  await session.screenshot(page, 'print-view');
  await page.emulateMedia({ media: 'screen' });
  await untilCorner(page, [23, 26, 32]);
  assert.deepEqual(await cornerColour(page), [23, 26, 32], 'and dark again after printing');
});

test('touch on a 360 px phone: sliders, the crosshair, the toolbar', T, async (t) => {
  const page = await open(t, '', { viewport: { width: 360, height: 780 }, context: { hasTouch: true, isMobile: true, deviceScaleFactor: 2 } });
  const u0 = await numberIn(page, sel('log-product-unscaled'));
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `horizontal overflow of ${overflow}px`);
  // Tap the A slider near its right end: the value, the text box and the numbers follow.
  const slider = page.locator(sel('slider-a'));
  await slider.scrollIntoViewIfNeeded();
  const sb = await slider.boundingBox();
  assert.ok(sb.height >= 28, `slider is ${sb.height}px tall`);
  await page.touchscreen.tap(sb.x + sb.width * 0.8, sb.y + sb.height / 2);
  await page.waitForFunction((s) => document.querySelector(s).value !== '1', sel('input-a'), { timeout: 5000 });
  const a = Number(await page.inputValue(sel('input-a')));
  assert.ok(a > 40 && a < 90, `A after the tap: ${a}`);
  await page.waitForFunction(([s, b]) => Number.parseFloat(document.querySelector(s).textContent) > b, [sel('log-product-unscaled'), u0]);
  // Tap the plot: the crosshair readout appears and stays.
  const plot = page.locator(sel('plot-main'));
  await plot.scrollIntoViewIfNeeded();
  const pb = await plot.boundingBox();
  await page.touchscreen.tap(pb.x + pb.width * 0.6, pb.y + pb.height * 0.5);
  await page.waitForSelector(`${sel('hover-main')}:not([hidden])`, { timeout: 5000 });
  assert.match(await page.locator(sel('hover-main')).textContent(), /N = /);
  await page.waitForTimeout(300);
  assert.equal(await page.locator(sel('hover-main')).isVisible(), true, 'the readout stays after the finger lifts');
  // The toolbar's buttons are big enough to tap and fit the width.
  for (const id of ['share-link', 'export-png', 'export-csv']) {
    const b = await page.locator(sel(id)).boundingBox();
    assert.ok(b.height >= 40 && b.x >= 0 && b.x + b.width <= 360, `${id}: ${JSON.stringify(b)}`);
  }
  // A tap on a heavily loaded machine can land while the page is still laying out after the
  // crosshair (the tap then hits nothing): tap again, at most three times, before failing.
  for (let attempt = 1; ; attempt++) {
    await page.locator(sel('share-link')).tap();
    try {
      await page.waitForFunction((s) => document.querySelector(s).textContent !== '', sel('share-status'), { timeout: 10_000 });
      break;
    } catch (e) {
      if (attempt === 3) throw e;
    }
  }
});
