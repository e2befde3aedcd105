#!/usr/bin/env node
// `npm run bench` (second part): the per-value figures for the explorer's wasm module, in
// node (V8, the engine of chromium, without the page around it). Each row is the time of one
// value *with* its preparation (`new Plan(params)`, `logProduct(n)`, `free()`), as the native
// `cargo bench -p depthprod --bench speed` rows measure it, and beside it the whole view the
// page asks for (`evaluate(n)`: value, limit, tail, leading terms, bound): median and p90 over
// the repetitions, after a warm-up. The parameters vary by one ulp-sized step per repetition so that nothing is
// cached between them. A report, never a test: timings on a shared 2-core machine are noisy.
//
// Options: BENCH_REPS=n repetitions per row (default 200). Needs www/pkg (`npm run build`).

import { readFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = resolve(fileURLToPath(new URL('..', import.meta.url)));
const PKG = join(REPO, 'www', 'pkg');
const REPS = Number(process.env.BENCH_REPS || 200);
if (!existsSync(join(PKG, 'depthprod_wasm_bg.wasm'))) {
  console.error('bench-values: www/pkg is missing; run `npm run build` first');
  process.exit(2);
}
const w = await import(join(PKG, 'depthprod_wasm.js'));
await w.default({ module_or_path: readFileSync(join(PKG, 'depthprod_wasm_bg.wasm')) });

const exp = (lambda) => (i) => ({ family: 'unscaled', a: 1 + i * 1e-9, b: 1, variance: { kind: 'exponential', c: 1, lambda } });

/** Median and p90 in µs of `f(i)` over REPS calls, after REPS / 10 warm-up calls. */
function time(f) {
  for (let i = 0; i < Math.max(5, REPS / 10); i++) f(i);
  const t = [];
  for (let i = 0; i < REPS; i++) {
    const t0 = performance.now();
    f(i);
    t.push((performance.now() - t0) * 1000);
  }
  t.sort((x, y) => x - y);
  return [t[Math.floor(t.length / 2)], t[Math.floor(t.length * 0.9)]];
}

/** One value with its preparation: `new Plan`, `logProduct(n)` (the one enclosure), `free`. */
const value = (params, n) => (i) => {
  const plan = new w.Plan(params(i));
  const v = plan.logProduct(n);
  plan.free();
  if (!(v[2] >= v[1])) throw new Error('no value');
};

/** The whole view at one depth with its preparation: `evaluate(n)` (value, limit, tail, leading
 * terms and constant, zeta bound) as one JS object, as the page asks for it. */
const view = (params, n) => (i) => {
  const plan = new w.Plan(params(i));
  const e = plan.evaluate(n);
  plan.free();
  if (!e) throw new Error('no evaluation');
};

const list = Float64Array.from({ length: 1_000_000 }, (_, i) => 1 + ((i * 7919) % 1000) / 10);
const listPlan = new w.Plan({ family: 'unscaled', a: 1, b: 1, variance: { kind: 'measured', values: list } });
const listGrid = w.depthGrid(1_000_000, 1000);

const seed = (i) => ({ family: 'unscaled', a: 1 + i * 1e-9, b: 1, variance: { kind: 'power', c: 1, q: 1 } });
const seedTyped = () => ({ family: 'unscaled', a: '1', b: '1', variance: { kind: 'power', c: '1', q: '1' } });
const corner = (i) => ({ family: 'unscaled', a: 100 - i * 1e-9, b: 100, variance: { kind: 'power', c: 0.001, q: 0.05 } });
const cornerOf = (family) => (i) => ({ family, a: 100 - i * 1e-9, b: 100, variance: { kind: 'power', c: 0.001, q: 0.05 } });
const cornerTyped = () => ({ family: 'unscaled', a: '100', b: '100', variance: { kind: 'power', c: '0.001', q: '0.05' } });
// The finite part's hardest points (the same four as the native bench), typed as decimals.
const typed = (a, b, c, q) => () => ({ family: 'unscaled', a, b, variance: { kind: 'power', c, q } });
const hardest = [
  ['complex roots near a sign change of C', typed('2.07943300129112', '6.611850894554456', '0.4140923243357501', '0.07')],
  ["C' near a sign change (q near 2/n)", typed('1.069315548294458', '1.3700413964730669', '0.0012994811002209016', '0.5003662657162936')],
  ['a double root (A^2 = 4B)', typed('2', '1', '0.001', '0.05')],
  ['4-digit decimals, complex roots', typed('2.0794', '6.6119', '0.4141', '0.07')],
];

// [what, one value, the whole view (or null), goal]
const rows = [
  ['exponential variance, lambda = 1e-3, N = 10^6', value(exp(1e-3), 1e6), view(exp(1e-3), 1e6), '< 60 µs'],
  ['exponential variance, lambda = 1e-3, N = inf', value(exp(1e-3), 'inf'), view(exp(1e-3), 'inf'), '< 60 µs'],
  ['exponential variance, lambda = 1e-2, N = 10^6', value(exp(1e-2), 1e6), view(exp(1e-2), 1e6), '< 60 µs'],
  ['exponential variance, lambda = 1, N = 10^6', value(exp(1), 1e6), view(exp(1), 1e6), '< 60 µs'],
  ['exponential variance, lambda = 10, N = 10^6', value(exp(10), 1e6), view(exp(10), 1e6), '< 60 µs'],
  ['power law, A = B = c = q = 1, N = 10^6', value(seed, 1e6), view(seed, 1e6), '< 60 µs'],
  ['the same, typed as decimals (the page\'s request)', value(seedTyped, 1e6), view(seedTyped, 1e6), '< 60 µs'],
  ['corner A = B = 100, c = 1e-3, q = 0.05, N = 10^6', value(corner, 1e6), null, '< 60 µs'],
  ['the same at N = 10^18', value(corner, 1e18), null, '< 60 µs'],
  ['the corner in the scaled family, N = 10^6', value(cornerOf('scaled'), 1e6), null, '< 60 µs'],
  ['the corner in the harmonic family, N = 10^6', value(cornerOf('harmonic'), 1e6), null, '< 60 µs'],
  ['the corner in the sqrt-scaled family, N = 10^6', value(cornerOf('sqrt-scaled'), 1e6), null, '< 60 µs'],
  ['the corner\'s constant C (finite-part route): the view at N = inf', view(corner, 'inf'), null, '< 60 µs'],
  ['the same, typed as decimals', view(cornerTyped, 'inf'), null, '< 60 µs'],
  ...hardest.map(([what, params]) => [`the finite part's hardest points (typed): ${what}, the view at N = inf`, view(params, 'inf'), null, '< 60 µs']),
  ['10^6-entry list, prepared: one value at N = 777,777', () => listPlan.logProduct(777_777), () => listPlan.evaluate(777_777), '< 60 µs'],
  ['10^6-entry list, prepared: a 1000-point curve', () => listPlan.curveChecked('log-product', listGrid), null, '< 2 ms'],
];

console.log(`depthprod per-value benchmark, explorer's wasm module in node ${process.version} (${REPS} repetitions; a report, not a test)\n`);
console.log('| value (with its preparation unless "prepared") | one value, median / p90 | the whole view (evaluate), median / p90 | goal |\n|---|---|---|---|');
const fmt = (us) => (us >= 1000 ? `${(us / 1000).toFixed(2)} ms` : `${us.toFixed(1)} µs`);
for (const [what, f, g, goal] of rows) {
  const [med, p90] = time(f);
  const whole = g ? time(g).map(fmt).join(' / ') : '';
  console.log(`| ${what} | ${fmt(med)} / ${fmt(p90)} | ${whole} | ${goal} |`);
}
listPlan.free();
