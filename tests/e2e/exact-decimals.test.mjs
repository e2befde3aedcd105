// The explorer's certified numbers are for the exact decimal typed, not for its double: the page
// hands the core the text (state.js `dec`), and the core reads it as the rational it denotes.
// Checked where the two are far apart: the sqrt-scaled product with q = 1.0000000000000002 typed
// converges to about 10^16 (p - 1 = 1e-16 exactly), while the double q = 1.0000000000000002
// (1 + 2^-52) gives 2^53 + 0.887, about 9.007e15: two enclosures that cannot overlap. The page's
// readout must be the decimal's, equal to the core's own answer for the text, and the URL keeps
// the text. Both browsers.
import assert from 'node:assert/strict';
import { browsers, numberIn } from './harness.mjs';

const { test, session } = browsers();
const T = { timeout: 120_000 };
const sel = (id) => `[data-testid="${id}"]`;

/** The core's log-product enclosure for a request, computed in the page by the same module. */
const core = (page, request) =>
  page.evaluate(async (req) => {
    const w = await import('./pkg/depthprod_wasm.js');
    return w.evaluate(req).log_product;
  }, request);

test('the page shows the exact decimal typed, not its double', T, async (t) => {
  const q = '1.0000000000000002';
  const page = await session.open(t, `#families=sqrt-scaled&a=1&b=1&c=1&q=${q}&n=inf`);
  assert.equal(page.response.status(), 200);
  const shown = await numberIn(page, sel('limit-sqrt-scaled'));
  const params = { family: 'sqrt-scaled', a: '1', b: '1', variance: { kind: 'power', c: '1', q } };
  const decimal = await core(page, { ...params, n: 'inf' });
  const double = await core(page, { ...params, variance: { kind: 'power', c: 1, q: Number(q) }, n: 'inf' });
  // the two enclosures are disjoint, and far apart
  assert.ok(double.hi < decimal.lo && decimal.lo - double.hi > 9e14, `${JSON.stringify(decimal)} vs ${JSON.stringify(double)}`);
  // the readout (its certified digits) lies in the decimal's enclosure to the digits it shows,
  // and nowhere near the double's
  assert.ok(Math.abs(shown - decimal.value) <= 1e-6 * decimal.value, `shown ${shown}, decimal ${JSON.stringify(decimal)}`);
  assert.ok(Math.abs(shown - double.value) > 0.05 * double.value, `shown ${shown}, double ${JSON.stringify(double)}`);
  // the link keeps the text as typed
  assert.ok(decodeURIComponent(await page.evaluate(() => location.hash)).includes(`q=${q}`));
});
