// The only door to the WebAssembly core. Every number the page shows comes through here.
// Calls never throw: each returns { ok: true, value } or { ok: false, error: message }. When the
// core cannot load, initCore() says why in one sentence a host author can act on.

let wasm = null;
let initError = null;
let initNotice = null;

// Both URLs are relative to this file, not to the page, so the core loads from any host page (an
// iframe, a blog post using <depthprod-plot>, a site under a sub-path). The import specifier stays
// a literal: scripts/bundle.mjs swaps it for the glue with the wasm inlined.
const WASM_PATH = '../../pkg/depthprod_wasm_bg.wasm';
const GLUE_PATH = '../../pkg/depthprod_wasm.js';

/**
 * Loads ../pkg/depthprod_wasm.js and instantiates the wasm. Resolves to null, or to one sentence
 * that says what went wrong and how the host author fixes it (see docs/EMBED.md).
 * A wasm served with the wrong MIME type still loads (from its bytes); `coreNotice()` says so.
 */
export function initCore() {
  // One load per page, whoever asks first (js/explorer/boot.js starts it before the page's modules arrive).
  starting ??= loadCore();
  return starting;
}
let starting = null;

async function loadCore() {
  const violations = [];
  const onViolation = (e) => violations.push({ directive: e.effectiveDirective || e.violatedDirective || '', blocked: e.blockedURI || '' });
  document.addEventListener('securitypolicyviolation', onViolation);
  try {
    // The single-file bundle has no URL of its own: its init() takes the inlined bytes.
    const here = import.meta.url;
    const inline = !/^(https?|file):/.test(here);
    // The wasm's fetch and compile do not need the glue: they start now and run while the glue
    // loads (a warm load spent 30-120 ms waiting for the glue, then 40-65 ms on the wasm).
    const compiling = inline ? null : fetchAndCompile(new URL(WASM_PATH, here).href, violations);
    let mod;
    try {
      mod = await import('../../pkg/depthprod_wasm.js');
    } catch (e) {
      initError = await explainFetchFailure(GLUE_PATH, violations, e);
      return initError;
    }
    if (inline) {
      await mod.default();
    } else {
      const compiled = await compiling;
      if (compiled.error) {
        initError = compiled.error;
        return initError;
      }
      try {
        await mod.default({ module_or_path: compiled.module });
      } catch (e) {
        initError = wasmStartError(e, violations);
        return initError;
      }
      initNotice = compiled.notice;
    }
    wasm = mod;
    return null;
  } catch (e) {
    initError = `The WebAssembly core could not be loaded (${messageOf(e)}).`;
    return initError;
  } finally {
    document.removeEventListener('securitypolicyviolation', onViolation);
  }
}

/**
 * Fetches and compiles the wasm at `url`: { module, notice } or { error } (one sentence), never a
 * rejection. A wasm served with the wrong MIME type is compiled from its bytes, with a notice.
 */
async function fetchAndCompile(url, violations) {
  try {
    let res;
    try {
      res = await fetch(url);
    } catch (e) {
      return { error: await explainFetchFailure(WASM_PATH, violations, e) };
    }
    if (!res.ok) return { error: notFound(url, res.status) };
    const type = (res.headers.get('content-type') || '').split(';')[0].trim();
    try {
      if (type === 'application/wasm') return { module: await WebAssembly.compileStreaming(res), notice: null };
      // compileStreaming refuses other types; compiling from the bytes works everywhere.
      return {
        module: await WebAssembly.compile(await res.arrayBuffer()),
        notice: `${url} was served as “${type || 'no type'}” instead of application/wasm, so it was compiled from its bytes (slower): configure the server to send application/wasm for .wasm files.`,
      };
    } catch (e) {
      return { error: wasmStartError(e, violations) };
    }
  } catch (e) {
    return { error: `The WebAssembly core could not be loaded (${messageOf(e)}).` };
  }
}

/** The sentence for a wasm that was fetched but could not be compiled or started. */
function wasmStartError(e, violations) {
  return isWasmCspBlock(e, violations)
    ? 'This page’s Content-Security-Policy blocks WebAssembly: add \'wasm-unsafe-eval\' to its script-src (see docs/EMBED.md).'
    : `The WebAssembly core could not be started (${messageOf(e)}).`;
}

/** A second sentence for a core that loaded in a degraded way (wrong MIME type), or null. */
export const coreNotice = () => initNotice;

function isWasmCspBlock(e, violations) {
  if (violations.some((v) => /^script-src/.test(v.directive) && /wasm-eval|^eval$|^$/.test(v.blocked))) return true;
  return /Content.Security.Policy|wasm-unsafe-eval|unsafe-eval|blocked by CSP/i.test(messageOf(e));
}

function notFound(url, status) {
  return status === 404
    ? `${url} was not found (HTTP 404): publish www/pkg/ beside www/js/ (run “npm run build” to produce it), and if the site lives under a sub-path make sure the script’s URL includes it.`
    : `${url} could not be loaded (HTTP ${status}).`;
}

/**
 * Why a request for `path` (relative to this file) failed: a CSP connect-src / script-src block,
 * a cross-origin answer without CORS headers, an HTTP error (404: the URL it tried), or no server.
 */
async function explainFetchFailure(path, violations, err) {
  const url = new URL(path, import.meta.url).href;
  const { origin } = new URL(url);
  // The violation event is queued as a task: give it a moment to arrive.
  await new Promise((r) => setTimeout(r, 0));
  const blocked = violations.find((v) => v.blocked && url.startsWith(v.blocked.replace(/\/$/, '')) || v.blocked === origin);
  if (blocked && /^connect-src|^default-src/.test(blocked.directive)) {
    return `This page’s Content-Security-Policy does not allow fetching ${url}: add ${origin === location.origin ? "'self'" : origin} to its connect-src (see docs/EMBED.md).`;
  }
  if (blocked && /^script-src/.test(blocked.directive)) {
    return `This page’s Content-Security-Policy does not allow the script ${url}: add ${origin === location.origin ? "'self'" : origin} to its script-src (see docs/EMBED.md).`;
  }
  let res = null;
  try {
    res = await fetch(url, { method: 'HEAD', cache: 'no-store' });
  } catch {
    res = null;
  }
  if (res && !res.ok) return notFound(url, res.status);
  if (origin !== location.origin) {
    // A cross-origin fetch that fails while the server is there is a missing CORS header.
    let reachable = false;
    try {
      await fetch(url, { method: 'HEAD', mode: 'no-cors', cache: 'no-store' });
      reachable = true;
    } catch {
      reachable = false;
    }
    if (reachable) return `${origin} did not allow this page (${location.origin}) to load ${url}: its server must send Access-Control-Allow-Origin for depthprod’s files (see docs/EMBED.md).`;
  }
  return `The WebAssembly core could not be loaded from ${url} (${messageOf(err)}).`;
}

export const coreReady = () => wasm !== null;

/** Message text of anything thrown by wasm-bindgen or JS. */
export function messageOf(e) {
  if (e == null) return 'unknown error';
  if (typeof e === 'string') return e;
  if (typeof e.message === 'string' && e.message) return e.message;
  try {
    return String(e);
  } catch {
    return 'unknown error';
  }
}

function call(name, ...args) {
  if (!wasm) return { ok: false, error: initError || 'the WebAssembly core is still loading' };
  const fn = wasm[name];
  if (typeof fn !== 'function') return { ok: false, error: `the core does not provide ${name}()` };
  try {
    return { ok: true, value: fn(...args) };
  } catch (e) {
    return { ok: false, error: messageOf(e) };
  }
}

/** Whether the core exports a function (used to prefer dedicated curve kinds when they exist). */
export const has = (name) => !!wasm && typeof wasm[name] === 'function';

export const evaluate = (params) => call('evaluate', params);

/**
 * A prepared product (`new Plan(params)` in wasm, named like the core's `Plan`): validation and preparation happen once, then
 * `evaluateAt(n)` and `curveOf(kind, ns)` reuse them. Returns { ok, value } like every call here;
 * the caller frees it (`value.free()`) when it is evicted.
 */
export function product(params) {
  if (!wasm) return { ok: false, error: initError || 'the WebAssembly core is still loading' };
  try {
    return { ok: true, value: new wasm.Plan(params) };
  } catch (e) {
    return { ok: false, error: messageOf(e) };
  }
}

/** `prepared.evaluate(n)` as { ok, value }. */
export function evaluateAt(prepared, n) {
  try {
    return { ok: true, value: prepared.evaluate(n) };
  } catch (e) {
    return { ok: false, error: messageOf(e) };
  }
}

/**
 * `prepared.curveChecked(kind, ns)` as { ok, value, worst, at }: the values, and for the certified
 * kinds (log-product, tail) the widest enclosure among them (relative width, the 1e-12 goal's
 * measure) and its depth; `worst` is null for reference curves.
 */
export function curveOf(prepared, kind, ns) {
  try {
    const r = prepared.curveChecked(kind, ns);
    return { ok: true, value: r.values, worst: r.worst_width, at: r.worst_at };
  } catch (e) {
    return { ok: false, error: messageOf(e) };
  }
}

/** `prepared.curveBand(kind, ns)` as { ok, value: { lo, hi } }: every point's enclosure. */
export function curveBandOf(prepared, kind, ns) {
  try {
    const both = prepared.curveBand(kind, ns);
    return { ok: true, value: { lo: both.subarray(0, ns.length), hi: both.subarray(ns.length) } };
  } catch (e) {
    return { ok: false, error: messageOf(e) };
  }
}
export const curve = (params, kind, ns) => call('curve', params, kind, ns);
export const depthGrid = (nMax, count) => call('depthGrid', nMax, count);
export const parseList = (text) => call('parseList', text);
export const closedForms = (args) => call('closedForms', args);
export const rotation = (theta, r, n) => call('rotation', theta, r, n);
export const fitPowerLaw = (values) => call('fitPowerLaw', values);
