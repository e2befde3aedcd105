#!/usr/bin/env node
// `npm run bench`: the page's speed and size in headless Debian chromium on this machine, every row
// of docs/PERFORMANCE.md's tables in one run. A report, never a test: timings on a shared 2-core machine are
// noisy, so read medians and compare runs made under the same load.
//
//   update work         the page's own update per slider move (validate, core calls, every canvas,
//                       readouts, cards): `depthprodStats.last`, median / p95 over every move
//   input to frame      from the input event to the first animation-frame callback, queued after the
//                       page's own, that sees the new number in the DOM; each input is dispatched at a
//                       random time within a frame (as a real pointer's would be)
//   throttled x4        the same with DevTools CPU throttling x4 (a mid-range phone)
//   first number        navigation start to the first certified number in the DOM; warm = the same
//                       browser profile reloading (HTTP and code caches filled), cold = a fresh
//                       profile per load (empty caches); warm is measured twice: from this repo's
//                       server (`no-cache`: every file revalidated, a 304 each) and from the same
//                       files with `max-age=600`, the policy of GitHub Pages (nothing revalidated
//                       within ten minutes); and warm from dist/site/ (the hosted site, whose
//                       index.html loads the page's modules as four bundles, js/bundle/index-*.js),
//                       both ways
//   sizes               the wasm module, and the offline single file (this script runs the bundle)
//   wasm vs JS loop     at N = 10^6: a whole 1000-point log P_N curve from a freshly prepared core
//                       product against one value by the plain JS loop a blogger writes
//                       (Σ log(1 + A/σ_l + B/σ_l²), σ_l² = l); the loop lives here, never in www/
//
// Options: BENCH_MOVES=n moves per slider (default 80), BENCH_LOADS=n loads per first-number row
// (default 7). Needs the wasm build (`npm run build`; this script runs it when www/pkg is missing).

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { startServer } from './serve.mjs';

const REPO = resolve(fileURLToPath(new URL('..', import.meta.url)));
const PKG = join(REPO, 'www', 'pkg');
const SINGLE = join(REPO, 'dist', 'depthprod.html');
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--no-first-run', '--disable-sync', '--disable-quic'];
const MOVES = Number(process.env.BENCH_MOVES || 80);
const LOADS = Number(process.env.BENCH_LOADS || 7);
const SLIDERS = ['slider-a', 'slider-b', 'slider-q', 'slider-c', 'slider-n'];

function run(script) {
  const r = spawnSync('node', [join(REPO, 'scripts', script)], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
if (!existsSync(join(PKG, 'depthprod_wasm_bg.wasm'))) run('build-wasm.mjs');
run('bundle.mjs'); // the single file of this very build

const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
const gz = (bytes) => gzipSync(bytes, { level: 9 }).length;
const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};
const ms = (x) => `${x.toFixed(1)} ms`;
const medP95 = (xs) => `${ms(quantile(xs, 0.5))} / ${ms(quantile(xs, 0.95))}`;

const wasmBytes = readFileSync(join(PKG, 'depthprod_wasm_bg.wasm'));
const glueBytes = readFileSync(join(PKG, 'depthprod_wasm.js'));
const singleBytes = readFileSync(SINGLE);

// Marks the first certified number (the unscaled readout) as soon as it is in the DOM. The observer
// watches the readout alone, from the end of parsing on (module scripts, which write it, run after
// that): one watching the whole document from its start ran on every node the parser added, a cost
// the measurement itself put on the explorer's large page and not on the small floor pages.
function markFirstNumber() {
  const seen = () => {
    const el = document.querySelector('[data-testid="log-product-unscaled"]');
    if (el && /^\d/.test(el.textContent.trim()) && !window.__firstNumber) window.__firstNumber = performance.now();
  };
  document.addEventListener('readystatechange', () => {
    if (document.readyState !== 'interactive') return;
    const el = document.querySelector('[data-testid="log-product-unscaled"]');
    new MutationObserver(seen).observe(el ?? document, { subtree: true, childList: true, characterData: true });
    seen();
  });
}

async function firstNumber(context, url, { record = true } = {}) {
  const page = await context.newPage();
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForFunction(() => window.__firstNumber !== undefined, null, { timeout: 30_000 });
  const t = await page.evaluate(() => {
    const mark = (name) => performance.getEntriesByName(name)[0]?.startTime ?? NaN;
    const first = window.depthprodStats?.first;
    return { t: window.__firstNumber, modules: mark('depthprod:modules-evaluated'), core: mark('depthprod:core-ready'), update: first?.start ?? NaN, work: first?.work ?? NaN };
  });
  await page.close();
  if (record) breakdown.push(t);
  return t.t;
}
// Where the time to the first number goes, per load (main.js's performance marks).
const breakdown = [];

/** Moves each slider `moves` times; per move: [input-to-frame, update work]. */
async function sweep(page, moves) {
  const out = [];
  for (const id of SLIDERS) {
    out.push(...await page.evaluate(async ({ testid, moves }) => {
      const el = document.querySelector(`[data-testid="${testid}"]`);
      const readouts = document.getElementById('readouts');
      const lo = Number(el.min);
      const hi = Number(el.max);
      const frame = () => new Promise((r) => requestAnimationFrame(r));
      const rows = [];
      const half = moves / 2;
      for (let i = 0; i < moves; i++) {
        // sweep up and down across the slider's range, a new value every move
        const t = (i % half) / (half - 1);
        const x = i < half ? t : 1 - t;
        await frame();
        await new Promise((r) => setTimeout(r, Math.random() * 16.7)); // a random time within a frame
        const before = readouts.textContent;
        const updates = window.depthprodStats.updates;
        el.value = String(lo + (hi - lo) * (0.05 + 0.9 * x));
        const t0 = performance.now();
        el.dispatchEvent(new Event('input', { bubbles: true }));
        let shown = NaN;
        for (let k = 0; k < 60; k++) {
          await frame(); // queued after the page's own callback for this frame
          if (window.depthprodStats.updates > updates && readouts.textContent !== before) {
            shown = performance.now() - t0;
            break;
          }
          if (window.depthprodStats.updates > updates && k > 0) break; // the number did not change
        }
        if (Number.isFinite(shown)) rows.push([shown, window.depthprodStats.last]);
      }
      return rows;
    }, { testid: id, moves }));
  }
  return out;
}

console.log('depthprod page benchmark (headless chromium, this machine; a report, not a test)\n');
const server = await startServer({ port: 0 });
// The floor under "first number": two pages with none of the explorer, measured the same way. One
// module that writes a number (the browser's own navigation, parse, first layout and module load
// on this machine), and one that also loads the core's wasm and writes one evaluated value (plus
// the wasm's fetch, compile and first run). What the explorer adds above them is its own.
const FLOOR = mkdtempSync(join(tmpdir(), 'depthprod-floor-'));
symlinkSync(PKG, join(FLOOR, 'pkg'));
const floorPage = (script) => `<!doctype html><html lang="en"><meta charset="utf-8"><title>floor</title><p>log P<sub>N</sub> = <output data-testid="log-product-unscaled"></output></p><script type="module" src="${script}"></script></html>`;
writeFileSync(join(FLOOR, 'plain.html'), floorPage('plain.js'));
writeFileSync(join(FLOOR, 'plain.js'), "document.querySelector('[data-testid=\"log-product-unscaled\"]').textContent = '1';\n");
writeFileSync(join(FLOOR, 'wasm.html'), floorPage('wasm.js'));
writeFileSync(join(FLOOR, 'wasm.js'), [
  "import init, { evaluate } from './pkg/depthprod_wasm.js';",
  "await init({ module_or_path: new URL('./pkg/depthprod_wasm_bg.wasm', import.meta.url) });",
  "const r = evaluate({ family: 'unscaled', a: 1, b: 1, variance: { kind: 'power', c: 1, q: 1 }, n: 1e6 });",
  "document.querySelector('[data-testid=\"log-product-unscaled\"]').textContent = String(r.log_product.value);",
  '',
].join('\n'));
const floorServer = await startServer({ port: 0, root: FLOOR });
const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
const rows = [];
const row = (metric, value, goal) => {
  rows.push([metric, value, goal]);
  console.log(`  ${metric}: ${value}   (goal ${goal})`);
};
try {
  const options = { viewport: { width: 1280, height: 900 } };
  // ── first number, cold: a fresh profile (empty HTTP and code caches) per load ──
  const cold = [];
  for (let i = 0; i < LOADS; i++) {
    const context = await browser.newContext(options);
    await context.addInitScript(markFirstNumber);
    cold.push(await firstNumber(context, `${server.url}?cold=${i}`));
    await context.close();
  }
  // ── first number, warm: one profile, loaded once before measuring ──
  const warmContext = await browser.newContext(options);
  await warmContext.addInitScript(markFirstNumber);
  await firstNumber(warmContext, server.url);
  const warm = [];
  for (let i = 0; i < LOADS; i++) warm.push(await firstNumber(warmContext, server.url));
  // The same warm loads from a host that gives the files a lifetime (GitHub Pages: max-age=600).
  const hostServer = await startServer({ port: 0, cacheControl: 'max-age=600' });
  await firstNumber(warmContext, hostServer.url, { record: false });
  const warmHost = [];
  for (let i = 0; i < LOADS; i++) warmHost.push(await firstNumber(warmContext, hostServer.url, { record: false }));
  await hostServer.close();
  // The same warm loads of the hosted site, dist/site/, whose index.html loads the page's module
  // graph as four bundles (js/bundle/index-*.js, scripts/bundle.mjs) instead of about 25 modules.
  const siteServer = await startServer({ port: 0, root: join(REPO, 'dist', 'site') });
  await firstNumber(warmContext, siteServer.url, { record: false });
  const warmSite = [];
  for (let i = 0; i < LOADS; i++) warmSite.push(await firstNumber(warmContext, siteServer.url, { record: false }));
  const siteHost = await startServer({ port: 0, root: join(REPO, 'dist', 'site'), cacheControl: 'max-age=600' });
  await firstNumber(warmContext, siteHost.url, { record: false });
  const warmSiteHost = [];
  for (let i = 0; i < LOADS; i++) warmSiteHost.push(await firstNumber(warmContext, siteHost.url, { record: false }));
  await siteServer.close();
  await siteHost.close();
  // The floors, warm, in the same profile (alternating, so both see the same machine load).
  const floor = { plain: [], wasm: [] };
  for (const kind of ['plain', 'wasm']) await firstNumber(warmContext, `${floorServer.url}${kind}.html`, { record: false });
  for (let i = 0; i < LOADS; i++) {
    for (const kind of ['plain', 'wasm']) floor[kind].push(await firstNumber(warmContext, `${floorServer.url}${kind}.html`, { record: false }));
  }
  await warmContext.close();

  // ── slider moves, then the same under x4 CPU throttling ──
  const context = await browser.newContext(options);
  const page = await context.newPage();
  await page.goto(server.url, { waitUntil: 'load' });
  await page.waitForFunction(() => window.depthprodStats && window.depthprodStats.updates > 0, null, { timeout: 30_000 });
  await sweep(page, 10); // warm-up: JIT, caches
  const moves = await sweep(page, MOVES);
  const phases = await page.evaluate(() => ({ phase: window.depthprodStats.phase, draw: window.depthprodStats.drawPhases }));
  const cdp = await context.newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
  const throttled = await sweep(page, Math.max(10, Math.round(MOVES / 2)));
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });

  // ── a whole 1000-point curve in wasm against one value by a plain JS loop, N = 10^6 ──
  const ratio = await page.evaluate(async () => {
    const core = await import('./js/common/core.js');
    const params = { family: 'unscaled', a: 1, b: 1, variance: { kind: 'power', c: 1, q: 1 } };
    const ns = core.depthGrid(1e6, 1000).value;
    const time = (f, reps) => {
      const ts = [];
      for (let r = 0; r < reps; r++) {
        const t0 = performance.now();
        f();
        ts.push(performance.now() - t0);
      }
      ts.sort((x, y) => x - y);
      return ts[Math.floor(ts.length / 2)];
    };
    let sink = 0;
    const wasm = time(() => {
      const p = core.product(params).value; // prepared afresh each time: nothing cached
      sink += p.curve('log-product', ns)[999];
      p.free();
    }, 9);
    const loop = time(() => {
      let s = 0;
      for (let l = 1; l <= 1e6; l++) s += Math.log(1 + 1 / Math.sqrt(l) + 1 / l);
      sink += s;
    }, 9);
    return { wasm, loop, sink };
  });
  await context.close();

  console.log('');
  row('update work per slider move, median / p95', medP95(moves.map((m) => m[1])), '< 4 ms / < 8 ms');
  row('input to shown frame, median / p95', medP95(moves.map((m) => m[0])), 'p95 < 25 ms');
  row('input to shown frame, CPU throttled x4, median / p95', medP95(throttled.map((m) => m[0])), 'p95 < 50 ms');
  row('  (update work throttled x4, median / p95)', medP95(throttled.map((m) => m[1])), '-');
  row('first certified number, warm / cold (median)', `${ms(quantile(warm, 0.5))} / ${ms(quantile(cold, 0.5))}`, '< 300 ms / < 600 ms');
  row('  (worst warm / cold)', `${ms(Math.max(...warm))} / ${ms(Math.max(...cold))}`, '-');
  row('  (warm from a host with max-age=600, as GitHub Pages: median / worst)', `${ms(quantile(warmHost, 0.5))} / ${ms(Math.max(...warmHost))}`, '< 300 ms');
  row('  (warm from dist/site/, the page\'s modules bundled into four files: median / worst; the same with max-age=600)', `${ms(quantile(warmSite, 0.5))} / ${ms(Math.max(...warmSite))}; ${ms(quantile(warmSiteHost, 0.5))} / ${ms(Math.max(...warmSiteHost))}`, '< 300 ms');
  const med = (k) => ms(quantile(breakdown.map((b) => b[k]), 0.5));
  row('  (every load, median: modules evaluated / core ready / first update starts / its work)', `${med('modules')} / ${med('core')} / ${med('update')} / ${med('work')}`, '-');
  row('  (floor, warm median: a page whose one module writes a number / the same loading the core wasm for one value)', `${ms(quantile(floor.plain, 0.5))} / ${ms(quantile(floor.wasm, 0.5))}`, '-');
  row('wasm module gzipped (raw)', `${kib(gz(wasmBytes))} (${kib(wasmBytes.length)})`, '< 60 KiB');
  row('  (JS glue gzipped (raw))', `${kib(gz(glueBytes))} (${kib(glueBytes.length)})`, '-');
  row('offline single file gzipped / raw', `${kib(gz(singleBytes))} / ${kib(singleBytes.length)}`, '< 100 / < 200 KiB');
  row('N = 10^6: whole 1000-point curve in wasm vs one value by a JS loop',
    `${ms(ratio.wasm)} vs ${ms(ratio.loop)}: the curve takes ${(ratio.wasm / ratio.loop).toFixed(3)}x the loop's time`, 'report');
  console.log(`\n  moves measured: ${moves.length} (${SLIDERS.length} sliders), throttled: ${throttled.length}`);
  if (phases.phase) console.log(`  last update's phases: ${Object.entries(phases.phase).map(([k, v]) => `${k} ${ms(v)}`).join(', ')}; draw ${Object.entries(phases.draw || {}).map(([k, v]) => `${k} ${v}`).join(' / ')} ms`);
  console.log('\n| metric | this run | goal |\n|---|---|---|');
  for (const [m, v, g] of rows) console.log(`| ${m.trim()} | ${v} | ${g} |`);
} finally {
  await browser.close();
  await server.close();
  await floorServer.close();
  rmSync(FLOOR, { recursive: true, force: true });
}
