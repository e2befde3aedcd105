// <depthprod-plot>: a live, self-contained plot of one depth product, for any page.
//
//   <script type="module" src="https://your.host/depthprod/depthprod-plot.js"></script>
//   <depthprod-plot family="scaled" a="1" b="1" q="1" n="1e6">Loading the depthprod plot…</depthprod-plot>
//
// Attributes (all optional; changes are observed and redrawn):
//   family    unscaled | scaled | harmonic | sqrt-scaled             (default scaled)
//   kind      product | remainder | tail: log P_N, log P_N minus its leading terms (divergent
//             families), or the certified tail bound Σ_{l>N} (convergent families)  (default product)
//   a, b      the coefficients A and B of 1 + A a_l + B a_l²         (default 1, 1)
//   variance  power | exp | list                                     (default power)
//   c, q      power: σ_l² = c · l^q; exp: σ_l² = c · e^(λ l) with lambda  (default 1, 1; lambda 0.1)
//   list      measured σ_l² values, comma- or space-separated; or the text of a child element
//             marked data-list (N defaults to the list's length)
//   n         the depth: 1e6, 1000000, 10^6 or inf                   (default 1e6)
//   theme     light | dark; otherwise the host page's prefers-color-scheme
//   label     the plot's accessible name (default: a description of the parameters)
//
// Content written inside the element (a sentence, a link to the explorer) shows until the element
// upgrades, and stays if the script never loads. The wasm is loaded through js/common/core.js, relative to
// that file's own URL (pkg/ next to js/), so host this file with the rest of www/; if the core cannot
// load, the element shows core.js's one-sentence explanation. It draws with the page's own plot code
// (js/common/plot.js) and formats with js/common/format.js. Everything lives in a shadow root with its own styles:
// the page's CSS does not reach in and these styles do not leak out. Theme it from outside with the
// custom properties --depthprod-bg, --depthprod-ink, --depthprod-line. Attribute text is only ever
// set as text, never parsed as HTML.

import * as core from './js/common/core.js';
import { Plot, refreshTheme } from './js/common/plot.js';
import { certifiedText, depthLabel, enclosureText } from './js/common/format.js';

const FAMILIES = {
  unscaled: { sym: 'P', colour: '--c-unscaled', name: 'unscaled product, a_l = 1/σ_l' },
  scaled: { sym: 'Q', colour: '--c-scaled', name: 'scaled product, a_l = 1/(l σ_l)' },
  harmonic: { sym: 'H', colour: '--c-harmonic', name: 'harmonic product, a_l = 1/l' },
  'sqrt-scaled': { sym: 'S', colour: '--c-sqrt-scaled', name: 'sqrt-scaled product, a_l = 1/(√l σ_l)' },
};
const KINDS = ['product', 'remainder', 'tail'];
const DEFAULTS = { family: 'scaled', kind: 'product', a: '1', b: '1', c: '1', q: '1', lambda: '0.1', variance: 'power', n: '1e6' };
const POINTS = 240;

let ready = null;
/** One wasm instance per page, however many elements (core.js is the only door to it). */
function loadCore() {
  ready ??= core.initCore();
  return ready;
}

// The palette plot.js reads (the page's names), light and dark, on the shadow box.
const LIGHT = '--bg:#ffffff;--panel:#ffffff;--ink:#16181d;--ink-2:#4a505c;--ink-3:#5f6673;--rule:#dde1e8;--plot-bg:#ffffff;--grid:#e9ecf1;--axis:#8a909c;--c-unscaled:#d55e00;--c-scaled:#0072b2;--c-harmonic:#cc79a7;--c-sqrt-scaled:#009e73;--c-neutral:#505661;--err:#b3261e;';
const DARK = '--bg:#171a20;--panel:#171a20;--ink:#e7e9ee;--ink-2:#b4bac6;--ink-3:#8c93a1;--rule:#2c313b;--plot-bg:#171a20;--grid:#242933;--axis:#7d8492;--c-unscaled:#f07a2a;--c-scaled:#4aa8ea;--c-harmonic:#e09bc2;--c-sqrt-scaled:#2cc49a;--c-neutral:#b4bac6;--err:#ff8a80;';

const CSS = `
:host { display: block; contain: content; min-height: 240px; }
:host([hidden]) { display: none; }
.box {
  all: initial; box-sizing: border-box; display: flex; flex-direction: column; height: 100%; min-height: inherit;
  ${LIGHT}
  --font: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  --mono: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace;
  font: 13px/1.4 var(--font);
  color: var(--depthprod-ink, var(--ink)); background: var(--depthprod-bg, var(--bg));
  border: 1px solid var(--depthprod-line, var(--rule)); border-radius: 8px; padding: 8px 10px;
  font-variant-numeric: tabular-nums; text-align: left; letter-spacing: normal; word-spacing: normal;
}
@media (prefers-color-scheme: dark) { :host(:not([theme="light"])) .box { ${DARK} } }
:host([theme="dark"]) .box { ${DARK} }
.head { display: flex; flex-wrap: wrap; gap: 2px 10px; align-items: baseline; }
.what { font-weight: 600; }
.params { opacity: .72; font-size: 12px; }
.num { font: 600 15px/1.35 var(--mono); margin: 2px 0 4px; overflow-wrap: anywhere; }
.enc { font-weight: 400; font-size: 11px; opacity: .72; }
.plot { position: relative; flex: 1 1 auto; min-height: 160px; }
canvas { position: absolute; inset: 0; width: 100%; height: 100%; display: block; }
canvas.overlay { pointer-events: none; }
.hover { position: absolute; top: 4px; right: 6px; font: 11px/1.3 var(--mono); background: var(--panel); border: 1px solid var(--rule); border-radius: 4px; padding: 2px 6px; pointer-events: none; }
.hover[hidden] { display: none; }
.h-row { display: flex; gap: 6px; align-items: center; }
.h-dot { width: 8px; height: 8px; border-radius: 50%; display: inline-block; }
.err { color: var(--err); font-size: 12px; margin-top: 2px; overflow-wrap: anywhere; }
.err:empty { display: none; }
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

/**
 * A number attribute, passed to the core as the decimal text written (an enclosure is for that exact
 * decimal, so q = 0.4 means 2/5); the core refuses what is no number, naming the attribute.
 */
function decimalAttr(text) {
  return String(text).trim();
}

/** plot.js's Plot, reading its palette from the element's shadow box before each frame. */
class ElementPlot extends Plot {
  draw() {
    if (this.themeEl) refreshTheme(this.themeEl);
    super.draw();
  }
}

export class DepthprodPlot extends HTMLElement {
  static get observedAttributes() {
    return ['family', 'kind', 'a', 'b', 'c', 'q', 'lambda', 'variance', 'list', 'n', 'theme', 'label'];
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
    const wrap = el('div', 'plot', box);
    this.canvas = el('canvas', '', wrap);
    this.canvas.setAttribute('role', 'img');
    this.canvas.tabIndex = 0;
    el('canvas', 'overlay', wrap).setAttribute('aria-hidden', 'true');
    const hover = el('div', 'hover', wrap);
    hover.hidden = true;
    this.errEl = el('div', 'err', box);
    this.errEl.setAttribute('role', 'alert');
    this.plot = new ElementPlot(wrap, { yLabel: 'log of the product' });
    this.plot.themeEl = box;
    this.product = null;
    this.productKey = '';
    this.drawn = false;
    this.queued = false;
    this.dark = matchMedia('(prefers-color-scheme: dark)');
    this.onScheme = () => this.plot.draw();
  }

  connectedCallback() {
    this.dark.addEventListener('change', this.onScheme);
    this.schedule();
  }

  disconnectedCallback() {
    this.dark.removeEventListener('change', this.onScheme);
    this.product?.free();
    this.product = null;
    this.productKey = '';
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

  /** The variance model from the attributes (and a data-list child): { variance, text, count }. */
  variance() {
    const model = this.attr('variance');
    if (model === 'power') {
      const [c, q] = ['c', 'q'].map((k) => decimalAttr(this.attr(k)));
      return { variance: { kind: 'power', c, q }, text: `σ² = c·l^q with c = ${c}, q = ${q}` };
    }
    if (model === 'exp') {
      const [c, lambda] = ['c', 'lambda'].map((k) => decimalAttr(this.attr(k)));
      return { variance: { kind: 'exponential', c, lambda }, text: `σ² = c·e^(λl) with c = ${c}, λ = ${lambda}` };
    }
    if (model === 'list') {
      const source = this.getAttribute('list') ?? this.querySelector('[data-list]')?.textContent ?? '';
      if (!source.trim()) throw new Error('variance = list needs a list attribute or a child element marked data-list');
      const r = core.parseList(source);
      if (!r.ok) throw new Error(`list: ${r.error}`);
      const values = Array.from(r.value);
      return { variance: { kind: 'measured', values }, text: `measured σ² (${values.length} layers)`, count: values.length };
    }
    throw new Error(`variance = “${model.slice(0, 40)}”: use power, exp or list`);
  }

  async update() {
    const problem = await loadCore();
    if (problem) return this.fail(problem);
    const family = this.attr('family');
    const kind = this.attr('kind');
    const fam = FAMILIES[family];
    try {
      if (!fam) throw new Error(`family = “${family.slice(0, 40)}”: use unscaled, scaled, harmonic or sqrt-scaled`);
      if (!KINDS.includes(kind)) throw new Error(`kind = “${kind.slice(0, 40)}”: use product, remainder or tail`);
      const [a, b] = ['a', 'b'].map((k) => decimalAttr(this.attr(k)));
      const v = this.variance();
      const nText = this.getAttribute('n')?.trim() || (v.count ? String(v.count) : DEFAULTS.n);
      const params = { family, a, b, variance: v.variance };
      const key = JSON.stringify(params);
      let product = this.product;
      if (key !== this.productKey) {
        const r = core.product(params);
        if (!r.ok) throw new Error(r.error);
        product = r.value;
      }
      const evr = core.evaluateAt(product, nText);
      if (!evr.ok) {
        if (product !== this.product) product.free();
        throw new Error(evr.error);
      }
      const ev = evr.value;
      if (product !== this.product) {
        this.product?.free();
        this.product = product;
        this.productKey = key;
      }
      const nMax = ev.n ?? 1e18; // N = ∞: the plot runs to the largest supported depth
      const g = core.depthGrid(nMax, POINTS);
      if (!g.ok) throw new Error(g.error);
      const xs = g.value instanceof Float64Array ? g.value : Float64Array.from(g.value);
      const at = ev.n === null ? 'N → ∞' : `N = ${depthLabel(ev.n)}`;
      this.paramsEl.textContent = `A = ${a}, B = ${b}, ${v.text}; ${at}`;
      const series = this.series(kind, fam, product, ev, xs);
      this.plot.yLog = kind === 'tail';
      this.plot.yLabel = { product: 'log of the product', remainder: 'remainder', tail: 'tail bound' }[kind];
      this.plot.set({ xMin: 1, xMax: nMax, series: series.list, message: series.message });
      this.showNumber(kind, fam, ev);
      const label = this.getAttribute('label');
      this.canvas.setAttribute('aria-label', label || `Plot of ${series.what} against depth N from 1 to ${depthLabel(nMax)} (log axis), ${fam.name}, A = ${a}, B = ${b}, ${v.text}`);
      this.errEl.textContent = '';
      this.drawn = true;
      this.dispatchEvent(new CustomEvent('depthprod-update', { detail: { family, kind, n: ev.n, logProduct: ev.log_product, limit: ev.limit } }));
    } catch (e) {
      this.fail(e?.message ?? String(e));
    }
  }

  /** The curves for `kind`: core curves and the core's limit (with its enclosure band). */
  series(kind, fam, product, ev, xs) {
    const curve = (name) => {
      const r = core.curveOf(product, name, xs);
      if (!r.ok) throw new Error(r.error);
      return r.value;
    };
    const line = { color: fam.colour, width: 2.2, xs };
    if (kind === 'product') {
      const list = [{ ...line, key: 'log', label: `log ${fam.sym}_N`, ys: curve('log-product') }];
      if (ev.limit) list.push({ key: 'limit', label: `log ${fam.sym}_∞`, color: fam.colour, dash: [6, 4], width: 1.3, hline: ev.limit.value, band: [ev.limit.lo, ev.limit.hi] });
      return { list, what: `log ${fam.sym}_N`, message: '' };
    }
    if (kind === 'remainder') {
      if (!ev.divergent) return { list: [], what: 'the remainder', message: 'This product converges: it has no divergent leading terms to remove (try kind="tail").' };
      const list = [{ ...line, key: 'rem', label: `log ${fam.sym}_N − leading terms`, ys: curve('remainder') }];
      const C = ev.divergent.constant;
      if (C) list.push({ key: 'C', label: 'C', color: fam.colour, dash: [6, 4], width: 1.3, hline: C.value, band: [C.lo, C.hi] });
      return { list, what: `log ${fam.sym}_N minus its leading terms`, message: '' };
    }
    if (!ev.limit) return { list: [], what: 'the tail bound', message: 'This product diverges: there is no tail to bound (try kind="remainder").' };
    return { list: [{ ...line, key: 'tail', label: 'tail bound', ys: curve('tail') }], what: `the tail bound of log ${fam.sym}_∞`, message: '' };
  }

  showNumber(kind, fam, ev) {
    const inf = ev.n === null;
    let shown = inf ? ev.limit : ev.log_product;
    let what = `log ${fam.sym}_${inf ? '∞' : 'N'}, ${fam.name.split(',')[0]}`;
    if (kind === 'remainder' && ev.divergent?.constant) {
      shown = ev.divergent.constant;
      what = `C, the constant of log ${fam.sym}_N, ${fam.name.split(',')[0]}`;
    }
    this.whatEl.textContent = what;
    const t = shown ? certifiedText(shown.value, shown.lo, shown.hi) : null;
    if (t) {
      this.valEl.textContent = t.text;
      this.encEl.textContent = t.digits >= 17 ? ' (exact)' : ` ∈ ${enclosureText(shown.lo, shown.hi, t.digits)}`;
    } else if (ev.divergent && inf) {
      this.valEl.textContent = 'Infinity';
      this.encEl.textContent = '  the product diverges';
    } else {
      this.valEl.textContent = '—';
      this.encEl.textContent = '';
    }
  }

  fail(message) {
    // The last good plot stays; the message says what was refused.
    this.errEl.textContent = message;
    if (!this.drawn) this.valEl.textContent = '—';
  }
}

if (!customElements.get('depthprod-plot')) customElements.define('depthprod-plot', DepthprodPlot);
