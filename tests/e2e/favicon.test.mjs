// The site's icon: every page links www/favicon.svg (its CSP's img-src 'self' allows it), so no
// browser asks for /favicon.ico and logs the 404 (before the icon shipped, Chromium logged "Failed
// to load resource … 404" on every explorer load and Firefox requested /favicon.ico on the explorer
// and both examples). The offline single file inlines the icon as a data: URL (offline.test.mjs
// checks that it requests nothing but itself).
import assert from 'node:assert/strict';
import { browsers } from './harness.mjs';

const { test, session } = browsers();
const T = { timeout: 90_000 };

for (const path of ['', 'lab.html', 'examples/custom-element.html', 'examples/iframe.html']) {
  test(`${path || 'index.html'}: its icon is favicon.svg, served, and /favicon.ico is never asked for`, T, async (t) => {
    const page = await session.page(t);
    const icons = [];
    page.on('response', (r) => {
      if (/\/favicon\.[a-z]+$/.test(new URL(r.url()).pathname)) icons.push({ url: new URL(r.url()).pathname, status: r.status() });
    });
    await page.goto(session.url + path);
    // The browser fetches the linked icon after the page: wait for that response (the outcome).
    await page.waitForFunction(() => document.readyState === 'complete');
    const deadline = Date.now() + 30_000;
    while (!icons.some((i) => i.url === '/favicon.svg') && Date.now() < deadline) await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
    assert.deepEqual(icons.filter((i) => i.url === '/favicon.svg').map((i) => i.status), [200], `icon responses: ${JSON.stringify(icons)}`);
    assert.deepEqual(icons.filter((i) => i.url !== '/favicon.svg'), [], 'no other icon is requested');
    const link = await page.evaluate(() => document.querySelector('link[rel="icon"]')?.getAttribute('href'));
    assert.match(link, /(^|\/)favicon\.svg$/);
    // the harness fails the test on any console error (Chromium's favicon 404 was one)
  });
}
