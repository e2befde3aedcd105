// Browser end-to-end harness: node:test driving Debian's Chromium (playwright-core) and Debian's
// firefox-esr (puppeteer-core over WebDriver BiDi, through the Playwright-shaped adapter in
// firefox.mjs).
//
// It builds nothing: `npm test` runs the release wasm build into www/pkg/ before these tests.
// `startBrowser({ browser })` serves www/ on a free loopback port and launches one browser;
// `session.page(t)` opens a page that
//   - lets requests reach only the page's own origin (every other request is aborted, recorded,
//     and fails the test),
//   - records console errors and warnings and uncaught page errors (they fail the test unless
//     matched by the `allowConsole` patterns),
//   - saves a screenshot to tests/e2e/artifacts/<test name>.png when the test ends.
//
// Both browsers: `browsers()` registers each test once per browser, named "[chromium] …" and
// "[firefox] …", and gives a `session` that is the running test's browser's session:
//
//   import { browsers, numberIn } from './harness.mjs';
//   const { test, session } = browsers();            // or browsers({ root }) for another folder
//   test('loads', { timeout: 90_000 }, async (t) => {
//     const page = await session.open(t, '#a=2');   // or session.page(t) + page.goto(...)
//     ...
//   });
//   test('print', { browsers: ['chromium'] }, ...)   // a Chromium-only check; say why in the test
//
// In Chromium `page` is Playwright's Page; in Firefox it is a FirefoxPage with the subset of that
// API listed at the top of firefox.mjs (evaluate, waitForFunction, goto, locators, getByTestId,
// fill/press/click, keyboard, mouse, touchscreen, screenshot, console/dialog/request events …).
// A test that uses only that subset can run in both; anything else throws a clear error in
// Firefox. `session.browserName` says which browser runs.
//
// Single browser (the older form, still supported; Chromium unless told otherwise):
//
//   let session;
//   before(async () => { session = await startBrowser(); });
//   after(() => session?.close());
//
// Environment: CHROMIUM_PATH overrides /usr/bin/chromium, FIREFOX_PATH /usr/bin/firefox-esr;
// E2E_BROWSERS=chromium (or firefox) limits `browsers()` to one; E2E_ROOT serves another folder than
// www/ (used to check the harness itself); E2E_HEADED=1 shows the window (needs a display).

import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test as nodeTest } from 'node:test';
import { chromium } from 'playwright-core';
import { FirefoxPage, FIREFOX, launchFirefox, recordDownloads } from './firefox.mjs';
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
export async function startBrowser({ root = process.env.E2E_ROOT || DEFAULT_ROOT, browser: browserName = 'chromium' } = {}) {
  if (browserName === 'firefox') return startFirefox({ root });
  if (browserName !== 'chromium') throw new Error(`browser must be chromium or firefox, not ${browserName}`);
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
    browserName: 'chromium',

    /**
     * A fresh page (own context: no shared storage) bound to test `t`. When `t` ends, the page
     * is screenshotted and closed, and the test fails on any off-origin request, console error or
     * warning, or uncaught exception.
     * Options: `allowConsole`: RegExps of console messages to tolerate;
     * `viewport`: {width, height} (default 1280x900); `context`: more Playwright context options
     * (e.g. `{ hasTouch: true, isMobile: true }`, `{ colorScheme: 'dark' }`, `{ permissions: [...] }`);
     * `file`: a file:// URL this page may also load (its fragment aside), e.g. the offline bundle;
     * `offline`: true puts the context offline (`context.setOffline(true)`);
     * `allowOrigins`: more origins (e.g. a test's own servers) the page may load from.
     */
    async page(t, { allowConsole = [], viewport = { width: 1280, height: 900 }, context: contextOptions = {}, file = null, offline = false, allowOrigins = [] } = {}) {
      const context = await browser.newContext({ viewport, serviceWorkers: 'block', ...contextOptions });
      if (offline) await context.setOffline(true);
      const offOrigin = [];
      // Every request goes through this route: only the served origin (and in-page data:/blob:
      // URLs, which never hit the network) may load.
      await context.route('**/*', (route) => {
        const url = route.request().url();
        if (url.startsWith('data:') || url.startsWith('blob:') || [origin, ...allowOrigins].includes(new URL(url).origin) || (file && url.split('#')[0] === file.split('#')[0])) {
          return route.continue();
        }
        offOrigin.push(url);
        return route.abort('blockedbyclient');
      });
      context.on('websocket', (ws) => offOrigin.push(ws.url()));
      const page = await context.newPage();
      watchPage(page, { allowConsole, offOrigin });
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

/**
 * Serves `root` on a free port and launches firefox-esr (puppeteer-core, WebDriver BiDi). The
 * session has the same shape as Chromium's; its pages are FirefoxPage adapters (firefox.mjs).
 * A page asking for `context: { colorScheme: 'dark' }` or `{ hasTouch: true }` is opened in another
 * Firefox started with the dark override or a coarse pointer (launched on first use): BiDi has no
 * per-page colour-scheme or pointer-media emulation here.
 */
async function startFirefox({ root }) {
  const server = await startServer({ root, port: 0 });
  const origin = new URL(server.url).origin;
  const instances = new Map();
  const launch = (colorScheme, touch = false) => {
    const key = `${colorScheme}${touch ? '+touch' : ''}`;
    if (!instances.has(key)) instances.set(key, launchFirefox({ colorScheme, touch }));
    return instances.get(key);
  };
  let browser;
  try {
    browser = await launch('light');
  } catch (err) {
    await server.close();
    throw new Error(`could not launch ${FIREFOX} (run \`node scripts/setup.mjs --test\`): ${err.message}`);
  }
  mkdirSync(ARTIFACTS, { recursive: true });

  const session = {
    url: server.url,
    origin,
    browser,
    browserName: 'firefox',

    /** As Chromium's `page(t, options)`; `context` may hold colorScheme, deviceScaleFactor, hasTouch, isMobile, permissions. */
    async page(t, { allowConsole = [], viewport = { width: 1280, height: 900 }, context: contextOptions = {}, file = null, offline = false, allowOrigins = [] } = {}) {
      // isMobile and permissions need nothing in Firefox: the layout is the same (the viewport
      // decides it) and the profile allows the async clipboard (firefox.mjs).
      const { colorScheme = 'light', deviceScaleFactor = 1, hasTouch = false, isMobile = false, permissions = [], ...other } = contextOptions;
      void isMobile;
      void permissions;
      if (Object.keys(other).length) throw new Error(`context options not in the Firefox subset: ${Object.keys(other).join(', ')}`);
      const ff = await launch(colorScheme, hasTouch);
      const context = await ff.createBrowserContext();
      const raw = await context.newPage();
      await raw.evaluateOnNewDocument(recordDownloads);
      await raw.setViewport({ width: viewport.width, height: viewport.height, deviceScaleFactor, hasTouch });
      let abortAll = false;
      if (offline) {
        try {
          await raw.setOfflineMode(true);
        } catch {
          abortAll = true;
        }
      }
      const offOrigin = [];
      await raw.setRequestInterception(true);
      raw.on('request', (req) => {
        if (req.isInterceptResolutionHandled()) return;
        const url = req.url();
        const isFile = file && url.split('#')[0] === file.split('#')[0];
        const sameOrigin = url.startsWith('http') && [origin, ...allowOrigins].includes(new URL(url).origin);
        if (url.startsWith('data:') || url.startsWith('blob:') || isFile || (sameOrigin && !abortAll)) {
          req.continue().catch(() => {});
          return;
        }
        if (!sameOrigin) offOrigin.push(url);
        req.abort('blockedbyclient').catch(() => {});
      });
      const page = new FirefoxPage(raw, { ...viewport, deviceScaleFactor });
      watchPage(page, { allowConsole, offOrigin });
      t.after(async () => {
        try {
          await session.screenshot(page, t.name);
        } catch (err) {
          t.diagnostic(`screenshot failed: ${err.message}`);
        }
        await context.close().catch(() => {});
        assertClean(page);
      });
      return page;
    },

    async open(t, hash = '', options = {}) {
      const page = await session.page(t, options);
      page.response = await page.goto(session.url + hash);
      await page.waitForFunction(() => window.depthprodStats && window.depthprodStats.updates > 0, null, { timeout: 30_000 });
      return page;
    },

    async screenshot(page, name) {
      const path = join(ARTIFACTS, `${slug(name)}.png`);
      await page.screenshot({ path, fullPage: true });
      return path;
    },

    async close() {
      for (const b of instances.values()) await (await b.catch(() => null))?.close().catch(() => {});
      await server.close();
    },
  };
  return session;
}

/**
 * Records, on `page.problems`, console errors and warnings (unless allowed), uncaught errors,
 * crashes and dialogs; `assertClean` fails the test on any of them.
 */
function watchPage(page, { allowConsole, offOrigin }) {
  const consoleProblems = [];
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
}

/** The browsers `browsers()` runs: both, or those named in E2E_BROWSERS (comma-separated). */
export const BROWSERS = (process.env.E2E_BROWSERS || 'chromium,firefox').split(',').map((s) => s.trim()).filter(Boolean);

// The browser of the test that is running now (node:test runs a file's tests one at a time).
let currentBrowser = null;

/**
 * Registers this file's tests once per browser. Returns `{ test, session, names }`:
 * `test(name, [options], fn)` registers "[chromium] name" and "[firefox] name" (options may carry
 * `browsers: ['chromium']` for a check that cannot run in Firefox — say why in the test);
 * `session` stands for the running test's session (started in a `before` hook, closed in `after`);
 * fn also gets `(t, session)`. Call it again with `{ root }` for a second served folder.
 */
export function browsers({ root, only } = {}) {
  const names = only ? BROWSERS.filter((b) => only.includes(b)) : BROWSERS;
  const sessions = {};
  before(async () => {
    for (const b of names) sessions[b] = await startBrowser({ root, browser: b });
  });
  after(async () => {
    for (const s of Object.values(sessions)) await s.close();
  });
  const session = new Proxy({}, {
    get(_, key) {
      const s = sessions[currentBrowser];
      if (!s) throw new Error(`session.${String(key)} used outside a test registered by browsers() (or before the browsers started)`);
      const v = s[key];
      return typeof v === 'function' ? v.bind(s) : v;
    },
  });
  function test(name, options, fn) {
    if (typeof options === 'function') [options, fn] = [{}, options];
    const { browsers: which = names, ...rest } = options ?? {};
    for (const b of names) {
      if (!which.includes(b)) continue;
      nodeTest(`[${b}] ${name}`, rest, async (t) => {
        currentBrowser = b;
        try {
          return await fn(t, sessions[b]);
        } finally {
          currentBrowser = null;
        }
      });
    }
  }
  return { test, session, names };
}
