// <depthprod-plot>: a live, self-contained plot of one depth product, for any page.
//
//   <script type="module" src="https://your.host/depthprod/depthprod-plot.js"></script>
//   <depthprod-plot family="scaled" a="1" b="1" q="1" n="1e6"></depthprod-plot>
//
// Attributes (all optional; changes are observed and redrawn):
//   family   unscaled | scaled | harmonic | sqrt-scaled            (default scaled)
//   a, b     the coefficients A and B of 1 + A a_l + B a_l²        (default 1, 1)
//   c, q     the variance σ_l² = c · l^q                           (default 1, 1)
//   n        the depth: 1e6, 1000000, 10^6 or inf                  (default 1e6)
//   label    the plot's accessible name (default: a description of the parameters)
//
// It loads the wasm core relative to its own URL (pkg/ next to this file), so host this file with
// the rest of www/. Everything lives in a shadow root with its own styles: the page's CSS does not
// reach in (the inner box resets inherited font and colour) and these styles do not leak out.
// Theme it from outside with the custom properties --depthprod-bg, --depthprod-ink, --depthprod-line.
// Every number comes from the core (Product.evaluate / curve, depthGrid); attribute text is only
// ever set as text, never parsed as HTML.

import init, { Product, depthGrid } from './pkg/depthprod_wasm.js';
import { certifiedText, depthLabel, enclosureText } from './js/format.js';

const FAMILIES = {
  unscaled: { sym: 'P', colour: ['#d55e00', '#f07a2a'], name: 'unscaled product, a_l = 1/σ_l' },
  scaled: { sym: 'Q', colour: ['#0072b2', '#4aa8ea'], name: 'scaled product, a_l = 1/(l σ_l)' },
  harmonic: { sym: 'H', colour: ['#cc79a7', '#e09bc2'], name: 'harmonic product, a_l = 1/l' },
  'sqrt-scaled': { sym: 'S', colour: ['#009e73', '#2cc49a'], name: 'sqrt-scaled product, a_l = 1/(√l σ_l)' },
};
const DEFAULTS = { family: 'scaled', a: '1', b: '1', c: '1', q: '1', n: '1e6' };
const POINTS = 240;
const SUPER = { '-': '⁻', 0: '⁰', 1: '¹', 2: '²', 3: '³', 4: '⁴', 5: '⁵', 6: '⁶', 7: '⁷', 8: '⁸', 9: '⁹' };

let ready = null;
/** One wasm instance per page, however many elements. */
function core() {
  ready ??= init().then(() => null, (e) => `the WebAssembly core could not be loaded (${e?.message ?? e})`);
  return ready;
}

const CSS = `
:host { display: block; contain: content; min-height: 220px; }
:host([hidden]) { display: none; }
.box {
  all: initial; box-sizing: border-box; display: flex; flex-direction: column; height: 100%; min-height: inherit;
  font: 13px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  color: var(--depthprod-ink, #16181d); background: var(--depthprod-bg, #ffffff);
  border: 1px solid var(--depthprod-line, #dde1e8); border-radius: 8px; padding: 8px 10px;
  font-variant-numeric: tabular-nums; text-align: left; letter-spacing: normal; word-spacing: normal;
}
@media (prefers-color-scheme: dark) {
  .box { color: var(--depthprod-ink, #e7e9ee); background: var(--depthprod-bg, #171a20); border-color: var(--depthprod-line, #2c313b); }
}
.head { display: flex; flex-wrap: wrap; gap: 2px 10px; align-items: baseline; }
.what { font-weight: 600; }
.params { opacity: .72; font-size: 12px; }
.num { font: 600 15px/1.35 ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; margin: 2px 0 4px; overflow-wrap: anywhere; }
.enc { font-weight: 400; font-size: 11px; opacity: .72; }
.plot { position: relative; flex: 1 1 auto; min-height: 150px; }
canvas { position: absolute; inset: 0; width: 100%; height: 100%; display: block; }
.err { color: #b3261e; font-size: 12px; margin-top: 2px; overflow-wrap: anywhere; }
.err:empty { display: none; }
@media (prefers-color-scheme: dark) { .err { color: #ff8a80; } }
`;

let sheet = null;
function styles(root) {
  // A constructed sheet where supported (no inline <style>, so a strict CSP on the host page is fine).
  try {
    sheet ??= new CSSStyleSheet();
    if (!sheet.cssRules.length) sheet.replaceSync(CSS);
    root.adoptedStyleSheets = [sheet];
  } catch {
    const style = document.createElement('style');
    style.textContent = CSS;
    root.append(style);
  }
}

function el(tag, cls, parent) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  parent?.append(e);
  return e;
}

/** A number attribute: plain decimal or e-notation; anything else is refused with a message. */
function numberAttr(name, text) {
  const t = String(text).trim();
  if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(t)) throw new Error(`${name} = “${t.slice(0, 40)}” is not a number`);
  return Number(t);
}

/** 10⁶-style label of a power of ten (tick labels: text, not arithmetic on data). */
function decade(k) {
  return k === 0 ? '1' : k === 1 ? '10' : `10${String(k).replace(/./g, (ch) => SUPER[ch] ?? ch)}`;
}

export class DepthprodPlot extends HTMLElement {
  static get observedAttributes() {
    return ['family', 'a', 'b', 'c', 'q', 'n', 'label'];
  }

  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    styles(root);
    const box = el('div', 'box', root);
    box.setAttribute('part', 'box');
    const head = el('div', 'head', box);
    this.whatEl = el('span', 'what', head);
    this.paramsEl = el('span', 'params', head);
    this.numEl = el('div', 'num', box);
    this.numEl.setAttribute('part', 'value');
    this.numEl.dataset.testid = 'value';
    this.numEl.setAttribute('aria-live', 'polite');
    this.valEl = el('span', 'val', this.numEl);
    this.encEl = el('span', 'enc', this.numEl);
    const plot = el('div', 'plot', box);
    this.canvas = el('canvas', '', plot);
    this.canvas.setAttribute('role', 'img');
    this.errEl = el('div', 'err', box);
    this.errEl.setAttribute('role', 'alert');
    this.data = null; // { xs, ys, limit, nMax }
    this.product = null;
    this.queued = false;
    this.ro = new ResizeObserver(() => this.draw());
    this.dark = matchMedia('(prefers-color-scheme: dark)');
    this.onScheme = () => this.draw();
  }

  connectedCallback() {
    this.ro.observe(this.canvas);
    this.dark.addEventListener('change', this.onScheme);
    this.schedule();
  }

  disconnectedCallback() {
    this.ro.disconnect();
    this.dark.removeEventListener('change', this.onScheme);
    this.product?.free();
    this.product = null;
  }

  attributeChangedCallback() {
    this.schedule();
  }

  /** Coalesces attribute changes (several set in a row) into one evaluation. */
  schedule() {
    if (this.queued) return;
    this.queued = true;
    queueMicrotask(() => {
      this.queued = false;
      if (this.isConnected) this.update();
    });
  }

  attr(name) {
    const v = this.getAttribute(name);
    return v === null || v.trim() === '' ? DEFAULTS[name] : v.trim();
  }

  async update() {
    const problem = await core();
    if (problem) return this.fail(problem);
    const family = this.attr('family');
    const fam = FAMILIES[family];
    try {
      if (!fam) throw new Error(`family = “${family.slice(0, 40)}”: use unscaled, scaled, harmonic or sqrt-scaled`);
      const [a, b, c, q] = ['a', 'b', 'c', 'q'].map((k) => numberAttr(k, this.attr(k)));
      const nText = this.attr('n');
      const product = new Product({ family, a, b, variance: { kind: 'power', c, q } });
      let ev;
      try {
        ev = product.evaluate(nText);
      } catch (e) {
        product.free();
        throw e;
      }
      this.product?.free();
      this.product = product;
      const nMax = ev.n ?? 1e18; // N = ∞: the plot runs to the largest supported depth
      const xs = depthGrid(nMax, POINTS);
      const ys = product.curve('log-product', xs);
      this.data = { xs, ys, limit: ev.limit?.value ?? null, nMax };

      const at = ev.n === null ? 'N → ∞' : `N = ${depthLabel(ev.n)}`;
      this.whatEl.textContent = `log ${fam.sym}_${ev.n === null ? '∞' : 'N'}, ${fam.name.split(',')[0]}`;
      this.paramsEl.textContent = `A = ${a}, B = ${b}, σ² = c·l^q with c = ${c}, q = ${q}; ${at}`;
      const shown = ev.n === null ? ev.limit : ev.log_product;
      const t = shown ? certifiedText(shown.value, shown.lo, shown.hi) : null;
      if (t) {
        this.valEl.textContent = t.text;
        this.encEl.textContent = t.digits >= 17 ? ' (exact)' : ` ∈ ${enclosureText(shown.lo, shown.hi, t.digits)}`;
      } else if (ev.divergent) {
        this.valEl.textContent = 'Infinity';
        this.encEl.textContent = '  the product diverges';
      } else {
        this.valEl.textContent = '—';
        this.encEl.textContent = '';
      }
      const label = this.getAttribute('label');
      this.canvas.setAttribute('aria-label', label || `Plot of log ${fam.sym}_N against depth N from 1 to ${depthLabel(nMax)} (log axis), ${fam.name}, A = ${a}, B = ${b}, c = ${c}, q = ${q}`);
      this.errEl.textContent = '';
      this.draw();
      this.dispatchEvent(new CustomEvent('depthprod-update', { detail: { family, n: ev.n, logProduct: ev.log_product, limit: ev.limit } }));
    } catch (e) {
      this.fail(e?.message ?? String(e));
    }
  }

  fail(message) {
    // The last good plot stays; the message says what was refused.
    this.errEl.textContent = message;
    if (!this.data) this.valEl.textContent = '—';
  }

  draw() {
    const cv = this.canvas;
    const r = cv.getBoundingClientRect();
    const dpr = Math.max(1, window.devicePixelRatio || 1);
    const W = Math.max(1, Math.round(r.width));
    const H = Math.max(1, Math.round(r.height));
    if (cv.width !== Math.round(W * dpr) || cv.height !== Math.round(H * dpr)) {
      cv.width = Math.round(W * dpr);
      cv.height = Math.round(H * dpr);
    }
    const ctx = cv.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, W, H);
    const d = this.data;
    if (!d || W < 40 || H < 40) return;
    const dark = this.dark.matches;
    const cs = getComputedStyle(this.numEl);
    const ink = cs.color;
    const grid = dark ? 'rgba(255,255,255,.09)' : 'rgba(0,0,0,.08)';
    const fam = FAMILIES[this.attr('family')] ?? FAMILIES.scaled;
    const line = fam.colour[dark ? 1 : 0];

    // Pixel mapping: log10 of depth across, linear log-product up.
    let lo = Infinity;
    let hi = -Infinity;
    for (let i = 0; i < d.ys.length; i++) {
      const y = d.ys[i];
      if (Number.isFinite(y)) {
        if (y < lo) lo = y;
        if (y > hi) hi = y;
      }
    }
    if (d.limit !== null && Number.isFinite(d.limit)) {
      lo = Math.min(lo, d.limit);
      hi = Math.max(hi, d.limit);
    }
    if (!Number.isFinite(lo)) return;
    if (hi - lo < 1e-12) {
      hi += 0.5;
      lo -= 0.5;
    }
    const ticks = niceTicks(lo, hi, H < 180 ? 3 : 5);
    lo = Math.min(lo, ticks[0]);
    hi = Math.max(hi, ticks[ticks.length - 1]);
    ctx.font = '11px system-ui, sans-serif';
    const labelW = Math.max(...ticks.map((t) => ctx.measureText(tickText(t)).width));
    const L = Math.ceil(labelW) + 10;
    const T = 6;
    const R = W - 14;
    const B = H - 20;
    const x1 = Math.log10(d.nMax) || 1;
    const px = (n) => L + (Math.log10(n) / x1) * (R - L);
    const py = (y) => B - ((y - lo) / (hi - lo)) * (B - T);

    ctx.lineWidth = 1;
    ctx.strokeStyle = grid;
    ctx.fillStyle = ink;
    ctx.globalAlpha = 1;
    ctx.textAlign = 'right';
    ctx.textBaseline = 'middle';
    for (const t of ticks) {
      const y = Math.round(py(t)) + 0.5;
      ctx.beginPath();
      ctx.moveTo(L, y);
      ctx.lineTo(R, y);
      ctx.stroke();
      ctx.globalAlpha = 0.75;
      ctx.fillText(tickText(t), L - 5, y);
      ctx.globalAlpha = 1;
    }
    const decades = Math.round(x1);
    const step = Math.max(1, Math.ceil(decades / Math.max(2, Math.floor((R - L) / 46))));
    ctx.textAlign = 'center';
    ctx.textBaseline = 'top';
    for (let k = 0; k <= decades; k += step) {
      const x = Math.round(px(10 ** k)) + 0.5;
      ctx.beginPath();
      ctx.moveTo(x, T);
      ctx.lineTo(x, B);
      ctx.stroke();
      ctx.globalAlpha = 0.75;
      ctx.fillText(decade(k), x, B + 4);
      ctx.globalAlpha = 1;
    }
    ctx.strokeStyle = ink;
    ctx.globalAlpha = 0.45;
    ctx.strokeRect(L + 0.5, T + 0.5, R - L, B - T);
    ctx.globalAlpha = 1;

    if (d.limit !== null && Number.isFinite(d.limit)) {
      ctx.setLineDash([6, 4]);
      ctx.strokeStyle = line;
      ctx.lineWidth = 1.3;
      ctx.beginPath();
      ctx.moveTo(L, py(d.limit));
      ctx.lineTo(R, py(d.limit));
      ctx.stroke();
      ctx.setLineDash([]);
    }
    ctx.strokeStyle = line;
    ctx.lineWidth = 2.2;
    ctx.lineJoin = 'round';
    ctx.beginPath();
    let pen = false;
    for (let i = 0; i < d.xs.length; i++) {
      const y = d.ys[i];
      if (!Number.isFinite(y)) {
        pen = false;
        continue;
      }
      const X = px(d.xs[i]);
      const Y = py(y);
      if (pen) ctx.lineTo(X, Y);
      else ctx.moveTo(X, Y);
      pen = true;
    }
    ctx.stroke();
  }
}

/** Round tick positions covering [lo, hi] (tick placement, not mathematics of the products). */
function niceTicks(lo, hi, count) {
  const raw = (hi - lo) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const out = [];
  for (let t = Math.floor(lo / step) * step; t <= hi + step * 1e-9; t += step) out.push(Number(t.toPrecision(12)));
  if (out[out.length - 1] < hi) out.push(Number((out[out.length - 1] + step).toPrecision(12)));
  return out;
}

function tickText(t) {
  return Math.abs(t) >= 1e5 ? t.toExponential(1).replace('e+', 'e') : String(t);
}

if (!customElements.get('depthprod-plot')) customElements.define('depthprod-plot', DepthprodPlot);
