#!/usr/bin/env node
// The network lab's speed, a report and never a test (timings on a shared 2-core machine are
// noisy). Default: the wasm module in node (V8, one thread, no page or worker around it), one run
// of the lab page's "130M-like, scaled down" preset (the CLI's default case: d = 128, 4 heads,
// d_ff = 344, T = 32, L = 32, every measurement), with the time of each stage as the module
// reports its progress, the time to the whole network's end-to-end norm (layer 1's, the page's
// headline) and the layer passes (one layer JVP or VJP of one vector).
//
//   node scripts/bench-lab.mjs [pre|lns|post|deepnorm|sandwich|mix] [--small]
//   node scripts/bench-lab.mjs [norm] --against=DIR [--runs=N]
//   node scripts/bench-lab.mjs [norm] --native --against=DIR [--runs=N] [--gpt2]
//
// `--small` runs the e2e test's small case instead (d = 16, 2 heads, d_ff = 40, T = 4, L = 3).
// `--against=DIR`: another checkout of the repository (e.g. the previous build in a git worktree,
// with its own www/pkg built): the two modules run alternately, N times each (default 3), in one
// process. `--native`: the same with the two release CLIs (`depthprod lab --norm N --json`, DIR's
// target/release/depthprod against this one's; both cores), and `--gpt2` the GPT-2-small-like
// case natively (d = 768, 12 heads, d_ff = 3072, T = 64, L = 12). Needs www/pkg
// (`node scripts/build-wasm.mjs`) or the release CLIs (`cargo build --release -p depthprod-cli`).

import { readFileSync, existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const REPO = resolve(fileURLToPath(new URL('..', import.meta.url)));
const args = process.argv.slice(2);
const norm = args.find((a) => !a.startsWith('--')) ?? 'pre';
const small = args.includes('--small');
const against = args.find((a) => a.startsWith('--against='))?.slice(10);
const runs = Number(args.find((a) => a.startsWith('--runs='))?.slice(7)) || 3;
const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

if (args.includes('--native')) {
  native();
} else {
  await wasm();
}

/** The release CLI of a checkout, timed on the default (or GPT-2-like) case: wall-clock seconds. */
function native() {
  if (!against) {
    console.error('bench-lab: --native needs --against=DIR (the other checkout)');
    process.exit(2);
  }
  const builds = [['this build', REPO], ['previous', resolve(against)]].map(([name, dir]) => {
    const cli = join(dir, 'target', 'release', 'depthprod');
    if (!existsSync(cli)) {
      console.error(`bench-lab: ${cli} is missing; run \`cargo build --release -p depthprod-cli\` in ${dir}`);
      process.exit(2);
    }
    return { name, cli, times: [] };
  });
  const gpt2 = args.includes('--gpt2');
  const caseArgs = gpt2 ? ['--d', '768', '--heads', '12', '--d-ff', '3072', '--tokens', '64', '--layers', '12'] : [];
  for (let i = 0; i < runs; i++) {
    for (const b of builds) {
      const t = performance.now();
      const r = spawnSync(b.cli, ['lab', '--norm', norm, ...caseArgs, '--json'], { env: { ...process.env, NO_PROGRESS: '1' }, maxBuffer: 1 << 28 });
      if (r.status !== 0) throw new Error(`${b.name}: ${r.stderr}`);
      b.times.push(performance.now() - t);
      console.log(`bench-lab: native, ${b.name}, run ${i + 1}: ${seconds(b.times.at(-1))}`);
    }
  }
  const what = gpt2 ? 'GPT-2-small-like case' : 'default case';
  for (const b of builds) console.log(`bench-lab: native CLI, ${norm}, ${what}, ${b.name}: median ${seconds(median(b.times))} (${b.times.map(seconds).join(', ')})`);
}

/** A checkout's wasm module, initialised. */
function load(dir) {
  const pkg = join(dir, 'www', 'pkg');
  if (!existsSync(join(pkg, 'depthlab_wasm_bg.wasm'))) {
    console.error(`bench-lab: ${pkg} is missing; run \`node scripts/build-wasm.mjs\` in ${dir}`);
    process.exit(2);
  }
  return import(pathToFileURL(join(pkg, 'depthlab_wasm.js')).href + `?${dir}`).then((lab) => {
    lab.initSync({ module: readFileSync(join(pkg, 'depthlab_wasm_bg.wasm')) });
    return lab;
  });
}

/** One run of `lab`: total, per-stage and time to layer 1's end-to-end norm, layer passes. */
function runOnce(lab, spec) {
  const stages = new Map();
  let stage = null;
  let since = performance.now();
  const enter = (next) => {
    const now = performance.now();
    if (stage !== null) stages.set(stage, (stages.get(stage) ?? 0) + now - since);
    stage = next;
    since = now;
  };
  const passes = typeof lab.layerPasses === 'function' ? lab.layerPasses() : null;
  const flops = lab.gemmFlops();
  const started = performance.now();
  let headline = null;
  const onLayer = (u) => {
    if (headline === null && u.layer === 1 && u.end_to_end_norm !== undefined) headline = performance.now() - started;
  };
  lab.runLab(spec, undefined, undefined, (s) => { if (s !== stage) enter(s); }, onLayer);
  enter(null);
  return {
    total: performance.now() - started,
    headline,
    stages,
    passes: passes === null ? null : lab.layerPasses() - passes,
    gflop: (lab.gemmFlops() - flops) / 1e9,
  };
}

// This module's f64 GEMM rate (the lab's own product, its SIMD128 clone): the physical limit a
// run is measured against. Best of five timings of enough products for ~0.2 s.
function gemmRate(lab, m, k, n) {
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

async function wasm() {
  const spec = small
    ? { norm, d: 16, heads: 2, dff: 40, tokens: 4, layers: 3, std: 0.02, seed: 1, input: 'tokens' }
    : { norm, d: 128, heads: 4, dff: 344, tokens: 32, layers: 32, std: 0.02, seed: 1, input: 'tokens' };
  const what = small ? 'small case' : 'default preset';
  const lab = await load(REPO);
  if (!against) {
    const rates = [[32, 128, 344], [128, 128, 344], [64, 768, 3072], [512, 512, 512]].map(([m, k, n]) => [`${m}x${k}x${n}`, gemmRate(lab, m, k, n)]);
    for (const [shape, rate] of rates) console.log(`bench-lab: f64 GEMM ${shape} (x W^T), one thread, in this wasm module: ${rate.toFixed(2)} GFLOP/s`);
    const r = runOnce(lab, spec);
    console.log(`bench-lab: ${norm}, ${what}: ${seconds(r.total)}; the whole network's end-to-end norm after ${seconds(r.headline)}; ${r.passes} layer passes`);
    for (const [name, ms] of r.stages) console.log(`bench-lab:   ${name} (until the next stage began): ${seconds(ms)}`);
    // The fraction of the GEMM peak: the run's products at the layer shape's rate, against its
    // time (the rest of a layer pass, attention's token mixing, norms and activations, is not
    // counted as work).
    const layerRate = rates[0][1];
    console.log(`bench-lab: the run's products: ${r.gflop.toFixed(1)} GFLOP, ${seconds((r.gflop / layerRate) * 1000)} at the ${rates[0][0]} rate: ${((100 * r.gflop) / layerRate / (r.total / 1000)).toFixed(0)} % of the run's time at the GEMM peak`);
    return;
  }
  const builds = [
    { name: 'this build', lab, runs: [] },
    { name: 'previous', lab: await load(resolve(against)), runs: [] },
  ];
  for (let i = 0; i < runs; i++) {
    for (const b of builds) {
      const r = runOnce(b.lab, spec);
      b.runs.push(r);
      console.log(`bench-lab: wasm in node, ${b.name}, run ${i + 1}: ${seconds(r.total)} (end-to-end norm of layer 1 after ${r.headline === null ? '-' : seconds(r.headline)})`);
    }
  }
  for (const b of builds) {
    const total = median(b.runs.map((r) => r.total));
    const head = median(b.runs.map((r) => r.headline ?? NaN));
    const passes = b.runs[0].passes;
    console.log(`bench-lab: wasm in node, ${norm}, ${what}, ${b.name}: median ${seconds(total)}, layer 1's end-to-end norm after ${seconds(head)}${passes === null ? '' : `, ${passes} layer passes`}, products ${b.runs[0].gflop.toFixed(1)} GFLOP`);
  }
}
