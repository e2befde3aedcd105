#!/usr/bin/env node
// The lab page in headless Debian chromium (issue 13's benchmark; a report, never a test): the
// default preset (d = 128, 4 heads, d_ff = 344, T = 32, L = 32, Pre-LN and LNS side by side, every
// measurement) from navigation to both tables complete, and the page's main-thread frames during the
// run (every requestAnimationFrame interval, and Chromium's long tasks, > 50 ms). Goal: < 4 s,
// frames under 16 ms throughout.
//
//   node scripts/bench-lab-page.mjs [--small] [--norms=pre] [--cores=N]
//
// --small: the e2e tests' small network; --norms: the placements (default pre,lns); --cores: the
// navigator.hardwareConcurrency the page sees (default the machine's). With at least twice as
// many workers as placements the page splits each placement in two shares (lab/client.js): on a
// 2-core machine --norms=pre against --norms=pre --cores=1 shows what that gains.
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
const NAMES = { pre: 'Pre-LN', lns: 'LNS', post: 'Post-LN', deepnorm: 'DeepNorm', sandwich: 'Sandwich', mix: 'Mix-LN' };

// Records every animation frame's time and the long tasks from the page's first script on.
function recordFrames() {
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

const server = await startServer({ port: 0 });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  headless: true,
});
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addInitScript(recordFrames);
  if (cores) await context.addInitScript((n) => Object.defineProperty(Navigator.prototype, 'hardwareConcurrency', { get: () => n, configurable: true }), cores);
  const page = await context.newPage();
  await page.goto(`${server.url}lab.html${hash}`);
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
  const ms = (x) => `${x.toFixed(1)} ms`;
  const which = norms.map((n) => NAMES[n] ?? n).join(' and ');
  console.log(`bench-lab-page: ${small ? 'small network' : 'default preset'}, ${which}: ${r.state} (${r.status}${r.error ? `; ${r.error}` : ''})`);
  console.log(`  ${r.workers} worker${r.workers === '1' ? '' : 's'}${cores ? ` (the page told of ${cores} cores)` : ''}, each placement in ${r.shares} share${r.shares === '1' ? '' : 's'}`);
  console.log(`  navigation to ${norms.length === 1 ? 'the table' : 'every table'} complete: ${(r.total / 1000).toFixed(1)} s   (goal < 4 s for the default preset, Pre-LN and LNS)`);
  console.log(`  main-thread frames: ${r.frames}, interval median ${ms(r.median)}, p95 ${ms(r.p95)}, worst ${ms(r.worst)}; ${r.over16} intervals over 25 ms   (goal: every frame under 16 ms)`);
  console.log(`  long tasks (> 50 ms): ${r.long}, ${ms(r.longSum)} in all`);
} finally {
  await browser.close();
  await server.close();
}
