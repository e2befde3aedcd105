// The only door to the WebAssembly core. Every number the page shows comes through here.
// Calls never throw: each returns { ok: true, value } or { ok: false, error: message }.

let wasm = null;
let initError = null;

/** Loads ../pkg/depthprod_wasm.js and instantiates it. Resolves to null or an error message. */
export async function initCore() {
  try {
    const mod = await import('../pkg/depthprod_wasm.js');
    await mod.default();
    wasm = mod;
    return null;
  } catch (e) {
    initError = `The WebAssembly core could not be loaded (${messageOf(e)}). Run “npm run build” to produce www/pkg.`;
    return initError;
  }
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
 * A prepared product (`new Product(params)` in wasm): validation and preparation happen once, then
 * `evaluateAt(n)` and `curveOf(kind, ns)` reuse them. Returns { ok, value } like every call here;
 * the caller frees it (`value.free()`) when it is evicted.
 */
export function product(params) {
  if (!wasm) return { ok: false, error: initError || 'the WebAssembly core is still loading' };
  try {
    return { ok: true, value: new wasm.Product(params) };
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

/** `prepared.curve(kind, ns)` as { ok, value }. */
export function curveOf(prepared, kind, ns) {
  try {
    return { ok: true, value: prepared.curve(kind, ns) };
  } catch (e) {
    return { ok: false, error: messageOf(e) };
  }
}
export const curve = (params, kind, ns) => call('curve', params, kind, ns);
export const depthGrid = (nMax, count) => call('depthGrid', nMax, count);
export const parseList = (text) => call('parseList', text);
export const closedForms = (args) => call('closedForms', args);
export const rotation = (theta, r, n) => call('rotation', theta, r, n);
