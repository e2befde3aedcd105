// Exports of a plot: PNG (offscreen canvas at 2x), SVG (real <path>/<text> elements) and CSV (the
// plotted series). The picture is painted by plot.js itself (Plot.paintTo) into either a canvas or
// SvgRecorder below, a 2D-context look-alike that records the same calls as SVG elements, so the
// axes, ticks and curves of an export are exactly those on screen. Legend and caption are drawn by
// the same calls. Nothing here computes a number: values are the series the page already holds.
// SVG is built with createElementNS/setAttribute only; no markup is ever parsed.

import { rich } from './rich.js';
import { colour } from './plot.js';

const SVG_NS = 'http://www.w3.org/2000/svg';
const PAD = 14; // CSS px around the legend and caption
const FS = 12; // legend / caption font size (CSS px)
const SUB = 0.74; // sub/superscript size

// ───────────── figure: plot + legend + caption, painted with 2D-context calls ─────────────

/**
 * Lays out a figure for `plot` (a Plot) of width W: the plot on top, the legend entries in rows,
 * the caption lines (word-wrapped) underneath. Returns { W, H, plotH, legendRows, captionLines }.
 */
export function layoutFigure(plot, caption, { width, height } = {}) {
  const W = Math.round(width ?? Math.max(640, plot.cssW || 800));
  const plotH = Math.round(height ?? Math.max(360, plot.cssH || 420));
  const m = measurer();
  const font = fontFamily();
  const maxW = W - 2 * PAD;
  // Legend: entries flow left to right and wrap.
  const rows = [];
  let row = [];
  let x = 0;
  for (const s of plot.series) {
    const runs = richRuns(s.label);
    const w = 26 + 6 + runsWidth(m, runs, FS, font);
    if (row.length && x + w > maxW) {
      rows.push(row);
      row = [];
      x = 0;
    }
    row.push({ s, runs, x, w });
    x += w + 18;
  }
  if (row.length) rows.push(row);
  // Caption: words wrapped to the width.
  const lines = [];
  for (const para of String(caption || '').split('\n')) {
    let cur = '';
    for (const word of para.split(/\s+/).filter(Boolean)) {
      const next = cur ? `${cur} ${word}` : word;
      if (cur && runsWidth(m, richRuns(next), FS, font) > maxW) {
        lines.push(cur);
        cur = word;
      } else cur = next;
    }
    if (cur) lines.push(cur);
  }
  const legendH = rows.length * (FS + 8);
  const captionH = lines.length * (FS + 6);
  const H = plotH + PAD + legendH + (lines.length ? PAD / 2 + captionH : 0) + PAD;
  return { W, H, plotH, legendRows: rows, captionLines: lines };
}

/** Paints a laid-out figure into `ctx` (canvas 2D context or SvgRecorder) at `scale`. */
export function paintFigure(ctx, plot, fig, scale = 1) {
  const font = fontFamily();
  const bg = cssVar('--plot-bg') || '#ffffff';
  ctx.setTransform(scale, 0, 0, scale, 0, 0);
  ctx.fillStyle = bg;
  ctx.fillRect(0, 0, fig.W, fig.H);
  plot.paintTo(ctx, fig.W, fig.plotH, scale);
  ctx.setTransform(scale, 0, 0, scale, 0, 0);
  ctx.globalAlpha = 1;
  ctx.setLineDash([]);
  let y = fig.plotH + PAD + FS / 2;
  for (const row of fig.legendRows) {
    for (const { s, runs, x } of row) {
      const x0 = PAD + x;
      if (s.band) {
        ctx.globalAlpha = 0.16;
        ctx.fillStyle = colour(s.color);
        ctx.fillRect(x0, y - 4, 26, 8);
        ctx.globalAlpha = 1;
      }
      ctx.strokeStyle = colour(s.color);
      ctx.lineWidth = s.width ?? 2;
      ctx.setLineDash(s.dash || []);
      ctx.beginPath();
      ctx.moveTo(x0 + 1, y);
      ctx.lineTo(x0 + 25, y);
      ctx.stroke();
      ctx.setLineDash([]);
      ctx.fillStyle = cssVar('--ink-2') || '#444';
      drawRuns(ctx, runs, x0 + 32, y + FS * 0.35, FS, font);
    }
    y += FS + 8;
  }
  y += PAD / 2 - 2;
  ctx.fillStyle = cssVar('--ink') || '#000';
  for (const line of fig.captionLines) {
    drawRuns(ctx, richRuns(line), PAD, y + FS * 0.35, FS, font);
    y += FS + 6;
  }
}

/** The figure as a PNG Blob at `scale` (2 = HiDPI). Resolves to { blob, width, height }. */
export function figurePng(plot, caption, { scale = 2, ...size } = {}) {
  const fig = layoutFigure(plot, caption, size);
  const canvas = document.createElement('canvas');
  canvas.width = Math.round(fig.W * scale);
  canvas.height = Math.round(fig.H * scale);
  paintFigure(canvas.getContext('2d'), plot, fig, scale);
  return new Promise((resolve, reject) => {
    canvas.toBlob((blob) => (blob ? resolve({ blob, width: canvas.width, height: canvas.height }) : reject(new Error('the browser could not encode the PNG'))), 'image/png');
  });
}

/** The figure as an <svg> element (vector paths and text). */
export function figureSvgElement(plot, caption, { title = '', ...size } = {}) {
  const fig = layoutFigure(plot, caption, size);
  const rec = new SvgRecorder(fig.W, fig.H);
  if (title) rec.meta('title', title);
  if (caption) rec.meta('desc', caption);
  paintFigure(rec, plot, fig, 1);
  return rec.svg;
}

/** The figure as SVG text (a standalone file). */
export function figureSvg(plot, caption, opts = {}) {
  const svg = figureSvgElement(plot, caption, opts);
  const text = new XMLSerializer().serializeToString(svg);
  return { text: `<?xml version="1.0" encoding="UTF-8"?>\n${text}\n`, width: Number(svg.getAttribute('width')), height: Number(svg.getAttribute('height')) };
}

// ───────────── CSV ─────────────

/**
 * The plotted series as CSV: `# comment` lines, then a header naming every column, then one row per
 * grid depth. Curves share the grid (column "N"); a product's curve is followed by the lower and upper
 * ends of its certified enclosure at each depth; a reference line is a constant column, and its
 * enclosure band two more columns. Values are the series' doubles, shortest round-trip form.
 */
export function seriesCsv(series, comments = [], { xName = 'N' } = {}) {
  const curves = series.filter((s) => s.xs && s.ys);
  const lines = comments.map((c) => `# ${String(c).replace(/[\r\n]+/g, ' ')}`);
  const xs = curves.length ? curves[0].xs : [];
  const cols = [{ name: xName, at: (i) => xs[i] }];
  for (const s of series) {
    if (s.xs && s.ys) {
      const same = s.xs === xs || (s.xs.length === xs.length && s.xs.every((x, i) => x === xs[i]));
      cols.push({ name: s.label, at: (i) => (same ? s.ys[i] : NaN) });
      // A product's certified enclosure at each depth, when the series can give it (core calls on export).
      const b = same && typeof s.bounds === 'function' ? s.bounds() : null;
      if (b) {
        cols.push({ name: `${s.label}: enclosure lower end`, at: (i) => b.lo[i] });
        cols.push({ name: `${s.label}: enclosure upper end`, at: (i) => b.hi[i] });
      }
    } else if (s.hline !== undefined) {
      cols.push({ name: s.label, at: () => s.hline });
      if (s.band) {
        cols.push({ name: `${s.label}: enclosure lower end`, at: () => s.band[0] });
        cols.push({ name: `${s.label}: enclosure upper end`, at: () => s.band[1] });
      }
    }
  }
  lines.push(cols.map((c) => csvCell(c.name)).join(','));
  for (let i = 0; i < xs.length; i++) lines.push(cols.map((c) => numCell(c.at(i))).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

function csvCell(text) {
  const t = String(text);
  // Quote when needed; a leading = + - @ would be read as a formula by spreadsheets.
  const safe = /^[=+\-@]/.test(t) ? `'${t}` : t;
  return /[",\r\n]/.test(safe) || safe !== t ? `"${safe.replace(/"/g, '""')}"` : safe;
}

function numCell(x) {
  return typeof x === 'number' && Number.isFinite(x) ? String(x) : '';
}

// ───────────── download ─────────────

/** Offers `blob` as a download named `name` (an <a download> on a blob: URL). */
export function download(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.rel = 'noopener';
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 30_000);
}

// ───────────── rich text runs (x_N, x^2) for canvas and SVG ─────────────

/** Splits rich.js notation into runs {t, k: '' | 'sub' | 'sup'} (rich() builds the DOM; we read it back). */
export function richRuns(text) {
  const span = document.createElement('span');
  rich(span, text);
  return [...span.childNodes].map((n) => ({ t: n.textContent, k: n.nodeName === 'SUB' ? 'sub' : n.nodeName === 'SUP' ? 'sup' : '' }));
}

function runFont(k, fs, font) {
  return `${k ? Math.round(fs * SUB) : fs}px ${font}`;
}

function runsWidth(ctx, runs, fs, font) {
  let w = 0;
  for (const r of runs) {
    ctx.font = runFont(r.k, fs, font);
    w += ctx.measureText(r.t).width;
  }
  return w;
}

function drawRuns(ctx, runs, x, y, fs, font) {
  ctx.textAlign = 'left';
  ctx.textBaseline = 'alphabetic';
  for (const r of runs) {
    ctx.font = runFont(r.k, fs, font);
    const dy = r.k === 'sub' ? fs * 0.25 : r.k === 'sup' ? -fs * 0.38 : 0;
    ctx.fillText(r.t, x, y + dy);
    x += ctx.measureText(r.t).width;
  }
}

let measureCtx = null;
function measurer() {
  if (!measureCtx) measureCtx = document.createElement('canvas').getContext('2d');
  return measureCtx;
}

function cssVar(name) {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
}

function fontFamily() {
  return cssVar('--font') || 'system-ui, sans-serif';
}

// ───────────── SVG recorder: the subset of CanvasRenderingContext2D that plot.js uses ─────────────

const r2 = (x) => (Math.round(x * 100) / 100).toString();

/**
 * Records 2D-context drawing calls as SVG elements: paths for strokes and fills, <rect>, <text>
 * (with sub/superscripts as separate text runs), clip paths for ctx.clip(), and the current
 * transform applied to coordinates (text keeps a transform attribute when rotated).
 */
export class SvgRecorder {
  constructor(W, H) {
    this.svg = document.createElementNS(SVG_NS, 'svg');
    this.svg.setAttribute('width', String(W));
    this.svg.setAttribute('height', String(H));
    this.svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
    this.svg.setAttribute('role', 'img');
    this.defs = this.el('defs');
    this.svg.append(this.defs);
    this.group = this.svg;
    this.m = [1, 0, 0, 1, 0, 0];
    this.st = { fillStyle: '#000000', strokeStyle: '#000000', lineWidth: 1, globalAlpha: 1, font: '10px sans-serif', textAlign: 'start', textBaseline: 'alphabetic', lineJoin: 'miter', lineCap: 'butt', dash: [] };
    this.stack = [];
    this.d = '';
    this.clips = 0;
    this.canvas = { width: W, height: H };
  }

  el(name, attrs = {}) {
    const e = document.createElementNS(SVG_NS, name);
    for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) e.setAttribute(k, String(v));
    return e;
  }

  meta(name, text) {
    const e = this.el(name);
    e.textContent = text;
    this.svg.insertBefore(e, this.defs);
  }

  // state
  save() {
    this.stack.push({ st: { ...this.st, dash: [...this.st.dash] }, m: [...this.m], group: this.group });
  }
  restore() {
    const s = this.stack.pop();
    if (!s) return;
    this.st = s.st;
    this.m = s.m;
    this.group = s.group;
  }
  setTransform(a, b, c, d, e, f) {
    this.m = [a, b, c, d, e, f];
  }
  resetTransform() {
    this.m = [1, 0, 0, 1, 0, 0];
  }
  transform(a, b, c, d, e, f) {
    const [A, B, C, D, E, F] = this.m;
    this.m = [A * a + C * b, B * a + D * b, A * c + C * d, B * c + D * d, A * e + C * f + E, B * e + D * f + F];
  }
  translate(x, y) {
    this.transform(1, 0, 0, 1, x, y);
  }
  scale(x, y) {
    this.transform(x, 0, 0, y, 0, 0);
  }
  rotate(t) {
    const c = Math.cos(t);
    const s = Math.sin(t);
    this.transform(c, s, -s, c, 0, 0);
  }
  setLineDash(a) {
    this.st.dash = Array.isArray(a) ? [...a] : [];
  }
  getLineDash() {
    return [...this.st.dash];
  }
  measureText(text) {
    const m = measurer();
    m.font = this.st.font;
    return m.measureText(text);
  }

  // paths
  pt(x, y) {
    const [a, b, c, d, e, f] = this.m;
    return [a * x + c * y + e, b * x + d * y + f];
  }
  unit() {
    return Math.hypot(this.m[0], this.m[1]) || 1;
  }
  beginPath() {
    this.d = '';
  }
  moveTo(x, y) {
    const [X, Y] = this.pt(x, y);
    this.d += `M${r2(X)} ${r2(Y)}`;
  }
  lineTo(x, y) {
    const [X, Y] = this.pt(x, y);
    this.d += `L${r2(X)} ${r2(Y)}`;
  }
  closePath() {
    this.d += 'Z';
  }
  rect(x, y, w, h) {
    this.moveTo(x, y);
    this.lineTo(x + w, y);
    this.lineTo(x + w, y + h);
    this.lineTo(x, y + h);
    this.closePath();
  }
  arc(x, y, r, a0, a1, ccw = false) {
    const R = r * this.unit();
    const [cx, cy] = this.pt(x, y);
    const full = Math.abs(a1 - a0) >= 2 * Math.PI - 1e-9;
    const sx = cx + R * Math.cos(a0);
    const sy = cy + R * Math.sin(a0);
    this.d += `${this.d ? 'L' : 'M'}${r2(sx)} ${r2(sy)}`;
    if (full) {
      const ox = cx - R * Math.cos(a0);
      const oy = cy - R * Math.sin(a0);
      this.d += `A${r2(R)} ${r2(R)} 0 1 1 ${r2(ox)} ${r2(oy)}A${r2(R)} ${r2(R)} 0 1 1 ${r2(sx)} ${r2(sy)}`;
      return;
    }
    let sweep = ccw ? a0 - a1 : a1 - a0;
    sweep = ((sweep % (2 * Math.PI)) + 2 * Math.PI) % (2 * Math.PI);
    const ex = cx + R * Math.cos(a1);
    const ey = cy + R * Math.sin(a1);
    this.d += `A${r2(R)} ${r2(R)} 0 ${sweep > Math.PI ? 1 : 0} ${ccw ? 0 : 1} ${r2(ex)} ${r2(ey)}`;
  }

  paint(extra) {
    if (!this.d) return;
    const e = this.el('path', { d: this.d, ...extra });
    if (this.st.globalAlpha < 1) e.setAttribute('opacity', r2(this.st.globalAlpha));
    this.group.append(e);
  }
  strokeAttrs() {
    const u = this.unit();
    return {
      fill: 'none',
      stroke: this.st.strokeStyle,
      'stroke-width': r2(this.st.lineWidth * u),
      'stroke-linejoin': this.st.lineJoin !== 'miter' ? this.st.lineJoin : null,
      'stroke-linecap': this.st.lineCap !== 'butt' ? this.st.lineCap : null,
      'stroke-dasharray': this.st.dash.length ? this.st.dash.map((v) => r2(v * u)).join(' ') : null,
    };
  }
  stroke() {
    this.paint(this.strokeAttrs());
  }
  fill() {
    this.paint({ fill: this.st.fillStyle });
  }
  clip() {
    if (!this.d) return;
    const id = `clip${++this.clips}`;
    const cp = this.el('clipPath', { id });
    cp.append(this.el('path', { d: this.d }));
    this.defs.append(cp);
    const g = this.el('g', { 'clip-path': `url(#${id})` });
    this.group.append(g);
    this.group = g;
  }
  fillRect(x, y, w, h) {
    const saved = this.d;
    this.d = '';
    this.rect(x, y, w, h);
    this.fill();
    this.d = saved;
  }
  strokeRect(x, y, w, h) {
    const saved = this.d;
    this.d = '';
    this.rect(x, y, w, h);
    this.stroke();
    this.d = saved;
  }
  clearRect() {
    // Nothing to clear in a recording that starts empty.
  }

  fillText(text, x, y) {
    const m = /^\s*(?:(bold|italic|\d{3})\s+)?(\d+(?:\.\d+)?)px\s+(.+)$/.exec(this.st.font) || [];
    const [a, b, c, d, e, f] = this.m;
    const straight = b === 0 && c === 0 && a === d;
    let X = x;
    let Y = y;
    let transform = null;
    let size = Number(m[2] || 10);
    if (straight) {
      [X, Y] = this.pt(x, y);
      size *= a;
    } else {
      transform = `matrix(${[a, b, c, d, e, f].map(r2).join(' ')})`;
    }
    const anchor = { center: 'middle', right: 'end', end: 'end' }[this.st.textAlign] || null;
    const baseline = { top: 'hanging', hanging: 'hanging', middle: 'central', bottom: 'text-after-edge' }[this.st.textBaseline] || null;
    const t = this.el('text', {
      x: r2(X),
      y: r2(Y),
      transform,
      fill: this.st.fillStyle,
      'font-family': m[3] || 'sans-serif',
      'font-size': r2(size),
      'font-weight': m[1] && m[1] !== 'italic' ? m[1] : null,
      'text-anchor': anchor,
      'dominant-baseline': baseline,
      opacity: this.st.globalAlpha < 1 ? r2(this.st.globalAlpha) : null,
    });
    // Spaces at the ends of a run would collapse in SVG; canvas keeps them.
    t.textContent = String(text).replace(/^ +| +$/g, (sp) => '\u00a0'.repeat(sp.length));
    this.group.append(t);
  }
}

for (const key of ['fillStyle', 'strokeStyle', 'lineWidth', 'globalAlpha', 'font', 'textAlign', 'textBaseline', 'lineJoin', 'lineCap']) {
  Object.defineProperty(SvgRecorder.prototype, key, {
    get() {
      return this.st[key];
    },
    set(v) {
      this.st[key] = v;
    },
  });
}
