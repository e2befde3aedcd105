// No displayed number carries floating-point noise ("B = 0.016384000000000003", "ε = 2 − q =
// 1.950000000000000"): the whole page's text — readouts, headline, cards, notes, legends, the plots'
// hidden data tables, every attribute a reader meets, the fields' values, and the Why panels opened —
// is scanned in every preset and in views with decimals that are not doubles, for the patterns
// noise.mjs defines (more than 17 significant digits; a double's conversion artifact; zeros padding
// a value). The Why panels are scanned in a test of their own: their text is proofs.js's.
import assert from 'node:assert/strict';
import { browsers, numberIn } from './harness.mjs';
import { scanForNoise } from './noise.mjs';

const { test, session } = browsers();
const T = { timeout: 300_000 };
const sel = (id) => `[data-testid="${id}"]`;

const PRESETS = ['correction', 'preln', 'lns', 'comparison', 'exp', 'harmonic'];
/** Views whose parameters make noise when a double is printed in full (q = 0.05 → ε = 1.95, …). */
const VIEWS = [
  '#families=unscaled,scaled&a=100&b=100&c=0.001&q=0.05&n=1e6',
  '#families=unscaled,scaled,harmonic,sqrt-scaled&a=0.3&b=0.016384&c=0.128&eps=0.20681&n=1e6',
  '#families=unscaled,scaled&a=1&b=1&c=1&q=0.4&n=inf',
  '#families=unscaled,scaled&a=0.7&b=0.3&unscaled.c=0.3&unscaled.q=1.1&scaled.c=2&scaled.eps=0.7&n=12345',
  '#families=unscaled,scaled&a=2.5&b=0.4&c=0.6&lambda=0.005&variance=exp&n=2000',
  '#families=unscaled,scaled,harmonic&a=0.1&b=0.2&variance=list&list=0.1,0.2,0.3,0.7,1.1&n=5',
];

/** Waits for the frame of the current inputs, opens every details (the Why panels), scans. */
async function scan(page) {
  await page.waitForFunction(() => /shown|Kept|Could not/.test(document.querySelector('[data-testid="status"]').textContent));
  await page.evaluate(() => {
    for (const d of document.querySelectorAll('details')) d.open = true;
  });
  // an opened Why panel is written when it opens: wait until each has content
  await page.waitForFunction(() => [...document.querySelectorAll('details.why')].every((d) => d.textContent.trim().length > (d.querySelector('summary')?.textContent.length ?? 0)));
  return page.evaluate(`(${scanForNoise})(document.body)`);
}

/** Every view this file scans, as [name, hits]. */
async function scanAll(t) {
  const out = [];
  const page = await session.open(t);
  await numberIn(page, sel('log-product-unscaled'));
  for (const p of PRESETS) {
    const before = await page.evaluate(() => window.depthprodStats.updates);
    await page.click(sel(`preset-${p}`));
    await page.waitForFunction((b) => window.depthprodStats.updates > b, before);
    out.push([`preset ${p}`, await scan(page)]);
  }
  for (const v of VIEWS) {
    const view = await session.open(t, v);
    out.push([v, await scan(view)]);
  }
  return out;
}

const report = (hits) => hits.map(([name, h]) => `${name}:\n    ${h.map((x) => `${x.token} (${x.why}) in ${x.where}: …${x.context}…`).join('\n    ')}`).join('\n  ');

test('the noise patterns are caught, and the page’s own text (Why panels aside) has none in any preset or view', T, async (t) => {
  // The scanner itself, on the issue's examples and on what must pass.
  const page = await session.open(t);
  await numberIn(page, sel('log-product-unscaled'));
  const probe = await page.evaluate((fn) => {
    const div = document.createElement('div');
    div.innerHTML = '<p>B = 0.016384000000000003</p><p>eps = 2 - q = 1.950000000000000</p><p>eps = 0.2068100000000000</p><p>0.30000000000000004</p><p>1.9499999999999998</p><p>1.23456789012345678</p>'
      + '<p>2.5 ∈ [2.4999999999999982, 2.5000000000000018]</p><p>2.4979999999995</p><p>2004.4440725825218</p><p>0.002000000001</p><p>1e-3</p><p>10⁶</p>';
    return new Function(`return (${fn})`)()(div).map((h) => h.token);
  }, String(scanForNoise));
  assert.deepEqual(probe, ['0.016384000000000003', '1.950000000000000', '0.2068100000000000', '0.30000000000000004', '1.9499999999999998', '1.23456789012345678']);
  const all = await scanAll(t);
  const outside = all.map(([n, h]) => [n, h.filter((x) => !x.where.startsWith('why:'))]).filter(([, h]) => h.length);
  assert.equal(outside.length, 0, `noise on the page:\n  ${report(outside)}`);
});

test('the Why panels’ text has no noise in any preset or view', T, async (t) => {
  const all = await scanAll(t);
  const inWhy = all.map(([n, h]) => [n, h.filter((x) => x.where.startsWith('why:'))]).filter(([, h]) => h.length);
  assert.equal(inWhy.length, 0, `noise in the Why panels:\n  ${report(inWhy)}`);
});
