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
const started = performance.now();
lab.runLab(spec, undefined, undefined, (s) => { if (s !== stage) enter(s); }, undefined);
enter(null);
const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`;
console.log(`bench-lab: ${norm}, ${small ? 'small case' : 'default preset'}: ${seconds(performance.now() - started)}`);
for (const [name, ms] of stages) console.log(`bench-lab:   ${name} (until the next stage began): ${seconds(ms)}`);
