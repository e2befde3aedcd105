// Browser end-to-end harness: node:test + playwright-core driving Debian's Chromium.
//
// It builds nothing: `npm test` runs the release wasm build into www/pkg/ before these tests.
// For each test file, `startBrowser()` serves www/ on a free loopback port and launches Chromium;
// `session.page(t)` opens a page that
//   - lets requests reach only the page's own origin (every other request is aborted, recorded,
//     and fails the test),
//   - records console errors and warnings and uncaught page errors (they fail the test unless
//     matched by the `allowConsole` patterns),
//   - saves a screenshot to tests/e2e/artifacts/<test name>.png when the test ends.
//
// Typical use:
//
//   import { after, before, test } from 'node:test';
//   import { startBrowser } from './harness.mjs';
//   let session;
//   before(async () => { session = await startBrowser(); });
//   after(() => session?.close());
//   test('loads', async (t) => {
//     const page = await session.open(t, '#a=2');   // or session.page(t) + page.goto(...)
//     ...
//   });
//
// Environment: CHROMIUM_PATH overrides /usr/bin/chromium; E2E_ROOT serves another folder than
// www/ (used to check the harness itself); E2E_HEADED=1 shows the window (needs a display).

import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { DEFAULT_ROOT, startServer } from '../../scripts/serve.mjs';

const HERE = resolve(fileURLToPath(new URL('.', import.meta.url)));
export const ARTIFACTS = join(HERE, 'artifacts');
export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
  '--disable-quic',
];

/** A file-name-safe version of a test name. */
export function slug(name) {
  return name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 80) || 'page';
}

/**
 * Serves `root` (default www/) on a free port and launches Chromium.
 * Resolves to a session `{ url, origin, browser, page(t, options), screenshot(page, name), close() }`.
 */
export async function startBrowser({ root = process.env.E2E_ROOT || DEFAULT_ROOT } = {}) {
  const server = await startServer({ root, port: 0 });
  const origin = new URL(server.url).origin;
  let browser;
  try {
    const headed = process.env.E2E_HEADED === '1';
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: !headed,
      args: headed ? CHROMIUM_ARGS.filter((a) => a !== '--headless') : CHROMIUM_ARGS,
      timeout: 60_000,
    });
  } catch (err) {
    await server.close();
    throw new Error(`could not launch ${CHROMIUM} (run \`node scripts/setup.mjs --test\`): ${err.message}`);
  }
  mkdirSync(ARTIFACTS, { recursive: true });

  const session = {
    url: server.url,
    origin,
    browser,

    /**
     * A fresh page (own context: no shared storage) bound to test `t`. When `t` ends, the page
     * is screenshotted and closed, and the test fails on any off-origin request, console error or
     * warning, or uncaught exception.
     * Options: `allowConsole`: RegExps of console messages to tolerate;
     * `viewport`: {width, height} (default 1280x900); `context`: more Playwright context options
     * (e.g. `{ hasTouch: true, isMobile: true }`, `{ colorScheme: 'dark' }`, `{ permissions: [...] }`);
     * `file`: a file:// URL this page may also load (its fragment aside), e.g. the offline bundle;
     * `offline`: true puts the context offline (`context.setOffline(true)`).
     */
    async page(t, { allowConsole = [], viewport = { width: 1280, height: 900 }, context: contextOptions = {}, file = null, offline = false } = {}) {
      const context = await browser.newContext({ viewport, serviceWorkers: 'block', ...contextOptions });
      if (offline) await context.setOffline(true);
      const offOrigin = [];
      const consoleProblems = [];
      // Every request goes through this route: only the served origin (and in-page data:/blob:
      // URLs, which never hit the network) may load.
      await context.route('**/*', (route) => {
        const url = route.request().url();
        if (url.startsWith('data:') || url.startsWith('blob:') || new URL(url).origin === origin || (file && url.split('#')[0] === file.split('#')[0])) {
          return route.continue();
        }
        offOrigin.push(url);
        return route.abort('blockedbyclient');
      });
      context.on('websocket', (ws) => offOrigin.push(ws.url()));
      const page = await context.newPage();
      page.on('console', (msg) => {
        const type = msg.type();
        if (type !== 'error' && type !== 'warning') return;
        const text = msg.text();
        const where = msg.location()?.url ? ` (${msg.location().url}:${msg.location().lineNumber})` : '';
        if (!allowConsole.some((re) => re.test(text))) consoleProblems.push(`console.${type}: ${text}${where}`);
      });
      page.on('pageerror', (err) => consoleProblems.push(`uncaught: ${err.stack || err.message}`));
      page.on('crash', () => consoleProblems.push('the page crashed'));

      page.problems = { offOrigin, console: consoleProblems };
      // No test expects a dialog: one that fires (an injected alert, say) is recorded and fails it.
      page.dialogs = [];
      page.on('dialog', (d) => {
        page.dialogs.push(`${d.type()}: ${d.message()}`);
        consoleProblems.push(`a dialog fired: ${d.type()} ${d.message()}`);
        d.dismiss().catch(() => {});
      });
      t.after(async () => {
        try {
          await session.screenshot(page, t.name);
        } catch (err) {
          t.diagnostic(`screenshot failed: ${err.message}`);
        }
        await context.close();
        assertClean(page);
      });
      return page;
    },

    /**
     * Opens the explorer (with an optional `#fragment`) in a new `page(t, options)` and waits for
     * its first computed frame. The navigation's response is `page.response`.
     */
    async open(t, hash = '', options = {}) {
      const page = await session.page(t, options);
      page.response = await page.goto(session.url + hash);
      await page.waitForFunction(() => window.depthprodStats && window.depthprodStats.updates > 0, null, { timeout: 30_000 });
      return page;
    },

    /** Saves a full-page screenshot to tests/e2e/artifacts/<slug(name)>.png; returns its path. */
    async screenshot(page, name) {
      const path = join(ARTIFACTS, `${slug(name)}.png`);
      await page.screenshot({ path, fullPage: true });
      return path;
    },

    async close() {
      await browser?.close().catch(() => {});
      await server.close();
    },
  };
  return session;
}

/** Throws if the page made an off-origin request or logged a console error/warning so far. */
export function assertClean(page) {
  const { offOrigin, console: consoleProblems } = page.problems;
  const lines = [
    ...offOrigin.map((u) => `request left the origin: ${u}`),
    ...consoleProblems,
  ];
  if (lines.length) throw new Error(`browser problems:\n  ${lines.join('\n  ')}`);
}

/**
 * Waits until `selector`'s text content parses as a finite number, and returns that number.
 * (The page may show a placeholder such as "…" while the wasm computes.)
 */
export async function numberIn(page, selector, { timeout = 30_000 } = {}) {
  const handle = await page.waitForFunction(
    (sel) => {
      const el = document.querySelector(sel);
      const x = el ? Number.parseFloat(el.textContent.trim()) : NaN;
      return Number.isFinite(x) ? x : null;
    },
    selector,
    { timeout },
  );
  return handle.jsonValue();
}
