#!/usr/bin/env node
// The network lab's wasm module in node (V8, one thread, no page or worker around it): one run of
// the lab page's "130M-like, scaled down" preset (the CLI's default case: d = 128, 4 heads,
// d_ff = 344, T = 32, L = 32, every measurement), with the time of each stage as the module
// reports its progress. A report, never a test: timings on a shared 2-core machine are noisy.
//
//   node scripts/bench-lab.mjs [pre|lns|post|deepnorm|sandwich|mix] [--small]
//
// `--small` runs the e2e test's small case instead (d = 16, 2 heads, d_ff = 40, T = 4, L = 3).
// Needs www/pkg (`node scripts/build-wasm.mjs`).

import { readFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const REPO = resolve(fileURLToPath(new URL('..', import.meta.url)));
const PKG = join(REPO, 'www', 'pkg');
if (!existsSync(join(PKG, 'depthlab_wasm_bg.wasm'))) {
  console.error('bench-lab: www/pkg is missing; run `node scripts/build-wasm.mjs` first');
  process.exit(2);
}
const norm = process.argv.slice(2).find((a) => !a.startsWith('--')) ?? 'pre';
const small = process.argv.includes('--small');
const lab = await import(pathToFileURL(join(PKG, 'depthlab_wasm.js')).href);
lab.initSync({ module: readFileSync(join(PKG, 'depthlab_wasm_bg.wasm')) });
const spec = small
  ? { norm, d: 16, heads: 2, dff: 40, tokens: 4, layers: 3, std: 0.02, seed: 1, input: 'tokens' }
  : { norm, d: 128, heads: 4, dff: 344, tokens: 32, layers: 32, std: 0.02, seed: 1, input: 'tokens' };
const stages = new Map();
let stage = null;
let since = performance.now();
const enter = (next) => {
  const now = performance.now();
  if (stage !== null) stages.set(stage, (stages.get(stage) ?? 0) + now - since);
  stage = next;
  since = now;
};
const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`;

// This module's f64 GEMM rate (the lab's own product, its SIMD128 clone): the
// physical limit a run is measured against. Best of five timings of enough products for ~0.2 s.
function gemmRate(m, k, n) {
  const flops = 2 * m * k * n;
  let reps = 1;
  for (;;) {
    const t = performance.now();
    lab.gemmRepeat(m, k, n, reps);
    if (performance.now() - t > 200 || reps > 1 << 20) break;
    reps *= 2;
  }
  let best = Infinity;
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    lab.gemmRepeat(m, k, n, reps);
    best = Math.min(best, performance.now() - t);
  }
  return (flops * reps) / (best / 1000) / 1e9;
}
const rates = [[32, 128, 344], [128, 128, 344], [64, 768, 3072], [512, 512, 512]].map(([m, k, n]) => [`${m}x${k}x${n}`, gemmRate(m, k, n)]);
for (const [shape, rate] of rates) console.log(`bench-lab: f64 GEMM ${shape} (x W^T), one thread, in this wasm module: ${rate.toFixed(2)} GFLOP/s`);

const flopsBefore = lab.gemmFlops();
const started = performance.now();
lab.runLab(spec, undefined, undefined, (s) => { if (s !== stage) enter(s); }, undefined);
enter(null);
const elapsed = performance.now() - started;
console.log(`bench-lab: ${norm}, ${small ? 'small case' : 'default preset'}: ${seconds(elapsed)}`);
for (const [name, ms] of stages) console.log(`bench-lab:   ${name} (until the next stage began): ${seconds(ms)}`);
// The fraction of the GEMM peak: the run's products at the layer shape's rate, against its time
// (the rest of a layer pass, attention's token mixing, norms and activations, is not counted as work).
const gflop = (lab.gemmFlops() - flopsBefore) / 1e9;
const layerRate = rates[0][1];
console.log(`bench-lab: the run's products: ${gflop.toFixed(1)} GFLOP, ${seconds((gflop / layerRate) * 1000)} at the ${rates[0][0]} rate: ${((100 * gflop) / layerRate / (elapsed / 1000)).toFixed(0)} % of the run's time at the GEMM peak`);
