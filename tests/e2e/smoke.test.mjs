// The page loads, runs the wasm core, and shows the correction's two illustration values
// (docs/MATH.md, section 3: A = B = 1, c = 1, q = 1, N = 10^6).
import assert from 'node:assert/strict';
import { browsers, numberIn } from './harness.mjs';

// Each test runs in Chromium and in Firefox ("[chromium] …", "[firefox] …").
const { test, session } = browsers();

test('default page shows the correction values', { timeout: 90_000 }, async (t) => {
  const page = await session.page(t);
  const response = await page.goto(session.url);
  assert.equal(response.status(), 200);

  const unscaled = await numberIn(page, '[data-testid="log-product-unscaled"]');
  assert.ok(Math.abs(unscaled - 2004.44407) <= 1e-5, `unscaled log P_N = ${unscaled}, expected 2004.44407`);

  const scaled = await numberIn(page, '[data-testid="log-product-scaled"]');
  assert.ok(Math.abs(scaled - 2.7784912) <= 1e-6, `scaled log Q_N = ${scaled}, expected 2.7784912`);
});
