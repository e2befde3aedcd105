// A small canvas plot: HiDPI, log or linear axes (decade ticks read 10³, 10⁶ … with superscripts),
// curves and horizontal reference lines with enclosure bands, a DOM legend, and a crosshair with
// hover readouts that works with mouse, touch and keyboard. It maps numbers to pixels; it computes
// no mathematics of its own. The draw loop allocates nothing per point.
//
// Drawing less: a plot made with { offscreen: 'skip' } paints nothing while it is off
// screen (an IntersectionObserver paints it when it scrolls in; its axis ranges stay current for
// readers of yMin/yMax); set() with the same inputs as the last paint paints nothing; a path gets
// at most about two points per device pixel column; the crosshair lives on the overlay canvas.

import { rich } from './rich.js';
import { plain, depthLabel } from './format.js';

const SVG_NS = 'http://www.w3.org/2000/svg';
const theme = { ready: false };

// Where the palette's custom properties are read: the page's root, or the box inside a
// <depthprod-plot> shadow root (which the page's CSS does not reach).
let themeSource = null;

/** Reads the palette from CSS custom properties (light or dark) on `source` (default: the page). */
export function refreshTheme(source = document.documentElement) {
  themeSource = source;
  const cs = getComputedStyle(source);
  const get = (name) => cs.getPropertyValue(name).trim();
  for (const key of ['bg', 'panel', 'ink', 'ink-2', 'ink-3', 'rule', 'grid', 'axis', 'plot-bg', 'font', 'mono', 'accent']) theme[key] = get(`--${key}`);
  theme.ready = true;
  theme.version = (theme.version || 0) + 1; // a new palette repaints every plot
  colourCache.clear();
}

/** Resolves a colour that may be a CSS variable name (e.g. '--c-scaled'). */
export function colour(c) {
  if (!c) return theme.ink;
  if (!c.startsWith('--')) return c;
  let v = colourCache.get(c);
  if (v === undefined) {
    v = getComputedStyle(themeSource ?? document.documentElement).getPropertyValue(c).trim() || theme.ink;
    colourCache.set(c, v);
  }
  return v;
}
const colourCache = new Map();

const SUP = 0.72;

export class Plot {
  /**
   * @param {HTMLElement} wrap   .plot-wrap holding the plot canvas, an overlay canvas and a .hover div
   * @param {object} opts        { xLog, yLog, xLabel, yLabel, legend: HTMLElement, hoverTitle: (x) => string }
   */
  constructor(wrap, opts = {}) {
    this.wrap = wrap;
    this.canvas = wrap.querySelector('canvas:not(.overlay)');
    this.overlay = wrap.querySelector('canvas.overlay');
    this.hoverBox = wrap.querySelector('.hover');
    this.ctx = this.canvas.getContext('2d');
    this.screenCtx = this.ctx; // paintTo() swaps ctx for an export's; only this one is skipped
    this.octx = this.overlay ? this.overlay.getContext('2d') : null;
    this.xLog = opts.xLog ?? true;
    this.yLog = opts.yLog ?? false;
    this.snapDecades = opts.snapDecades ?? false;
    this.refDecades = opts.refDecades ?? 0;
    this.integerX = opts.integerX ?? false;
    this.xLabel = opts.xLabel ?? 'depth N';
    this.yLabel = opts.yLabel ?? '';
    this.legendEl = opts.legend ?? null;
    this.compactLegend = opts.compactLegend ?? false;
    this.marks = opts.marks ?? [];
    // Drag (mouse) across the plot to pick a depth range: onZoom(x0, x1) with x0 < x1.
    this.onZoom = opts.onZoom ?? null;
    this.drag = null;
    this.hoverTitle = opts.hoverTitle ?? ((x) => `N = ${depthLabel(x)}`);
    this.series = [];
    this.xMin = 1;
    this.xMax = 10;
    this.marker = null;
    this.message = '';
    this.cssW = 0;
    this.cssH = 0;
    this.dpr = 1;
    this.rect = { l: 0, t: 0, w: 1, h: 1 };
    this.yMin = 0;
    this.yMax = 1;
    this.hoverX = null; // data x of the crosshair, or null
    this.hoverSticky = false;
    this.rows = [];
    this.legendKey = '';
    this.legendLabels = [];
    this.rowLabels = [];
    this.bindPointer();
    this.ro = new ResizeObserver(() => this.resize());
    this.ro.observe(this.canvas);
    // Off-screen plots are not painted (opt-in: a host page's <depthprod-plot> always paints).
    this.onScreen = true;
    this.dirty = false;
    this.painted = null; // the inputs of the last on-screen paint (see inputsKey)
    if (opts.offscreen === 'skip' && typeof IntersectionObserver === 'function') {
      this.io = new IntersectionObserver((entries) => {
        const seen = entries[entries.length - 1].isIntersecting;
        if (seen === this.onScreen) return;
        this.onScreen = seen;
        if (seen && this.dirty) this.draw();
      }, { rootMargin: '200px 0px' });
      this.io.observe(this.canvas);
    }
  }

  /**
   * data = { xMin, xMax, series, marker, message }. The canvas is painted before the legend's DOM
   * is touched: setting a canvas font makes the browser bring the page's style up to date first,
   * so a paint after DOM writes pays a whole style recalculation. `legend: false` leaves the legend
   * to the caller's `renderLegend()`, once every canvas of an update is painted.
   */
  set(data, { legend = true } = {}) {
    this.series = data.series || [];
    this.xMin = data.xMin;
    this.xMax = data.xMax;
    this.marker = data.marker ?? null;
    this.message = data.message || '';
    this.draw();
    if (legend) this.renderLegend();
  }

  setYLog(on) {
    this.yLog = !!on;
    this.draw();
  }

  resize() {
    const r = this.canvas.getBoundingClientRect();
    const dpr = Math.max(1, window.devicePixelRatio || 1);
    const w = Math.max(1, Math.round(r.width));
    const h = Math.max(1, Math.round(r.height));
    if (w === this.cssW && h === this.cssH && dpr === this.dpr) return;
    this.cssW = w;
    this.cssH = h;
    this.dpr = dpr;
    for (const c of [this.canvas, this.overlay]) {
      if (!c) continue;
      c.width = Math.round(w * dpr);
      c.height = Math.round(h * dpr);
    }
    this.draw();
  }

  // ───────────── mapping ─────────────
  px(x) {
    const { l, w } = this.rect;
    if (this.xLog) return l + ((Math.log10(x) - this.lx0) / (this.lx1 - this.lx0)) * w;
    return l + ((x - this.xMin) / (this.xMax - this.xMin)) * w;
  }
  py(y) {
    const { t, h } = this.rect;
    if (this.yLog) return t + h - ((Math.log10(y) - this.ly0) / (this.ly1 - this.ly0)) * h;
    return t + h - ((y - this.yMin) / (this.yMax - this.yMin)) * h;
  }
  xAt(px) {
    const { l, w } = this.rect;
    const f = (px - l) / w;
    if (this.xLog) return 10 ** (this.lx0 + f * (this.lx1 - this.lx0));
    return this.xMin + f * (this.xMax - this.xMin);
  }

  /** Range of the visible y data (log axis: positive values only). */
  yRange() {
    let lo = Infinity;
    let hi = -Infinity;
    const take = (y) => {
      if (!Number.isFinite(y) || (this.yLog && y <= 0)) return;
      if (y < lo) lo = y;
      if (y > hi) hi = y;
    };
    // Reference lines (limits, bounds, asymptotes, the paper's claims) never set the range while
    // there is a product to show: a reference far from the curves must not squash them. With
    // `refDecades` (log axis) a reference within that many decades of the data widens the range
    // to show it, and one further away is drawn where it enters the plot, if it does.
    const anyData = this.series.some((s) => !s.ref);
    const visit = (s, f) => {
      if (s.hline !== undefined) return f(s.hline);
      const { xs, ys } = s;
      for (let i = 0; i < ys.length; i++) if (xs[i] >= this.xMin && xs[i] <= this.xMax) f(ys[i]);
    };
    for (const s of this.series) if (!(s.ref && anyData)) visit(s, take);
    if (lo === Infinity) return null;
    if (anyData && this.yLog && this.refDecades > 0) {
      const [near0, near1] = [lo / 10 ** this.refDecades, hi * 10 ** this.refDecades];
      for (const s of this.series) if (s.ref) visit(s, (y) => y >= near0 && y <= near1 && take(y));
    }
    if (this.yLog) {
      // At most 40 decades below the top (a tail that drops like e^(-λN) would flatten the rest).
      let b = Math.min(300, Math.log10(hi));
      let a = Math.max(-300, b - 40, Math.log10(lo));
      if (this.snapDecades && b - a > 2) {
        // Whole decades at both ends, as log-log plots usually have.
        a = Math.floor(a + 1e-9);
        b = Math.ceil(b - 1e-9);
        return [10 ** a, 10 ** b];
      }
      if (b - a < 0.3) {
        const m = (a + b) / 2;
        a = m - 0.15;
        b = m + 0.15;
      }
      const pad = (b - a) * 0.05;
      return [10 ** (a - pad), 10 ** (b + pad)];
    }
    if (hi - lo < 1e-12 * Math.max(1, Math.abs(hi))) {
      const d = Math.max(Math.abs(hi) * 0.05, 1e-9);
      lo -= d;
      hi += d;
    }
    const pad = (hi - lo) * 0.06;
    return [lo - pad, hi + pad];
  }

  /**
   * What one on-screen paint depends on, compared element by element with the last paint's (the
   * series' arrays by identity: series.js hands out the same cached array while its inputs hold).
   */
  inputsKey() {
    const key = [this.cssW, this.cssH, this.dpr, this.xMin, this.xMax, this.xLog, this.yLog, this.marker, this.message, theme.version];
    for (const s of this.series) key.push(s.key, s.label, s.color, s.ys, s.xs, s.hline, s.band?.[0], s.band?.[1], s.describes?.ys, s.yBand?.lo);
    return key;
  }

  // ───────────── drawing ─────────────
  draw() {
    if (!theme.ready) refreshTheme();
    const ctx = this.ctx;
    const { cssW: W, cssH: H, dpr } = this;
    if (ctx === this.screenCtx) {
      if (!this.onScreen || !W || !H) {
        // Not painted while off screen; the y range stays what a paint would use.
        const yr = this.yRange();
        [this.yMin, this.yMax] = yr || (this.yLog ? [1, 10] : [0, 1]);
        this.dirty = true;
        return;
      }
      const key = this.inputsKey();
      const last = this.painted;
      if (last && last.length === key.length && key.every((v, i) => Object.is(v, last[i]))) return;
      this.painted = key;
      this.dirty = false;
    } else if (!W || !H) return;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, W, H);
    ctx.fillStyle = theme['plot-bg'];
    ctx.fillRect(0, 0, W, H);
    const font = theme.font || 'system-ui, sans-serif';
    const small = W < 480;
    const fs = small ? 11 : 12;

    const xMin = Math.max(this.xLog ? 1 : -Infinity, this.xMin);
    let xMax = this.xMax;
    if (!(xMax > xMin)) xMax = xMin * 10;
    this.lx0 = Math.log10(xMin);
    this.lx1 = Math.log10(xMax);

    const yr = this.yRange();
    const [y0, y1] = yr || (this.yLog ? [1, 10] : [0, 1]);
    this.yMin = y0;
    this.yMax = y1;
    this.ly0 = Math.log10(Math.max(y0, 1e-300));
    this.ly1 = Math.log10(Math.max(y1, 1e-300));

    const yTicks = this.yLog ? logTicks(y0, y1, 6) : linTicks(y0, y1, small ? 5 : 7);
    ctx.font = `${fs}px ${font}`;
    let labelW = 0;
    for (const tk of yTicks) labelW = Math.max(labelW, tickWidth(ctx, tk, fs, font));
    const l = Math.ceil(labelW + (this.yLabel ? 26 : 10) + 6);
    const r = small ? 10 : 16;
    const t = 12;
    const b = 40;
    this.rect = { l, t, w: Math.max(10, W - l - r), h: Math.max(10, H - t - b) };
    const { w, h } = this.rect;

    // Grid + ticks
    ctx.lineWidth = 1;
    ctx.strokeStyle = theme.grid;
    ctx.fillStyle = theme['ink-2'];
    ctx.textBaseline = 'middle';
    ctx.textAlign = 'right';
    for (const tk of yTicks) {
      const y = Math.round(this.py(tk.v)) + 0.5;
      if (y < t - 1 || y > t + h + 1) continue;
      ctx.strokeStyle = tk.minor ? theme.grid : theme.grid;
      ctx.globalAlpha = tk.minor ? 0.5 : 1;
      line(ctx, l, y, l + w, y);
      ctx.globalAlpha = 1;
      if (!tk.minor) drawTickLabel(ctx, tk, l - 6, y, 'right', fs, font);
    }
    let xTicks = this.xLog ? logTicks(xMin, xMax, Math.max(3, Math.floor(w / (small ? 48 : 64)))) : linTicks(xMin, xMax, 6);
    // A layer axis has whole numbers only: no 1.5 between layers 1 and 2.
    if (this.integerX) xTicks = xTicks.filter((tk) => tk.minor || Number.isInteger(tk.v)).map((tk) => (tk.text === undefined ? tk : { ...tk, text: String(tk.v) }));
    ctx.textBaseline = 'top';
    for (const tk of xTicks) {
      const x = Math.round(this.px(tk.v)) + 0.5;
      if (x < l - 1 || x > l + w + 1) continue;
      ctx.strokeStyle = theme.grid;
      ctx.globalAlpha = tk.minor ? 0.45 : 1;
      line(ctx, x, t, x, t + h);
      ctx.globalAlpha = 1;
      if (!tk.minor) drawTickLabel(ctx, tk, x, t + h + 6, 'center', fs, font);
    }
    // Axes frame
    ctx.strokeStyle = theme.axis;
    ctx.strokeRect(l + 0.5, t + 0.5, w - 1, h - 1);
    this.drawMarks(ctx, l, t, w, h);

    // Axis titles
    ctx.fillStyle = theme['ink-2'];
    ctx.font = `${fs}px ${font}`;
    ctx.textAlign = 'center';
    ctx.textBaseline = 'alphabetic';
    ctx.fillText(this.xLabel, l + w / 2, H - 5);
    if (this.yLabel) {
      ctx.save();
      ctx.translate(12, t + h / 2);
      ctx.rotate(-Math.PI / 2);
      ctx.textBaseline = 'middle';
      ctx.fillText(this.yLabel + (this.yLog ? ' (log scale)' : ''), 0, 0);
      ctx.restore();
    }

    // Data, clipped to the frame
    ctx.save();
    ctx.beginPath();
    ctx.rect(l, t, w, h);
    ctx.clip();
    for (const s of this.series) {
      if (s.hline === undefined || !s.band) continue;
      const [blo, bhi] = s.band;
      if (!Number.isFinite(blo) || !Number.isFinite(bhi)) continue;
      const ya = this.py(this.yLog ? Math.max(blo, 1e-300) : blo);
      const yb = this.py(this.yLog ? Math.max(bhi, 1e-300) : bhi);
      ctx.fillStyle = colour(s.color);
      ctx.globalAlpha = 0.14;
      const top = Math.min(ya, yb);
      ctx.fillRect(l, top - 1.5, w, Math.abs(yb - ya) + 3);
      ctx.globalAlpha = 1;
    }
    for (const s of this.series) if (s.yBand && s.xs) this.drawCurveBand(ctx, s);
    for (const s of this.series) this.drawSeries(ctx, s);
    if (this.marker !== null && Number.isFinite(this.marker) && this.marker >= xMin && this.marker <= xMax) {
      const x = Math.round(this.px(this.marker)) + 0.5;
      ctx.strokeStyle = theme['ink-3'];
      ctx.setLineDash([2, 3]);
      line(ctx, x, t, x, t + h);
      ctx.setLineDash([]);
    }
    ctx.restore();

    if (this.message) {
      ctx.fillStyle = theme['ink-3'];
      ctx.font = `${fs + 1}px ${font}`;
      ctx.textAlign = 'center';
      ctx.textBaseline = 'middle';
      wrapText(ctx, this.message, l + w / 2, t + h / 2, w - 24, fs + 5);
    }
    this.drawOverlay();
  }

  /**
   * The enclosure band of a curve whose points the core reports wider than the goal: the area
   * between every point's lower and upper end, at least 3 px tall so the reader can find it even
   * where it is narrower than a pixel (the words under the plot give its width).
   */
  drawCurveBand(ctx, s) {
    const { lo, hi } = s.yBand;
    const xs = s.xs;
    const ok = (i) => xs[i] >= this.xMin && xs[i] <= this.xMax && Number.isFinite(lo[i]) && Number.isFinite(hi[i]) && (!this.yLog || hi[i] > 0);
    const yOf = (v) => this.py(this.yLog ? Math.max(v, 1e-300) : v);
    ctx.fillStyle = colour(s.color);
    ctx.globalAlpha = 0.22;
    ctx.beginPath();
    let open = [];
    const close = () => {
      if (open.length > 1) {
        ctx.moveTo(open[0][0], open[0][1] - 1.5);
        for (const [x, ya, yb] of open) ctx.lineTo(x, Math.min(ya, yb) - 1.5);
        for (let j = open.length - 1; j >= 0; j--) ctx.lineTo(open[j][0], Math.max(open[j][1], open[j][2]) + 1.5);
        ctx.closePath();
      }
      open = [];
    };
    for (let i = 0; i < xs.length; i++) {
      if (!ok(i)) {
        close();
        continue;
      }
      open.push([this.px(xs[i]), yOf(hi[i]), yOf(lo[i])]);
    }
    close();
    ctx.fill();
    ctx.globalAlpha = 1;
  }

  /** Depth marks (real models) on the x axis: a faint band over their span and a tick at each. */
  drawMarks(ctx, l, t, w, h) {
    const inRange = (this.marks || []).filter((m) => m.x >= this.xMin && m.x <= this.xMax);
    if (!inRange.length) return;
    const xs = inRange.map((m) => this.px(m.x));
    const a = Math.min(...xs);
    const b = Math.max(...xs);
    ctx.fillStyle = theme.accent || theme['ink-3'];
    ctx.globalAlpha = 0.08;
    ctx.fillRect(a - 2, t + 1, b - a + 4, h - 2);
    ctx.globalAlpha = 0.9;
    ctx.strokeStyle = theme.accent || theme['ink-3'];
    ctx.lineWidth = 1.5;
    for (const x of xs) line(ctx, Math.round(x) + 0.5, t + h - 9, Math.round(x) + 0.5, t + h - 1);
    ctx.globalAlpha = 1;
    ctx.lineWidth = 1;
  }

  drawSeries(ctx, s) {
    ctx.strokeStyle = colour(s.color);
    ctx.lineWidth = s.width ?? 2;
    ctx.setLineDash(s.dash || []);
    ctx.lineJoin = 'round';
    ctx.beginPath();
    if (s.hline !== undefined) {
      if (Number.isFinite(s.hline) && !(this.yLog && s.hline <= 0)) {
        const y = this.py(s.hline);
        ctx.moveTo(this.rect.l, y);
        ctx.lineTo(this.rect.l + this.rect.w, y);
      }
    } else {
      const { xs, ys } = s;
      let pen = false;
      const n = Math.min(xs.length, ys.length);
      // At most one vertex per half device pixel of x (1000 points on a plot ~800 px wide): a
      // skipped point is still joined through by the next vertex drawn; the last one always draws.
      const minStep = 0.5 / this.dpr;
      let lastX = -Infinity;
      for (let i = describedFrom(s, n); i < n; i++) {
        const x = xs[i];
        const y = ys[i];
        if (!Number.isFinite(y) || (this.yLog && y <= 0) || x < 1) {
          pen = false;
          continue;
        }
        const X = this.px(x);
        if (pen && X - lastX < minStep && i + 1 < n && Number.isFinite(ys[i + 1]) && !(this.yLog && ys[i + 1] <= 0)) continue;
        const Y = this.py(y);
        if (pen) ctx.lineTo(X, Y);
        else ctx.moveTo(X, Y);
        pen = true;
        lastX = X;
      }
      if (s.points && n > 0) {
        // Also mark points when a curve has very few (small N).
        for (let i = 0; i < n; i++) {
          if (!Number.isFinite(ys[i]) || (this.yLog && ys[i] <= 0)) continue;
          ctx.moveTo(this.px(xs[i]) + 2.5, this.py(ys[i]));
          ctx.arc(this.px(xs[i]), this.py(ys[i]), 2.5, 0, Math.PI * 2);
        }
      }
    }
    ctx.stroke();
    ctx.setLineDash([]);
  }

  // ───────────── legend ─────────────
  renderLegend() {
    const key = this.series.map((s) => `${s.key}|${s.color}|${(s.dash || []).join(',')}|${!!s.band}`).join(';');
    if (key === this.legendKey) {
      // Same entries: refresh the labels in place (rich() skips unchanged text).
      this.legendLabels.forEach((span, i) => rich(span, this.legendText(this.series[i])));
      this.rowLabels.forEach((k, i) => rich(k, this.series[i].short || this.series[i].label));
      return;
    }
    this.legendKey = key;
    this.buildHoverRows();
    this.legendLabels = [];
    const ul = this.legendEl;
    if (!ul) return;
    ul.replaceChildren();
    for (const s of this.series) {
      const li = document.createElement('li');
      li.dataset.series = s.key;
      const svg = document.createElementNS(SVG_NS, 'svg');
      svg.setAttribute('width', '26');
      svg.setAttribute('height', '10');
      svg.setAttribute('aria-hidden', 'true');
      if (s.band) {
        const rect = document.createElementNS(SVG_NS, 'rect');
        rect.setAttribute('x', '0');
        rect.setAttribute('y', '1');
        rect.setAttribute('width', '26');
        rect.setAttribute('height', '8');
        rect.setAttribute('fill', colour(s.color));
        rect.setAttribute('fill-opacity', '0.16');
        svg.append(rect);
      }
      const ln = document.createElementNS(SVG_NS, 'line');
      ln.setAttribute('x1', '1');
      ln.setAttribute('x2', '25');
      ln.setAttribute('y1', '5');
      ln.setAttribute('y2', '5');
      ln.setAttribute('stroke', colour(s.color));
      ln.setAttribute('stroke-width', String(s.width ?? 2));
      if (s.dash && s.dash.length) ln.setAttribute('stroke-dasharray', s.dash.join(' '));
      svg.append(ln);
      const span = document.createElement('span');
      rich(span, this.legendText(s));
      if (this.compactLegend && s.short) li.title = s.label.replace(/[_^]/g, '');
      this.legendLabels.push(span);
      li.append(svg, span);
      ul.append(li);
    }
  }

  /**
   * Paints the plot (axes, ticks, curves, reference lines; no crosshair) into another 2D context —
   * an offscreen canvas or export.js's SVG recorder — at W×H CSS px and `scale` device px per px.
   * The on-screen canvas and its mapping are left as they were. Returns the frame rect used.
   */
  paintTo(ctx, W, H, scale = 1) {
    const keep = {};
    for (const k of PAINT_STATE) keep[k] = this[k];
    Object.assign(this, { ctx, octx: null, cssW: W, cssH: H, dpr: scale });
    try {
      this.draw();
      return { ...this.rect };
    } finally {
      Object.assign(this, keep);
    }
  }

  /** A series' legend text: its label, or its short name in a compact legend (embed mode). */
  legendText(s) {
    return this.compactLegend && s.short ? s.short : s.label;
  }

  /** Refreshes legend colours after a theme change. */
  recolour() {
    this.legendKey = '';
    this.renderLegend();
    this.draw();
  }

  // ───────────── crosshair ─────────────
  buildHoverRows() {
    if (!this.hoverBox) return;
    const box = this.hoverBox;
    box.replaceChildren();
    this.hoverHead = document.createElement('div');
    this.hoverHead.className = 'h-n';
    box.append(this.hoverHead);
    this.rowLabels = [];
    this.rows = this.series.map((s) => {
      const row = document.createElement('div');
      row.className = 'h-row';
      const dot = document.createElement('span');
      dot.className = 'dot';
      dot.style.background = colour(s.color);
      const k = document.createElement('span');
      k.className = 'k';
      rich(k, s.short || s.label);
      this.rowLabels.push(k);
      const v = document.createElement('span');
      v.className = 'v';
      row.append(dot, k, v);
      box.append(row);
      return v;
    });
    if (this.hoverX !== null) this.drawOverlay();
  }

  bindPointer() {
    const c = this.canvas;
    const at = (ev) => {
      const r = c.getBoundingClientRect();
      return ev.clientX - r.left;
    };
    const show = (px) => {
      const { l, w } = this.rect;
      if (px < l || px > l + w) return;
      this.hoverX = this.xAt(px);
      this.scheduleOverlay();
    };
    c.addEventListener('pointermove', (ev) => {
      if (this.drag) {
        this.drag.x1 = at(ev);
        this.scheduleOverlay();
      }
      if (ev.pointerType === 'touch' && !this.hoverSticky) return;
      show(at(ev));
    });
    c.addEventListener('pointerdown', (ev) => {
      if (!this.onZoom || ev.pointerType !== 'mouse' || ev.button !== 0) return;
      const px = at(ev);
      const { l, w } = this.rect;
      if (px < l || px > l + w) return;
      this.drag = { x0: px, x1: px };
      c.setPointerCapture?.(ev.pointerId);
    });
    const endDrag = (ev, apply) => {
      const d = this.drag;
      if (!d) return;
      this.drag = null;
      c.releasePointerCapture?.(ev.pointerId);
      this.scheduleOverlay();
      const { l, w } = this.rect;
      const a = Math.max(l, Math.min(d.x0, d.x1));
      const b = Math.min(l + w, Math.max(d.x0, d.x1));
      if (apply && b - a >= 8) this.onZoom(this.xAt(a), this.xAt(b));
    };
    c.addEventListener('pointerup', (ev) => endDrag(ev, true));
    c.addEventListener('pointercancel', (ev) => endDrag(ev, false));
    c.addEventListener('pointerdown', (ev) => {
      if (ev.pointerType === 'touch' || ev.pointerType === 'pen') {
        this.hoverSticky = true;
        show(at(ev));
      }
    });
    c.addEventListener('pointerleave', (ev) => {
      if (ev.pointerType === 'mouse') {
        this.hoverX = null;
        this.scheduleOverlay();
      }
    });
    c.addEventListener('keydown', (ev) => {
      const { l, w } = this.rect;
      let px = this.hoverX === null ? l + w / 2 : this.px(this.hoverX);
      const step = ev.shiftKey ? w / 10 : w / 100;
      if (ev.key === 'ArrowLeft') px -= step;
      else if (ev.key === 'ArrowRight') px += step;
      else if (ev.key === 'Home') px = l;
      else if (ev.key === 'End') px = l + w;
      else if (ev.key === 'Escape') {
        this.hoverX = null;
        this.scheduleOverlay();
        return;
      } else return;
      ev.preventDefault();
      show(Math.min(l + w, Math.max(l, px)));
    });
    c.addEventListener('blur', () => {
      if (!this.hoverSticky) {
        this.hoverX = null;
        this.scheduleOverlay();
      }
    });
  }

  scheduleOverlay() {
    if (this.overlayQueued) return;
    this.overlayQueued = true;
    requestAnimationFrame(() => {
      this.overlayQueued = false;
      this.drawOverlay();
    });
  }

  drawOverlay() {
    const o = this.octx;
    if (!o) return;
    const { cssW: W, cssH: H, dpr } = this;
    const dragging = !!this.drag && Math.abs(this.drag.x1 - this.drag.x0) > 1;
    const idle = !dragging && (this.hoverX === null || !this.series.length);
    // An overlay that is already clear is left alone: even clearing it makes the browser hand a
    // new bitmap of the whole canvas to the compositor, at every slider move. (A resize clears it.)
    if (!(idle && this.overlayClear && o.canvas.width === this.overlayWidth)) {
      o.setTransform(dpr, 0, 0, dpr, 0, 0);
      o.clearRect(0, 0, W, H);
    }
    this.overlayClear = idle;
    this.overlayWidth = o.canvas.width;
    if (dragging) {
      const { t, h } = this.rect;
      o.fillStyle = theme.accent || theme.ink;
      o.globalAlpha = 0.15;
      o.fillRect(Math.min(this.drag.x0, this.drag.x1), t, Math.abs(this.drag.x1 - this.drag.x0), h);
      o.globalAlpha = 1;
    }
    if (this.hoverX === null || !this.series.length) {
      if (this.hoverBox && !this.hoverBox.hidden) this.hoverBox.hidden = true;
      return;
    }
    const { l, t, w, h } = this.rect;
    // Snap to the nearest grid point of the first curve, so N is an integer depth the core evaluated.
    const first = this.series.find((s) => s.xs);
    let xs = this.hoverX;
    if (first) {
      const i = nearest(first.xs, this.hoverX);
      if (i >= 0) xs = first.xs[i];
    }
    const X = Math.round(this.px(xs)) + 0.5;
    o.strokeStyle = theme.ink;
    o.globalAlpha = 0.45;
    o.lineWidth = 1;
    line(o, X, t, X, t + h);
    o.globalAlpha = 1;
    if (this.hoverHead) this.hoverHead.textContent = this.hoverTitle(xs);
    this.series.forEach((s, k) => {
      let y;
      if (s.hline !== undefined) y = s.hline;
      else {
        const i = nearest(s.xs, xs);
        y = i >= 0 && i >= describedFrom(s, s.ys.length) ? s.ys[i] : NaN;
        if (i >= 0 && Number.isFinite(y) && !(this.yLog && y <= 0)) {
          const Y = this.py(y);
          if (Y >= t && Y <= t + h) {
            o.fillStyle = colour(s.color);
            o.beginPath();
            o.arc(this.px(s.xs[i]), Y, 3.5, 0, Math.PI * 2);
            o.fill();
            o.strokeStyle = theme['plot-bg'];
            o.stroke();
          }
        }
      }
      // Rows are rebuilt with the legend, which set() renders after the paint: until then a new
      // series has no row (buildHoverRows redraws the overlay once it has).
      const row = this.rows[k];
      if (row) row.textContent = plain(y, 8);
    });
    const box = this.hoverBox;
    box.hidden = false;
    // Place the box on the side away from the crosshair.
    const bw = box.offsetWidth;
    const left = X > l + w / 2 ? Math.max(4, X - bw - 12) : Math.min(W - bw - 4, X + 12);
    box.style.left = `${left}px`;
  }
}

// What draw() reads or sets, saved and restored around paintTo().
const PAINT_STATE = ['ctx', 'octx', 'cssW', 'cssH', 'dpr', 'rect', 'lx0', 'lx1', 'ly0', 'ly1', 'yMin', 'yMax'];

/** Index of the entry of sorted `xs` nearest to x (in log space); -1 when empty. */
export function nearest(xs, x) {
  const n = xs.length;
  if (!n) return -1;
  let lo = 0;
  let hi = n - 1;
  if (x <= xs[0]) return 0;
  if (x >= xs[hi]) return hi;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (xs[mid] <= x) lo = mid;
    else hi = mid;
  }
  return Math.abs(Math.log(x / xs[lo])) <= Math.abs(Math.log(xs[hi] / x)) ? lo : hi;
}

function line(ctx, x0, y0, x1, y1) {
  ctx.beginPath();
  ctx.moveTo(x0, y0);
  ctx.lineTo(x1, y1);
  ctx.stroke();
}

// ───────────── ticks ─────────────

/**
 * For a series that `describes` another curve ({ ys, tol }), the first index from which it stays within
 * tol · max(1, |curve|) of that curve up to the end (n when it never does): an asymptote is drawn only
 * where it describes the curve. A visibility decision, like clipping, not a computed quantity.
 */
export function describedFrom(s, n) {
  const d = s.describes;
  if (!d || !d.ys) return 0;
  let from = n;
  for (let i = n - 1; i >= 0; i--) {
    const y = d.ys[i];
    const a = s.ys[i];
    if (!Number.isFinite(y) || !Number.isFinite(a) || Math.abs(a - y) > d.tol * Math.max(1, Math.abs(y))) break;
    from = i;
  }
  return from;
}

/** Decade ticks (10^k labels) with minor 2..9 ticks; falls back to 1-2-5 ticks inside one decade. */
function logTicks(lo, hi, maxMajor) {
  const a = Math.max(-320, Math.log10(lo));
  const b = Math.min(320, Math.log10(hi));
  if (!Number.isFinite(a) || !Number.isFinite(b) || !(b > a)) return [];
  const k0 = Math.ceil(a - 1e-9);
  const k1 = Math.floor(b + 1e-9);
  const ticks = [];
  if (k1 - k0 < 1) {
    // Less than a decade: plain-number ticks.
    for (const tk of linTicks(lo, hi, 5)) ticks.push(tk);
    return ticks;
  }
  const step = Math.max(1, Math.ceil((k1 - k0 + 1) / maxMajor));
  for (let k = Math.floor(a); k <= Math.ceil(b); k++) {
    const v = 10 ** k;
    if (k >= k0 && k <= k1 && (k - k0) % step === 0) ticks.push({ v, exp: k });
    else if (k >= k0 && k <= k1 && step <= 3) ticks.push({ v, minor: true });
    if (step === 1 && k1 - k0 <= 8) {
      for (let m = 2; m <= 9; m++) {
        const vm = m * v;
        if (vm > lo && vm < hi) ticks.push({ v: vm, minor: true });
      }
    }
  }
  return ticks;
}

/** "Nice" 1-2-5 linear ticks. */
function linTicks(lo, hi, count) {
  const span = hi - lo;
  if (!(span > 0) || !Number.isFinite(span) || !Number.isFinite(lo)) return [];
  const raw = span / Math.max(1, count);
  const mag = 10 ** Math.floor(Math.log10(raw));
  const norm = raw / mag;
  const step = (norm < 1.5 ? 1 : norm < 3 ? 2 : norm < 7 ? 5 : 10) * mag;
  const ticks = [];
  const first = Math.ceil(lo / step);
  const last = Math.floor(hi / step);
  const digits = Math.max(0, -Math.floor(Math.log10(step) + 1e-9));
  for (let i = first; i <= last && ticks.length < 40; i++) {
    const v = i * step;
    ticks.push({ v, text: formatTick(v, step, digits) });
  }
  return ticks;
}

function formatTick(v, step, digits) {
  const av = Math.abs(v);
  if (av !== 0 && (av >= 1e6 || av < 1e-4)) return v.toExponential(Math.max(0, Math.round(-Math.log10(step / 10 ** Math.floor(Math.log10(av)))))).replace('e+', 'e');
  return (Math.abs(v) < step / 2 ? 0 : v).toFixed(Math.min(12, digits)).replace('-', '−');
}

function tickWidth(ctx, tk, fs, font) {
  if (tk.minor) return 0;
  if (tk.exp === undefined) return ctx.measureText(tk.text).width;
  if (tk.exp === 0 || tk.exp === 1) return ctx.measureText(tk.exp === 0 ? '1' : '10').width;
  ctx.font = `${Math.round(fs * SUP)}px ${font}`;
  const e = ctx.measureText(String(tk.exp).replace('-', '−')).width;
  ctx.font = `${fs}px ${font}`;
  return ctx.measureText('10').width + e + 1;
}

/** Draws "10" with a raised exponent, or a plain label. */
function drawTickLabel(ctx, tk, x, y, align, fs, font) {
  ctx.font = `${fs}px ${font}`;
  if (tk.exp === undefined || tk.exp === 0 || tk.exp === 1) {
    const text = tk.exp === undefined ? tk.text : tk.exp === 0 ? '1' : '10';
    ctx.textAlign = align;
    ctx.fillText(text, x, y);
    return;
  }
  const base = '10';
  const exp = String(tk.exp).replace('-', '−');
  const bw = ctx.measureText(base).width;
  ctx.font = `${Math.round(fs * SUP)}px ${font}`;
  const ew = ctx.measureText(exp).width;
  const total = bw + ew + 1;
  const x0 = align === 'right' ? x - total : align === 'center' ? x - total / 2 : x;
  const baseline = ctx.textBaseline;
  ctx.textAlign = 'left';
  ctx.font = `${fs}px ${font}`;
  ctx.fillText(base, x0, y);
  ctx.font = `${Math.round(fs * SUP)}px ${font}`;
  const rise = baseline === 'top' ? -fs * 0.3 : -fs * 0.42;
  ctx.fillText(exp, x0 + bw + 1, y + rise);
  ctx.font = `${fs}px ${font}`;
}

function wrapText(ctx, text, cx, cy, maxW, lh) {
  const words = text.split(/\s+/);
  const lines = [];
  let cur = '';
  for (const wd of words) {
    const tryLine = cur ? `${cur} ${wd}` : wd;
    if (ctx.measureText(tryLine).width > maxW && cur) {
      lines.push(cur);
      cur = wd;
    } else cur = tryLine;
  }
  if (cur) lines.push(cur);
  const y0 = cy - ((lines.length - 1) * lh) / 2;
  lines.slice(0, 6).forEach((ln, i) => ctx.fillText(ln, cx, y0 + i * lh));
}
