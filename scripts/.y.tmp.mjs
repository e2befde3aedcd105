import { chromium } from 'playwright-core';
import { startServer } from './serve.mjs';
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'];
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ARGS, headless: true });
const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
for (const root of [undefined, '/work/main/dist/site']) {
  const srv = await startServer({ port: 0, ...(root ? { root } : {}) });
  const page = await ctx.newPage();
  const rows = [];
  for (let i = 0; i < 6; i++) {
    await page.goto(srv.url, { waitUntil: 'load' });
    await page.waitForFunction(() => window.depthprodStats && window.depthprodStats.updates > 0, null, { timeout: 30000 });
    rows.push(await page.evaluate(() => {
      const m = (n) => performance.getEntriesByName(n)[0]?.startTime?.toFixed(0);
      const nav = performance.getEntriesByType('navigation')[0];
      const res = performance.getEntriesByType('resource').map((r) => `${r.name.split('/').pop()}:${r.startTime.toFixed(0)}-${r.responseEnd.toFixed(0)}`);
      return { dcl: nav.domContentLoadedEventEnd.toFixed(0), resp: nav.responseEnd.toFixed(0), mods: m('depthprod:modules-evaluated'), core: m('depthprod:core-ready'), first: window.depthprodStats.first?.start?.toFixed(0), res: res.slice(0, 8).join(' ') };
    }));
  }
  console.log(root || 'www');
  for (const r of rows.slice(1)) console.log(JSON.stringify(r));
  await page.close(); await srv.close();
}
await browser.close();
