#!/usr/bin/env node
// `npm run bench` (second part): issue 8's per-value figures for the explorer's wasm module, in
// node (V8, the engine of chromium, without the page around it). Each row is the time of one
// value *with* its preparation (`new Plan(params)`, `evaluate(n)`, `free()`), as the native
// `cargo bench -p depthprod --bench speed` rows measure it: median and p90 over the repetitions,
// after a warm-up. The parameters vary by one ulp-sized step per repetition so that nothing is
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

/** One value with its preparation. */
const value = (params, n) => (i) => {
  const plan = new w.Plan(params(i));
  const e = plan.evaluate(n);
  plan.free();
  if (!e) throw new Error('no evaluation');
};

const list = Float64Array.from({ length: 1_000_000 }, (_, i) => 1 + ((i * 7919) % 1000) / 10);
const listPlan = new w.Plan({ family: 'unscaled', a: 1, b: 1, variance: { kind: 'measured', values: list } });
const listGrid = w.depthGrid(1_000_000, 1000);

const rows = [
  ['exponential variance, lambda = 1e-3, N = 10^6', value(exp(1e-3), 1e6), '< 60 µs'],
  ['exponential variance, lambda = 1e-3, N = inf', value(exp(1e-3), 'inf'), '< 60 µs'],
  ['exponential variance, lambda = 1e-2, N = 10^6', value(exp(1e-2), 1e6), '< 60 µs'],
  ['exponential variance, lambda = 1, N = 10^6', value(exp(1), 1e6), '< 60 µs'],
  ['exponential variance, lambda = 10, N = 10^6', value(exp(10), 1e6), '< 60 µs'],
  ['power law, A = B = c = q = 1, N = 10^6', value((i) => ({ family: 'unscaled', a: 1 + i * 1e-9, b: 1, variance: { kind: 'power', c: 1, q: 1 } }), 1e6), '< 60 µs'],
  ['corner A = B = 100, c = 1e-3, q = 0.05: C (finite-part route)', value((i) => ({ family: 'unscaled', a: 100 - i * 1e-9, b: 100, variance: { kind: 'power', c: 0.001, q: 0.05 } }), 'inf'), '< 60 µs'],
  ['10^6-entry list, prepared: one value at N = 777,777', () => listPlan.evaluate(777_777), '< 60 µs'],
  ['10^6-entry list, prepared: a 1000-point curve', () => listPlan.curveChecked('log-product', listGrid), '< 2 ms'],
];

console.log(`depthprod per-value benchmark, explorer's wasm module in node ${process.version} (${REPS} repetitions; a report, not a test)\n`);
console.log('| value (with its preparation unless "prepared") | median / p90 | goal |\n|---|---|---|');
for (const [what, f, goal] of rows) {
  const [med, p90] = time(f);
  const fmt = (us) => (us >= 1000 ? `${(us / 1000).toFixed(2)} ms` : `${us.toFixed(1)} µs`);
  console.log(`| ${what} | ${fmt(med)} / ${fmt(p90)} | ${goal} |`);
}
listPlan.free();
