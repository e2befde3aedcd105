// The lab's wasm module (www/pkg/depthlab_wasm*, what the lab page's worker runs) against the
// native CLI, bit for bit.
// Every number of a run is compared with Object.is after the CLI's JSON round trip (serde_json
// prints the shortest decimal that reads back as the same double): the per-layer measurements,
// their Lanczos residuals and iteration counts, the per-matrix gradients, the loss, the angular
// distances, the fits and the certified bounds. Runs in node, no browser: the page's worker calls
// the same export with the same spec.
//
// Why they can agree exactly: the lab's products are one summation order on every target (no FMA,
// crates/depthlab/src/linalg.rs), its transcendental functions come from the `libm` crate on
// both builds, and the rest is IEEE arithmetic in a fixed order.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { cli } from './lab-cli.mjs';

const pkg = new URL('../../www/pkg/', import.meta.url);
const lab = await import(new URL('depthlab_wasm.js', pkg));
lab.initSync({ module: readFileSync(new URL('depthlab_wasm_bg.wasm', pkg)) });
const CHECKPOINT = new URL('../reference/lab/weights.safetensors', import.meta.url);
const CHECKPOINT_CONFIG = new URL('../reference/lab/config.json', import.meta.url);

/**
 * Asserts that two values are the same, numbers by Object.is (so 0 and -0 differ, and NaN equals
 * NaN), walking arrays and objects; returns how many numbers it compared.
 */
function sameBits(got, want, path) {
  if (typeof want === 'number') {
    assert.equal(typeof got, 'number', `${path}: wasm ${JSON.stringify(got)}, CLI ${want}`);
    assert.ok(Object.is(got, want), `${path}: wasm ${got}, CLI ${want} (differ by ${got - want})`);
    return 1;
  }
  if (Array.isArray(want)) {
    assert.ok(Array.isArray(got) && got.length === want.length, `${path}: wasm ${JSON.stringify(got)?.slice(0, 80)}, CLI length ${want.length}`);
    return want.reduce((n, w, i) => n + sameBits(got[i], w, `${path}[${i}]`), 0);
  }
  if (want !== null && typeof want === 'object') {
    assert.ok(got !== null && typeof got === 'object', `${path}: wasm ${got}`);
    assert.deepEqual(Object.keys(got).sort(), Object.keys(want).sort(), `${path}: keys`);
    return Object.keys(want).reduce((n, k) => n + sameBits(got[k], want[k], `${path}.${k}`), 0);
  }
  assert.equal(got, want, path);
  return 0;
}

/** The wasm report in the CLI JSON's shape (the names differ where the CLI contract fixes them). */
function asCliJson(r) {
  const fit = (f, rate) => f && { c: f.c, [rate]: f.rate, c_ci95: f.c_ci, [`${rate}_ci95`]: f.rate_ci, r2: f.r2 };
  const { a, b, b_factored, ...bound } = r.bound;
  return {
    layers: r.layers.map((l) => ({ ...l, grad_norms: l.grad_norms && Object.fromEntries(l.grad_norms) })),
    loss: r.loss,
    final_variance: r.final_variance,
    angular_distance: r.angular_distance,
    token_ids: r.token_ids,
    digest: r.digest,
    fit: { power: fit(r.fit_power, 'q'), exponential: fit(r.fit_exponential, 'lambda') },
    bound: { A: a, B: b, B_factored_reading: b_factored, ...bound },
  };
}

/**
 * The module's report for `spec`: one whole run, or (`shares` > 1) the run split as the lab page
 * splits a placement over workers, each share run on its own and the reports joined by
 * `mergeLabShares` (given in reverse order: the order must not matter).
 */
function runIn(spec, weights, config, shares) {
  if (shares === 1) return lab.runLab(spec, weights, config);
  const parts = [];
  for (let i = shares - 1; i >= 0; i--) parts.push(lab.runLab({ ...spec, shareIndex: i, shareCount: shares }, weights, config));
  for (const [k, part] of parts.entries()) assert.deepEqual(part.share, { index: shares - 1 - k, count: shares });
  const merged = lab.mergeLabShares(parts);
  assert.deepEqual(merged.share, { index: 0, count: 1 });
  return merged;
}

function compare(t, label, spec, args, weights, config, shares = 1) {
  const json = cli(args);
  const report = asCliJson(runIn(spec, weights, config, shares));
  const keys = ['layers', 'loss', 'final_variance', 'angular_distance', 'token_ids', 'digest', 'fit', 'bound'];
  const count = keys.reduce((n, k) => n + sameBits(report[k], json[k], `${label}: ${k}`), 0);
  // Every layer's six contract columns at least, so an empty report cannot pass.
  assert.ok(count >= 6 * json.layers.length + 10, `${label}: only ${count} numbers compared`);
  t.diagnostic(`${label}: ${count} numbers, all the same bits`);
}

const SMALL = { d: 16, heads: 2, dff: 40, tokens: 4, layers: 3, std: 0.02, seed: 7 };
const smallArgs = ['--d', '16', '--heads', '2', '--d-ff', '40', '--tokens', '4', '--layers', '3', '--init-std', '0.02', '--seed', '7'];

test('every norm placement: the wasm module and the native CLI give the same bits for a seed', { timeout: 600_000 }, (t) => {
  for (const norm of ['pre', 'lns', 'post', 'deepnorm', 'sandwich', 'mix']) {
    compare(t, norm, { ...SMALL, norm }, ['--norm', norm, ...smallArgs]);
  }
});

test('products past every block size, Gaussian inputs, LayerNorm and GELU: the same bits', { timeout: 600_000 }, (t) => {
  // d_ff = 300 > the products' packed depth (256), 64 rows and more once tangents are batched.
  const spec = { norm: 'lns', d: 64, heads: 4, dff: 300, tokens: 8, layers: 2, std: 0.05, seed: 11, input: 'gaussian', normKind: 'layer', mlp: 'gelu' };
  const args = ['--norm', 'lns', '--d', '64', '--heads', '4', '--d-ff', '300', '--tokens', '8', '--layers', '2', '--init-std', '0.05', '--seed', '11', '--input', 'gaussian', '--norm-kind', 'layer', '--mlp', 'gelu'];
  compare(t, 'wide, gaussian, layer norm, gelu', spec, args);
});

test('a loaded .safetensors checkpoint: the same bits', { timeout: 600_000 }, (t) => {
  const weights = new Uint8Array(readFileSync(CHECKPOINT));
  const config = readFileSync(CHECKPOINT_CONFIG, 'utf8');
  compare(t, 'checkpoint, pre', { norm: 'pre', tokens: 5, seed: 3 }, ['--norm', 'pre', '--weights', fileURLToPath(CHECKPOINT), '--tokens', '5', '--seed', '3'], weights, config);
});

test('a run split into shares (as the page splits a placement over two workers) and merged: the same bits', { timeout: 600_000 }, (t) => {
  for (const norm of ['pre', 'lns', 'mix']) {
    for (const shares of [2, 3]) compare(t, `${norm} in ${shares} shares`, { ...SMALL, norm }, ['--norm', norm, ...smallArgs], undefined, undefined, shares);
  }
  const weights = new Uint8Array(readFileSync(CHECKPOINT));
  const config = readFileSync(CHECKPOINT_CONFIG, 'utf8');
  compare(t, 'checkpoint, lns in 2 shares', { norm: 'lns', tokens: 5, seed: 3 }, ['--norm', 'lns', '--weights', fileURLToPath(CHECKPOINT), '--tokens', '5', '--seed', '3'], weights, config, 2);
  // Shares of different runs, or a share missing, are refused with a message.
  const a = lab.runLab({ ...SMALL, norm: 'pre', shareIndex: 0, shareCount: 2 });
  const b = lab.runLab({ ...SMALL, norm: 'pre', seed: 8, shareIndex: 1, shareCount: 2 });
  assert.throws(() => lab.mergeLabShares([a, b]), /different runs/);
  assert.throws(() => lab.mergeLabShares([a]), /one report for each share/);
  assert.throws(() => lab.runLab({ ...SMALL, norm: 'pre', shareIndex: 2, shareCount: 2 }), /share.*2 of 2/);
});
