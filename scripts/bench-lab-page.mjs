#!/usr/bin/env node
// The lab page in headless Debian chromium (a report, never a test): the default preset (d = 128,
// 4 heads, d_ff = 344, T = 32, L = 32, Pre-LN and LNS side by side, every measurement) from
// navigation to both tables complete, the time to the first whole-network end-to-end norm (the
// page's headline), and the page's main-thread frames during the run (every requestAnimationFrame
// interval, and Chromium's long tasks, > 50 ms). Goals: both tables < 5 s on a quiet machine, the
// first headline < 3 s, frames under 16 ms throughout.
//
//   node scripts/bench-lab-page.mjs [--small] [--norms=pre] [--cores=N] [--against=DIR] [--runs=N]
//
// --small: the e2e tests' small network; --norms: the placements (default pre,lns); --cores: the
// navigator.hardwareConcurrency the page sees (default the machine's). With at least twice as
// many workers as placements the page splits each placement in two shares (lab/client.js): on a
// 2-core machine --norms=pre against --norms=pre --cores=1 shows what that gains.
// --against=DIR: another checkout's www/ (e.g. the previous build in a git worktree, its www/pkg
// built), loaded alternately with this one, N times each (default 3). Besides the time to both
// tables, each run reports when the first placement's whole-network end-to-end norm (layer 1's,
// the page's headline) reached the page: the first `partial` message carrying it, seen by a
// listener the benchmark adds to every worker.
//
// Needs www/pkg (`node scripts/build-wasm.mjs`; run here when missing).

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startServer } from './serve.mjs';

const REPO = resolve(fileURLToPath(new URL('..', import.meta.url)));
if (!existsSync(join(REPO, 'www', 'pkg', 'depthlab_wasm_bg.wasm'))) {
  const r = spawnSync('node', [join(REPO, 'scripts', 'build-wasm.mjs')], { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
const small = process.argv.includes('--small');
const norms = (process.argv.find((a) => a.startsWith('--norms='))?.slice(8) || 'pre,lns').split(',');
const hash = small
  ? `#norms=${norms}&d=16&heads=2&dff=40&tokens=4&layers=3&std=0.02&seed=1&run=1`
  : `#norms=${norms}&d=128&heads=4&dff=344&tokens=32&layers=32&std=0.02&seed=1&run=1`;
const cores = Number(process.argv.find((a) => a.startsWith('--cores='))?.slice(8)) || null;
const against = process.argv.find((a) => a.startsWith('--against='))?.slice(10);
const runs = Number(process.argv.find((a) => a.startsWith('--runs='))?.slice(7)) || 3;
const NAMES = { pre: 'Pre-LN', lns: 'LNS', post: 'Post-LN', deepnorm: 'DeepNorm', sandwich: 'Sandwich', mix: 'Mix-LN' };

// Records every animation frame's time and the long tasks from the page's first script on, and
// the time the first whole-network end-to-end norm (layer 1) arrives from a worker.
function recordFrames() {
  window.__headline = null;
  const Native = window.Worker;
  window.Worker = class extends Native {
    constructor(...a) {
      super(...a);
      this.addEventListener('message', (e) => {
        const m = e.data;
        if (window.__headline === null && m?.type === 'partial' && m.layer?.layer === 1 && m.layer.end_to_end_norm !== undefined) {
          window.__headline = performance.now();
        }
      });
    }
  };
  window.__frames = [];
  const tick = (t) => {
    window.__frames.push(t);
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
  window.__long = [];
  try {
    new PerformanceObserver((list) => window.__long.push(...list.getEntries().map((e) => e.duration))).observe({ type: 'longtask', buffered: true });
  } catch {
    // no long-task timing in this browser
  }
}

const roots = [['this build', null], ...(against ? [['previous', join(resolve(against), 'www')]] : [])];
const servers = await Promise.all(roots.map(([, root]) => startServer(root ? { port: 0, root } : { port: 0 })));
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  headless: true,
});
const ms = (x) => `${x.toFixed(1)} ms`;
const which = norms.map((n) => NAMES[n] ?? n).join(' and ');
const results = roots.map(() => []);
try {
  for (let i = 0; i < (against ? runs : 1); i++) {
    for (const [b, [name]] of roots.entries()) {
      const r = await measure(servers[b].url);
      results[b].push(r);
      console.log(`bench-lab-page: ${small ? 'small network' : 'default preset'}, ${which}, ${name}${against ? `, run ${i + 1}` : ''}: ${r.state} (${r.status}${r.error ? `; ${r.error}` : ''})`);
      console.log(`  ${r.workers} worker${r.workers === '1' ? '' : 's'}${cores ? ` (the page told of ${cores} cores)` : ''}, each placement in ${r.shares} share${r.shares === '1' ? '' : 's'}`);
      console.log(`  navigation to ${norms.length === 1 ? 'the table' : 'every table'} complete: ${(r.total / 1000).toFixed(1)} s; the first whole-network end-to-end norm after ${r.headline === null ? '-' : `${(r.headline / 1000).toFixed(1)} s`}`);
      console.log(`  main-thread frames: ${r.frames}, interval median ${ms(r.median)}, p95 ${ms(r.p95)}, worst ${ms(r.worst)}; ${r.over16} intervals over 25 ms`);
      console.log(`  long tasks (> 50 ms): ${r.long}, ${ms(r.longSum)} in all`);
    }
  }
  if (against) {
    const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    for (const [b, [name]] of roots.entries()) {
      const total = median(results[b].map((r) => r.total)) / 1000;
      const head = median(results[b].map((r) => r.headline ?? NaN)) / 1000;
      console.log(`bench-lab-page: ${which}, ${name}: median ${total.toFixed(1)} s to every table (${results[b].map((r) => (r.total / 1000).toFixed(1)).join(', ')}), first headline ${head.toFixed(1)} s`);
    }
  }
} finally {
  await browser.close();
  await Promise.all(servers.map((s) => s.close()));
}

/** One page load of the lab at `url` until both tables are complete. */
async function measure(url) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addInitScript(recordFrames);
  if (cores) await context.addInitScript((n) => Object.defineProperty(Navigator.prototype, 'hardwareConcurrency', { get: () => n, configurable: true }), cores);
  const page = await context.newPage();
  await page.goto(`${url}lab.html${hash}`);
  await page.waitForFunction(() => ['done', 'error'].includes(document.body.dataset.labState) && !document.body.dataset.labDrawing, null, { timeout: 900_000, polling: 500 });
  const r = await page.evaluate(() => {
    const nav = performance.getEntriesByType('navigation')[0];
    const f = window.__frames;
    const gaps = f.slice(1).map((t, i) => t - f[i]).sort((a, b) => a - b);
    const q = (p) => gaps[Math.min(gaps.length - 1, Math.floor(p * gaps.length))];
    return {
      state: document.body.dataset.labState,
      status: document.querySelector('[data-testid="lab-status"]').textContent,
      error: document.querySelector('[data-testid="lab-error"]').textContent,
      total: performance.now() - nav.startTime,
      headline: window.__headline === null ? null : window.__headline - nav.startTime,
      frames: gaps.length,
      median: q(0.5),
      p95: q(0.95),
      worst: gaps[gaps.length - 1],
      over16: gaps.filter((g) => g > 16.7 * 1.5).length,
      long: window.__long.length,
      longSum: window.__long.reduce((a, b) => a + b, 0),
      workers: document.body.dataset.labWorkers,
      shares: document.body.dataset.labShares,
    };
  });
  await context.close();
  return r;
}
