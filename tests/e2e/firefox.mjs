// Firefox for the e2e harness: puppeteer-core drives Debian's firefox-esr over WebDriver BiDi, and
// `FirefoxPage` gives the suites the part of Playwright's Page API they use, so that one test body
// runs in both browsers (harness.mjs hands a Playwright page to Chromium tests and one of these to
// Firefox tests). playwright-core cannot drive a stock Firefox (it needs its own patched build).
//
// The subset (anything else throws "… is not in the harness's Firefox subset"):
//   page:    goto, goBack, goForward, url, evaluate(fn | string, arg), waitForFunction(fn, arg,
//            {timeout}), $eval(sel, fn, arg), waitForSelector(sel, {timeout}) (visible),
//            waitForTimeout, locator(css), getByTestId, frameLocator(css) (same-origin frames),
//            frames(), mainFrame(), textContent/inputValue/getAttribute/isChecked/isVisible(sel),
//            fill/press/click/check/uncheck/focus/selectOption(sel, …), keyboard.press/down/up/type
//            (with "Shift+Tab" style chords), mouse.move/click/down/up, touchscreen.tap,
//            screenshot({path, fullPage}), setViewportSize, viewportSize, on('console' | 'pageerror'
//            | 'dialog' | 'request' | 'response' (url(), status())), request.get(url) (status(), body()),
//            waitForEvent('download') (the page's blob download, see below), close.
//   locator: count, textContent, innerText, allInnerTexts, inputValue, getAttribute, isVisible,
//            isChecked, boundingBox, evaluate(fn, arg), evaluateAll(fn, arg), locator(css) (chained,
//            CSS only), first(), fill, press, click, tap, check, uncheck, focus, selectOption,
//            waitFor({state: 'visible' | 'attached' | 'hidden', timeout}), scrollIntoViewIfNeeded.
// Differences from Chromium that a test must know about:
//   - emulateMedia (print, colorScheme at run time) is not available over WebDriver BiDi in
//     Firefox ESR: `context: { colorScheme, hasTouch }` is honoured by another Firefox started
//     with the prefers-color-scheme override / a coarse-pointer pref (launched on first use);
//     print emulation is Chromium-only (the test says so).
//   - `context: { permissions }` is accepted but not needed: the profile turns on the async
//     clipboard test pref, so navigator.clipboard.readText() works without a paste prompt.
//   - `offline: true` asks BiDi to emulate offline; where Firefox refuses, every request except
//     the allowed file:// URL is aborted instead (the page sees the network as gone either way).
//   - CSP violations are not console messages over BiDi; a preload script turns each
//     `securitypolicyviolation` event into a console.error, so they fail the test as in Chromium.

import puppeteer from 'puppeteer-core';

export const FIREFOX = process.env.FIREFOX_PATH || '/usr/bin/firefox-esr';

// layout.css.prefers-color-scheme.content-override: 0 = dark, 1 = light, 2 = follow the system.
const SCHEME = { dark: 0, light: 1 };

/**
 * Launches headless firefox-esr with the given prefers-color-scheme; `touch: true` makes the
 * primary pointer a coarse one without hover (as on a phone: `@media (pointer: coarse)` applies).
 */
export async function launchFirefox({ colorScheme = 'light', touch = false } = {}) {
  if (!(colorScheme in SCHEME)) throw new Error(`colorScheme must be light or dark, not ${colorScheme}`);
  return puppeteer.launch({
    browser: 'firefox',
    executablePath: FIREFOX,
    headless: process.env.E2E_HEADED !== '1',
    timeout: 60_000,
    protocolTimeout: 120_000,
    extraPrefsFirefox: {
      'layout.css.prefers-color-scheme.content-override': SCHEME[colorScheme],
      // navigator.clipboard.readText() without the paste context menu (the share tests read back).
      'dom.events.testing.asyncClipboard': true,
      // The page's own font stack, not the user's; and no telemetry or update pings.
      'browser.display.use_document_fonts': 1,
      'toolkit.telemetry.reportingpolicy.firstRun': false,
      'app.update.enabled': false,
      // PointerCapabilities: 1 = coarse, 2 = fine, 4 = hover.
      ...(touch ? { 'ui.primaryPointerCapabilities': 1, 'ui.allPointerCapabilities': 1 } : {}),
    },
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Init script of every Firefox page (harness.mjs): a click on an <a download> with a blob: URL made
 * by URL.createObjectURL is recorded with the blob's bytes in window.__harnessDownloads instead of starting a download, for
 * `FirefoxPage.waitForEvent('download')`.
 */
export function recordDownloads() {
  const click = HTMLAnchorElement.prototype.click;
  const create = URL.createObjectURL;
  // The blobs by URL: reading a blob: URL back with fetch() is a connect-src request the page's CSP refuses.
  const blobs = new Map();
  URL.createObjectURL = function createRecorded(obj) {
    const url = create.call(URL, obj);
    if (obj instanceof Blob) blobs.set(url, obj);
    return url;
  };
  window.__harnessDownloads = [];
  HTMLAnchorElement.prototype.click = function clickRecorded() {
    const blob = blobs.get(this.href);
    if (!this.hasAttribute('download') || !blob) return click.call(this);
    const entry = { name: this.getAttribute('download'), base64: null };
    window.__harnessDownloads.push(entry);
    blob
      .arrayBuffer()
      .then((buf) => {
        const bytes = new Uint8Array(buf);
        let bin = '';
        for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
        entry.base64 = btoa(bin);
      });
    return undefined;
  };
}

// Input types that Playwright's fill() sets directly (no typing) and then fires input + change.
const SET_VALUE_TYPES = ['color', 'date', 'time', 'datetime-local', 'month', 'range', 'week'];

/**
 * In-page: resolves a locator spec `{ frames: [css...], sel }` to its first element (or null); the
 * `frames` are same-origin iframes to descend through.
 */
function resolveSpec(spec) {
  let doc = document;
  for (const f of spec.frames) {
    doc = doc.querySelector(f)?.contentDocument;
    if (!doc) return null;
  }
  return spec.all ? doc.querySelectorAll(spec.sel) : doc.querySelector(spec.sel);
}
const RESOLVE = resolveSpec.toString();

/** In-page: Playwright's notion of visible — a non-empty box and not visibility:hidden. */
function visibleIn(el) {
  if (!el || !el.isConnected) return false;
  const r = el.getBoundingClientRect();
  return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== 'hidden';
}
const VISIBLE = visibleIn.toString();

/** Wraps a puppeteer Frame (or Page) with Playwright's argument order. */
class FrameLike {
  constructor(target, owner) {
    this._t = target;
    this._owner = owner ?? this;
  }

  evaluate(fn, arg) {
    if (typeof fn === 'string') return this._t.evaluate(fn);
    return this._t.evaluate(fn, arg);
  }

  async waitForFunction(fn, arg, { timeout = 30_000 } = {}) {
    if (this._isPage) return this._t.waitForFunction(fn, { timeout, polling: 'raf' }, arg);
    // A child frame: puppeteer's wait stays bound to the document it started in, so one begun
    // before the iframe navigated (about:blank → the explorer) would never see the page. Poll
    // with evaluate, which follows the frame's current document.
    // (A DOM node does not serialize: it counts as true, as a truthy handle does in Playwright.)
    const probe = new Function('arg', `return Promise.resolve((${fn.toString()})(arg)).then((v) => (typeof Node !== 'undefined' && v instanceof Node ? true : v));`);
    const started = Date.now();
    for (;;) {
      const value = await this._t.evaluate(probe, arg).catch(() => undefined);
      if (value) return { jsonValue: async () => value };
      if (Date.now() - started > timeout) throw new Error(`waitForFunction in a frame: ${timeout} ms exceeded`);
      await sleep(50);
    }
  }

  $eval(selector, fn, arg) {
    return this._t.$eval(selector, fn, arg);
  }

  /** Like Playwright: waits until `selector` matches a visible element; resolves to a handle. */
  async waitForSelector(selector, { timeout = 30_000, state = 'visible' } = {}) {
    const loc = this.locator(selector);
    await loc.waitFor({ state, timeout });
    const handle = await this._t.$(selector);
    return {
      contentFrame: async () => this._owner._wrapFrame(await handle.contentFrame()),
      evaluate: (fn, arg) => handle.evaluate(fn, arg),
    };
  }

  waitForTimeout(ms) {
    return sleep(ms);
  }

  locator(selector) {
    return new Locator(this, [], selector);
  }

  getByTestId(id) {
    return this.locator(`[data-testid="${id}"]`);
  }

  frameLocator(selector) {
    return new FrameLocator(this, [selector]);
  }

  textContent(sel) { return this.locator(sel).textContent(); }
  inputValue(sel) { return this.locator(sel).inputValue(); }
  getAttribute(sel, name) { return this.locator(sel).getAttribute(name); }
  isChecked(sel) { return this.locator(sel).isChecked(); }
  isVisible(sel) { return this.locator(sel).isVisible(); }
  fill(sel, value) { return this.locator(sel).fill(value); }
  press(sel, key) { return this.locator(sel).press(key); }
  click(sel) { return this.locator(sel).click(); }
  check(sel) { return this.locator(sel).check(); }
  uncheck(sel) { return this.locator(sel).uncheck(); }
  focus(sel) { return this.locator(sel).focus(); }
  selectOption(sel, value) { return this.locator(sel).selectOption(value); }
}

class FrameLocator {
  constructor(frame, frames) {
    this._frame = frame;
    this._frames = frames;
  }
  locator(selector) { return new Locator(this._frame, this._frames, selector); }
  getByTestId(id) { return this.locator(`[data-testid="${id}"]`); }
  frameLocator(selector) { return new FrameLocator(this._frame, [...this._frames, selector]); }
}

class Locator {
  constructor(frame, frames, sel) {
    this._frame = frame;
    this._spec = { frames, sel, all: false };
  }

  get _page() {
    return this._frame._owner;
  }

  /** Runs `fn(element, arg)` in the page on the first match (null when none). */
  _run(fn, arg) {
    return this._frame._t.evaluate(
      new Function('spec', 'arg', `const resolve = ${RESOLVE}; const visible = ${VISIBLE}; return (${fn.toString()})(resolve(spec), arg, visible);`),
      this._spec,
      arg,
    );
  }

  /** Waits (up to `timeout`) until the first match satisfies `state`. */
  async waitFor({ state = 'visible', timeout = 30_000 } = {}) {
    const started = Date.now();
    for (;;) {
      const ok = await this._run((el, st, visible) => (st === 'attached' ? !!el : st === 'hidden' ? !visible(el) : visible(el)), state);
      if (ok) return;
      if (Date.now() - started > timeout) throw new Error(`locator ${JSON.stringify(this._spec)}: not ${state} after ${timeout} ms`);
      await sleep(50);
    }
  }

  async _handle({ visible = false } = {}) {
    await this.waitFor({ state: visible ? 'visible' : 'attached' });
    const h = await this._frame._t.evaluateHandle(
      new Function('spec', `return (${RESOLVE})(spec);`),
      this._spec,
    );
    return h.asElement();
  }

  async count() {
    return this._frame._t.evaluate(
      new Function('spec', `const r = (${RESOLVE})(spec); return r ? r.length : 0;`),
      { ...this._spec, all: true },
    );
  }

  async _read(fn, arg) {
    await this.waitFor({ state: 'attached' });
    return this._run(fn, arg);
  }

  textContent() { return this._read((el) => el.textContent); }
  innerText() { return this._read((el) => el.innerText); }
  /** A descendant CSS selector under this one (Playwright's chained locator, CSS only). */
  locator(sub) { return new Locator(this._frame, this._spec.frames, `${this._spec.sel} ${sub}`); }
  /** The first match: the subset's locators already act on their first match. */
  first() { return this; }
  async allInnerTexts() { return this.evaluateAll((els) => els.map((e) => e.innerText)); }
  async evaluateAll(fn, arg) {
    return this._frame._t.evaluate(
      new Function('spec', 'arg', `const r = (${RESOLVE})(spec); return (${fn.toString()})(r ? [...r] : [], arg);`),
      { ...this._spec, all: true },
      arg,
    );
  }
  inputValue() { return this._read((el) => el.value); }
  getAttribute(name) { return this._read((el, n) => el.getAttribute(n), name); }
  isChecked() { return this._read((el) => el.checked); }
  isVisible() { return this._run((el, _, visible) => visible(el)); }

  async boundingBox() {
    const h = await this._handle();
    return h.boundingBox();
  }

  async evaluate(fn, arg) {
    const h = await this._handle();
    return h.evaluate(fn, arg);
  }

  async focus() {
    await this._read((el) => el.focus());
  }

  /**
   * Like Playwright's fill: text fields get their content selected and replaced through
   * execCommand('insertText') (a real edit: input fires, and change fires on Enter or blur);
   * range, date and colour inputs get their value set, then input and change.
   */
  async fill(value) {
    await this.waitFor({ state: 'visible' });
    const how = await this._run(
      (el, [v, setTypes]) => {
        const tag = el.tagName.toLowerCase();
        if (tag === 'input' && setTypes.includes(el.type)) {
          el.focus();
          el.value = v;
          el.dispatchEvent(new Event('input', { bubbles: true }));
          el.dispatchEvent(new Event('change', { bubbles: true }));
          return 'set';
        }
        if (tag !== 'input' && tag !== 'textarea' && !el.isContentEditable) return `cannot fill a <${tag}>`;
        el.focus();
        el.select?.();
        const doc = el.ownerDocument;
        if (v === '') {
          if (el.value !== '') doc.execCommand('delete');
        } else if (!doc.execCommand('insertText', false, v)) {
          return 'execCommand refused';
        }
        return el.value === v ? 'typed' : `value is ${JSON.stringify(el.value.slice(0, 80))}`;
      },
      [value, SET_VALUE_TYPES],
    );
    if (how !== 'set' && how !== 'typed') throw new Error(`fill(${JSON.stringify(this._spec.sel)}): ${how}`);
  }

  async press(key) {
    await this.focus();
    await this._page.keyboard.press(key);
  }

  async click() {
    const h = await this._handle({ visible: true });
    await h.click();
  }

  async tap() {
    const h = await this._handle({ visible: true });
    await h.tap();
  }

  async check() {
    if (!(await this.isChecked())) await this.click();
    if (!(await this.isChecked())) throw new Error(`check(${this._spec.sel}): still unchecked after a click`);
  }

  async uncheck() {
    if (await this.isChecked()) await this.click();
    if (await this.isChecked()) throw new Error(`uncheck(${this._spec.sel}): still checked after a click`);
  }

  async selectOption(value) {
    const ok = await this._read((el, v) => {
      if (![...el.options].some((o) => o.value === v)) return false;
      el.focus();
      el.value = v;
      el.dispatchEvent(new Event('input', { bubbles: true }));
      el.dispatchEvent(new Event('change', { bubbles: true }));
      return true;
    }, value);
    if (!ok) throw new Error(`selectOption(${this._spec.sel}): no option ${value}`);
    return [value];
  }

  async scrollIntoViewIfNeeded() {
    await this._read((el) => el.scrollIntoView({ block: 'center', inline: 'center' }));
  }
}

// Playwright key names that puppeteer's BiDi keyboard spells differently.
const KEY_NAMES = { Space: ' ' };

/** Playwright's "Shift+Tab" chords and key names on top of puppeteer's keyboard. */
function chordKeyboard(kb) {
  return {
    async press(combo, options) {
      const keys = combo === '+' ? ['+'] : combo.split('+');
      const last = keys.pop();
      const key = KEY_NAMES[last] ?? last;
      for (const m of keys) await kb.down(m);
      await kb.press(key, options);
      for (const m of keys.reverse()) await kb.up(m);
    },
    down: (k) => kb.down(KEY_NAMES[k] ?? k),
    up: (k) => kb.up(KEY_NAMES[k] ?? k),
    type: (text, options) => kb.type(text, options),
    insertText: (text) => kb.sendCharacter(text),
  };
}

/** A Playwright-shaped page over a puppeteer Firefox page. */
export class FirefoxPage extends FrameLike {
  constructor(page, viewport) {
    super(page);
    this._isPage = true;
    this._frames = new WeakMap();
    this._viewport = viewport;
    this.keyboard = chordKeyboard(page.keyboard);
    this.mouse = page.mouse;
    this.touchscreen = page.touchscreen;
    this.request = {
      async get(url) {
        const res = await fetch(url);
        const body = Buffer.from(await res.arrayBuffer());
        return { status: () => res.status, ok: () => res.ok, body: async () => body, headers: () => Object.fromEntries(res.headers) };
      },
    };
    this._frames.set(page.mainFrame(), this);
    // Anything not in the subset fails loudly, naming itself, instead of "is not a function".
    return new Proxy(this, {
      get(target, key, receiver) {
        if (key in target || typeof key === 'symbol' || key === 'then') return Reflect.get(target, key, receiver);
        throw new Error(`page.${String(key)} is not in the harness's Firefox subset (tests/e2e/firefox.mjs)`);
      },
    });
  }

  _wrapFrame(frame) {
    if (!frame) return null;
    let w = this._frames.get(frame);
    if (!w) {
      w = new FrameLike(frame, this);
      w.url = () => frame.url();
      this._frames.set(frame, w);
    }
    return w;
  }

  frames() { return this._t.frames().map((f) => this._wrapFrame(f)); }
  mainFrame() { return this._wrapFrame(this._t.mainFrame()); }
  // After a same-document history step puppeteer's url() is stale: _traverse remembers the URL.
  url() { return this._urlAfterTraverse ?? this._t.url(); }
  goto(url, options) {
    this._urlAfterTraverse = null;
    return this._t.goto(url, options);
  }
  goBack() { return this._traverse(-1); }
  goForward() { return this._traverse(1); }

  /**
   * history.go(delta), then waits until the URL has changed and the document is complete.
   * (puppeteer's goBack waits for a navigation event that a same-document step never sends.)
   */
  async _traverse(delta) {
    const before = await this._t.evaluate(() => location.href);
    await this._t.evaluate((d) => history.go(d), delta);
    const started = Date.now();
    for (;;) {
      await sleep(30);
      const now = await this._t.evaluate(() => (document.readyState === 'complete' ? location.href : null)).catch(() => null);
      if (now && now !== before) {
        this._urlAfterTraverse = now;
        return null;
      }
      if (Date.now() - started > 30_000) throw new Error(`history.go(${delta}) did not leave ${before} within 30 s`);
    }
  }
  viewportSize() { return { ...this._viewport }; }

  async setViewportSize({ width, height }) {
    this._viewport = { ...this._viewport, width, height };
    await this._t.setViewport({ width, height, deviceScaleFactor: this._viewport.deviceScaleFactor ?? 1 });
  }

  /**
   * `waitForEvent('download')`: WebDriver BiDi in Firefox ESR reports no downloads to puppeteer, so
   * the page's own route is watched instead: every file the page offers goes through an
   * <a download> on a blob: URL (www/js/common/export.js `download`), whose click an init script
   * records with the blob's bytes. The event carries Playwright's suggestedFilename() and path().
   * What this checks is the file the page made; the browser's save dialog is Chromium's test.
   */
  async waitForEvent(event, { timeout = 30_000 } = {}) {
    if (event !== 'download') throw new Error(`page.waitForEvent('${event}') is not in the harness's Firefox subset (tests/e2e/firefox.mjs)`);
    const seen = await this._t.evaluate(() => (window.__harnessDownloads ??= []).length);
    const started = Date.now();
    for (;;) {
      const got = await this._t.evaluate((n) => window.__harnessDownloads?.[n] ?? null, seen);
      if (got && got.base64 !== null) {
        const { writeFileSync, mkdtempSync } = await import('node:fs');
        const { join } = await import('node:path');
        const { tmpdir } = await import('node:os');
        const path = join(mkdtempSync(join(tmpdir(), 'ff-download-')), got.name || 'download');
        writeFileSync(path, Buffer.from(got.base64, 'base64'));
        return { suggestedFilename: () => got.name, path: async () => path };
      }
      if (Date.now() - started > timeout) throw new Error(`no download within ${timeout} ms`);
      await sleep(30);
    }
  }

  async emulateMedia() {
    throw new Error('emulateMedia is Chromium-only in this harness (WebDriver BiDi in Firefox ESR has no media emulation); register the check for chromium only and say why');
  }

  screenshot(options) {
    return this._t.screenshot(options);
  }

  /**
   * console messages come with Playwright's type names ('warning', not 'warn'). Firefox reports a
   * CSP violation or a CORS refusal as a page error; Chromium logs them to the console,
   * so here it goes to the console handlers as an error (and allowConsole applies alike).
   */
  on(event, handler) {
    // The browser's own security messages (CSP, CORS), not exceptions thrown by page code.
    const isCsp = (err) => /^(Content[- ]Security[- ]Policy|Cross-Origin Request Blocked|Loading (module|failed for the module)|The resource from)/i.test(err?.message ?? '');
    if (event === 'console') {
      this._t.on('console', (msg) => handler({
        type: () => (msg.type() === 'warn' ? 'warning' : msg.type()),
        text: () => msg.text(),
        location: () => msg.location(),
      }));
      this._t.on('pageerror', (err) => {
        if (isCsp(err)) handler({ type: () => 'error', text: () => err.message, location: () => ({}) });
      });
    } else if (event === 'pageerror') {
      this._t.on('pageerror', (err) => {
        if (!isCsp(err)) handler(err);
      });
    } else if (event === 'dialog' || event === 'request' || event === 'response') {
      this._t.on(event, handler);
    } else if (event === 'crash') {
      this._t.on('error', handler);
    } else {
      throw new Error(`page.on('${event}') is not in the harness's Firefox subset`);
    }
    return this;
  }

  close() {
    return this._t.close();
  }
}
