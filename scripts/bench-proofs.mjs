#!/usr/bin/env node
// The claim cards' and their "Why" panels' share of the page's update, this build beside another,
// in headless Debian chromium: per slider move (A, then B), with every Why open in the "Pre-LN vs
// LNS" view, the page's own phase times (`depthprodStats.drawPhases`: 'cards', 'proofs') and its
// whole update (`depthprodStats.last`), medians and p95. The two builds alternate, a round of moves
// each, so both see the same load on this shared machine. A report, never a test.
//
//   node scripts/bench-proofs.mjs --baseline=DIR [--rounds=6] [--moves=40]
//
// DIR is another build's www/ folder with its pkg/ (for instance main's:
// `git archive main www | tar -x -C /tmp/base && cp -r www/pkg /tmp/base/www/`).

import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startServer } from './serve.mjs';

const REPO = resolve(fileURLToPath(new URL('..', import.meta.url)));
const arg = (name, fallback) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback;
const BASELINE = arg('baseline', null);
const ROUNDS = Number(arg('rounds', 6));
const MOVES = Number(arg('moves', 40));
if (!BASELINE) {
  console.error('bench-proofs: --baseline=DIR (another build\'s www/ with its pkg/) is required');
  process.exit(1);
}
const VIEW = '#families=unscaled,scaled&a=1&b=1&c=1&q=1&scaled.c=1&scaled.eps=0.5&n=1e6';
const builds = [
  { name: 'this build', root: join(REPO, 'www') },
  { name: 'baseline', root: resolve(BASELINE) },
];

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};

/** `moves` moves of each of the A and B sliders: [cards, proofs, whole update] per move, ms. */
async function round(page, moves) {
  return page.evaluate(async (moves) => {
    const frame = () => new Promise((r) => requestAnimationFrame(r));
    const rows = [];
    for (const testid of ['slider-a', 'slider-b']) {
      const el = document.querySelector(`[data-testid="${testid}"]`);
      const [lo, hi] = [Number(el.min), Number(el.max)];
      for (let i = 0; i < moves; i++) {
        const x = (i % 2 ? 0.3 : 0.1) + (0.5 * i) / moves; // a new value every move
        const updates = window.depthprodStats.updates;
        el.value = String(lo + (hi - lo) * x);
        el.dispatchEvent(new Event('input', { bubbles: true }));
        for (let k = 0; k < 120 && window.depthprodStats.updates === updates; k++) await frame();
        const s = window.depthprodStats;
        if (s.updates > updates && s.drawPhases) rows.push([s.drawPhases.cards, s.drawPhases.proofs, s.last]);
      }
    }
    return rows;
  }, moves);
}

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
try {
  for (const b of builds) {
    b.server = await startServer({ root: b.root, port: 0 });
    b.page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await b.page.goto(b.server.url + VIEW);
    await b.page.waitForFunction(() => window.depthprodStats?.updates > 0 && document.querySelectorAll('details.why').length >= 4);
    await b.page.evaluate(() => {
      for (const d of document.querySelectorAll('details.why')) d.open = true;
    });
    b.rows = [];
  }
  for (let r = 0; r < ROUNDS; r++) for (const b of r % 2 ? [...builds].reverse() : builds) b.rows.push(...(await round(b.page, MOVES)));
  console.log(`cards and Why panels per slider move, every Why open, ${VIEW} (headless chromium; medians / p95; ${ROUNDS} alternating rounds of ${2 * MOVES} moves)\n`);
  console.log('build        moves   cards (ms)      Why panels (ms)   whole update (ms)');
  for (const b of builds) {
    const col = (i) => `${quantile(b.rows.map((x) => x[i]), 0.5).toFixed(2)} / ${quantile(b.rows.map((x) => x[i]), 0.95).toFixed(2)}`.padEnd(18);
    console.log(`${b.name.padEnd(12)} ${String(b.rows.length).padEnd(7)} ${col(0)}${col(1)}${col(2)}`);
  }
} finally {
  await browser.close();
  for (const b of builds) await b.server?.close();
}
