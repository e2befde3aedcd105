#!/usr/bin/env node
// `npm run bench`: the page's speed in headless Debian chromium on this machine. A report, not a
// test (timings on a shared 2-core machine are noisy). Measures
//   - the wasm module's size, raw and gzipped;
//   - first meaningful paint: navigation start to the first certified number in the DOM
//     (median of 7 cold loads from the local server);
//   - slider input -> finished redraw of every curve (1000 points each), readout and card, for
//     each slider: the time from dispatching the input event to the end of the animation frame
//     that handled it (median and 95th percentile of 120 moves per slider).
// Needs the wasm build (`npm run build`; this script runs it when www/pkg is missing).

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { startServer } from './serve.mjs';

const REPO = resolve(fileURLToPath(new URL('..', import.meta.url)));
const PKG = join(REPO, 'www', 'pkg');
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--no-first-run', '--disable-sync', '--disable-quic'];

if (!existsSync(join(PKG, 'depthprod_wasm_bg.wasm'))) {
  const r = spawnSync('node', [join(REPO, 'scripts', 'build-wasm.mjs')], { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};
const ms = (x) => `${x.toFixed(2)} ms`;

const wasmBytes = readFileSync(join(PKG, 'depthprod_wasm_bg.wasm'));
const glueBytes = readFileSync(join(PKG, 'depthprod_wasm.js'));
console.log('depthprod page benchmark (headless chromium, this machine)\n');
console.log(`wasm module      ${kib(wasmBytes.length)} raw, ${kib(gzipSync(wasmBytes, { level: 9 }).length)} gzipped (goal < 100 KB gzipped)`);
console.log(`JS glue          ${kib(glueBytes.length)} raw, ${kib(gzipSync(glueBytes, { level: 9 }).length)} gzipped`);

const server = await startServer({ port: 0 });
const profile = mkdtempSync(join(tmpdir(), 'depthprod-bench-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: CHROMIUM, args: ARGS, headless: true, viewport: { width: 1280, height: 900 },
});
try {
  // First meaningful paint: a MutationObserver notes when the first certified number appears.
  await context.addInitScript(() => {
    const seen = () => {
      const el = document.querySelector('[data-testid="log-product-unscaled"]');
      if (el && /^\d/.test(el.textContent.trim()) && !window.__firstNumber) window.__firstNumber = performance.now();
    };
    new MutationObserver(seen).observe(document, { subtree: true, childList: true, characterData: true });
  });
  const paints = [];
  for (let i = 0; i < 7; i++) {
    const page = await context.newPage();
    await page.route('**/*', (route) => route.request().url().startsWith(server.url) ? route.continue() : route.abort());
    await page.goto(`${server.url}?cold=${i}`, { waitUntil: 'load' });
    await page.waitForFunction(() => window.__firstNumber !== undefined, null, { timeout: 30_000 });
    paints.push(await page.evaluate(() => window.__firstNumber));
    await page.close();
  }
  console.log(`first number     median ${ms(quantile(paints, 0.5))}, worst ${ms(Math.max(...paints))} over ${paints.length} loads (goal < 500 ms)`);

  const page = await context.newPage();
  await page.goto(server.url, { waitUntil: 'load' });
  await page.waitForFunction(() => window.depthprodStats && window.depthprodStats.updates > 0, null, { timeout: 30_000 });
  console.log('\nslider input -> every curve (1000 points), readout and card redrawn:');
  const sliders = ['slider-a', 'slider-b', 'slider-q', 'slider-c', 'slider-n'];
  const all = [];
  for (const id of sliders) {
    const times = await page.evaluate(async (testid) => {
      const el = document.querySelector(`[data-testid="${testid}"]`);
      const lo = Number(el.min), hi = Number(el.max);
      const frame = () => new Promise((r) => requestAnimationFrame(() => r(performance.now())));
      const out = [];
      for (let i = 0; i < 120; i++) {
        // sweep up and down across the slider's range, a new value every move
        const t = (i % 60) / 59;
        const x = i < 60 ? t : 1 - t;
        el.value = String(lo + (hi - lo) * (0.05 + 0.9 * x));
        const t0 = performance.now();
        el.dispatchEvent(new Event('input', { bubbles: true }));
        // the page's own animation-frame callback was queued first, so this one ends after it
        const t1 = await frame();
        out.push([t1 - t0, window.depthprodStats.last]);
        await new Promise((r) => setTimeout(r, 0));
      }
      return out;
    }, id);
    const latency = times.map((t) => t[0]);
    const work = times.map((t) => t[1]);
    all.push(...times);
    console.log(`  ${id.padEnd(10)} work median ${ms(quantile(work, 0.5))}, p95 ${ms(quantile(work, 0.95))};  ` +
      `input-to-frame-end median ${ms(quantile(latency, 0.5))}, p95 ${ms(quantile(latency, 0.95))}`);
  }
  const phase = await page.evaluate(() => window.depthprodStats.phase);
  const allWork = all.map((t) => t[1]);
  const allLatency = all.map((t) => t[0]);
  console.log(`  all sliders  work median ${ms(quantile(allWork, 0.5))}, p95 ${ms(quantile(allWork, 0.95))};  ` +
    `input-to-frame-end median ${ms(quantile(allLatency, 0.5))}, p95 ${ms(quantile(allLatency, 0.95))}`);
  console.log('  (goals: median < 8 ms, p95 < 16 ms. "work" is the update itself: validation, core calls,');
  console.log('  drawing every canvas, readouts and cards. "input-to-frame-end" adds the wait for the animation');
  console.log('  frame the input is coalesced into, which vsync sets, up to 16.7 ms at 60 Hz.)');
  if (phase) console.log(`  last update's phases: ${Object.entries(phase).map(([k, v]) => `${k} ${ms(v)}`).join(', ')}`);
} finally {
  await context.close();
  await server.close();
  rmSync(profile, { recursive: true, force: true });
}
