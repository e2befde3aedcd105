// The angular-distance heatmap of the lab page: one HiDPI canvas per placement, cell (i, j) the
// lab's angular distance between x_i and x_j (row i, column j), with layer labels on both axes, a
// readout for the pointer and the arrow keys, a colour key, and PNG / SVG / CSV exports laid out
// as the other figures' (export.js). Pixels, colours and tick placement only; the values are the lab's.

import { colour, refreshTheme } from '../common/plot.js';
import { plain } from '../common/format.js';
import { rich } from '../common/rich.js';
import { seriesCsv, figurePng, figureSvg, SvgRecorder } from '../common/export.js';

// A perceptually ordered ramp (viridis stops), interpolated per channel for a value in [0, 1].
const RAMP = [[68, 1, 84], [59, 82, 139], [33, 145, 140], [94, 201, 98], [253, 231, 37]];

function rampColour(t) {
  const x = Math.min(1, Math.max(0, t)) * (RAMP.length - 1);
  const i = Math.min(RAMP.length - 2, Math.floor(x));
  const f = x - i;
  const c = RAMP[i].map((a, k) => Math.round(a + (RAMP[i + 1][k] - a) * f));
  return `rgb(${c[0]}, ${c[1]}, ${c[2]})`;
}

const FS = 11; // label font size (CSS px), as the plots' ticks at narrow widths
const PAD = 8; // above and right of the grid: room for half of the last column's label
const EXPORT_MAP = 300; // one map in an export, labels included (CSS px)

// What an empty map says, by the run's state (lab/main.js keeps it on <body data-lab-state>): the
// angular distances come with a placement's report, at the end of its run.
const WAITING = {
  running: 'Measuring… the map appears when this run’s angular distances are done.',
  cancelled: 'The run was cancelled before its angular distances were measured.',
  error: 'No map: the run ended before its angular distances were measured.',
};

function fontFamily() {
  return getComputedStyle(document.documentElement).getPropertyValue('--font').trim() || 'system-ui, sans-serif';
}

/**
 * Where a map of w × w CSS px puts its n × n grid: the row labels and "layer i" on the left, the
 * column labels and "layer j" below, in equal margins so the cells stay square. Labelled layers:
 * 1, then the multiples of the first k of 1, 2, 5, 10, … whose labels do not collide.
 */
function geometry(ctx, n, w, font) {
  ctx.font = `${FS}px ${font}`;
  const labelW = ctx.measureText(String(n)).width;
  const margin = Math.ceil(Math.max(FS + 6 + labelW + 6, 6 + FS + 4 + FS + 4));
  const size = Math.max(n, w - margin - PAD);
  const s = size / n;
  const need = Math.max(labelW, FS) + 8;
  const k = [1, 2, 5, 10, 20, 25, 50, 100, 200, 500, 1000].find((c) => c * s >= need) ?? n;
  const ticks = [1];
  for (let v = k; v <= n; v += k) if ((v - ticks[ticks.length - 1]) * s >= need) ticks.push(v);
  return { x: margin, y: PAD, size, s, ticks };
}

/** One cell: a fillRect on a canvas, a <rect> in an SVG export (one element per cell, as drawn). */
function cell(ctx, x, y, s) {
  if (!(ctx instanceof SvgRecorder)) {
    // Overlapping by a hair hides the seams antialiasing would leave between cells.
    ctx.fillRect(x, y, s + 0.5, s + 0.5);
    return;
  }
  const [X, Y] = ctx.pt(x, y);
  const S = s * ctx.unit();
  const r2 = (v) => String(Math.round(v * 100) / 100);
  ctx.group.append(ctx.el('rect', { x: r2(X), y: r2(Y), width: r2(S), height: r2(S), fill: ctx.fillStyle, 'shape-rendering': 'crispEdges' }));
}

/** Paints one map with its labels in a w × w CSS px square at (ox, oy); returns its geometry. */
function paintMap(ctx, matrix, top, w, ox, oy, font) {
  const n = matrix.length;
  const g = geometry(ctx, n, w, font);
  const x0 = ox + g.x;
  const y0 = oy + g.y;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      ctx.fillStyle = rampColour(matrix[i][j] / top);
      cell(ctx, x0 + j * g.s, y0 + i * g.s, g.s);
    }
  }
  ctx.lineWidth = 1;
  ctx.strokeStyle = colour('--axis');
  ctx.strokeRect(x0 - 0.5, y0 - 0.5, g.size + 1, g.size + 1);
  ctx.fillStyle = colour('--ink-2');
  ctx.font = `${FS}px ${font}`;
  ctx.textAlign = 'right';
  ctx.textBaseline = 'middle';
  for (const v of g.ticks) ctx.fillText(String(v), x0 - 5, y0 + (v - 0.5) * g.s);
  ctx.textAlign = 'center';
  ctx.textBaseline = 'top';
  for (const v of g.ticks) ctx.fillText(String(v), x0 + (v - 0.5) * g.s, y0 + g.size + 5);
  ctx.textBaseline = 'alphabetic';
  ctx.fillText('layer j', x0 + g.size / 2, oy + w - 4);
  ctx.save();
  ctx.translate(ox + FS + 1, y0 + g.size / 2);
  ctx.rotate(-Math.PI / 2);
  ctx.fillText('layer i', 0, 0);
  ctx.restore();
  return g;
}

/** The colour key of an export: the ramp from 0 to `top` with both ends labelled. */
function paintKey(ctx, x, y, top, font) {
  const W = 180;
  const H = 10;
  const steps = 60;
  for (let q = 0; q < steps; q++) {
    ctx.fillStyle = rampColour((q + 0.5) / steps);
    ctx.fillRect(x + (q * W) / steps, y, W / steps + 0.5, H);
  }
  ctx.fillStyle = colour('--ink-2');
  ctx.font = `${FS}px ${font}`;
  ctx.textBaseline = 'top';
  ctx.textAlign = 'left';
  ctx.fillText('0', x, y + H + 3);
  ctx.textAlign = 'right';
  ctx.fillText(plain(top, 4), x + W, y + H + 3);
  ctx.textAlign = 'left';
  ctx.textBaseline = 'middle';
  ctx.fillText('angular distance (0: the same direction, 0.5: orthogonal)', x + W + 12, y + H / 2);
}

export class Heatmap {
  constructor(box) {
    this.box = box;
    this.maps = [];
    this.cells = [];
    this.ro = new ResizeObserver(() => this.draw());
    this.ro.observe(box);
    // An empty map says what it waits for; a run's start and end change that without a redraw.
    new MutationObserver(() => this.maps.length || this.empty()).observe(document.body, { attributes: true, attributeFilter: ['data-lab-state'] });
    this.empty();
  }

  empty() {
    const p = document.createElement('p');
    p.className = 'hint';
    p.textContent = WAITING[document.body.dataset.labState] ?? 'Run the lab to see this map.';
    this.box.replaceChildren(p);
  }

  /** maps: [{ norm, name, matrix }] */
  set(maps) {
    const key = maps.map((m) => `${m.norm}:${m.matrix.length}:${m.matrix[0]?.[1]}`).join('|');
    if (key === this.key) return;
    this.key = key;
    this.maps = maps;
    // One colour scale for every map (0 … the largest distance of the run), so placements compare.
    this.top = maps.reduce((m, x) => x.matrix.reduce((a, row) => row.reduce((b, v) => (v > b ? v : b), a), m), 0);
    this.cells = maps.map((m) => this.mapElement(m));
    if (!maps.length) this.empty();
    else this.box.replaceChildren(...this.cells.map((c) => c.wrap), this.keyElement());
    this.draw();
  }

  /** One placement's map: its name, the canvas with the highlighted cell on top, the readout. */
  mapElement(m) {
    const wrap = document.createElement('div');
    wrap.className = 'lab-heat-cell';
    const title = document.createElement('p');
    title.className = 'lab-heat-title';
    title.textContent = m.name;
    const frame = document.createElement('div');
    frame.className = 'lab-heat-frame';
    const canvas = document.createElement('canvas');
    canvas.tabIndex = 0;
    canvas.setAttribute('role', 'img');
    canvas.dataset.testid = `lab-heat-${m.norm}`;
    // The highlighted cell is an element over the canvas: moving it repaints nothing.
    const mark = document.createElement('div');
    mark.className = 'lab-heat-mark';
    mark.setAttribute('aria-hidden', 'true');
    mark.hidden = true;
    frame.append(canvas, mark);
    const readout = document.createElement('p');
    readout.className = 'hint lab-heat-readout';
    readout.setAttribute('aria-live', 'polite');
    readout.textContent = 'Hover a cell, or focus the map and use the arrow keys, for its value.';
    wrap.append(title, frame, readout);
    const c = { m, canvas, mark, readout, wrap, g: null, at: null };
    const n = m.matrix.length;
    const pick = (ev) => {
      if (!c.g) return;
      const r = canvas.getBoundingClientRect();
      const i = Math.floor((ev.clientY - r.top - c.g.y) / c.g.s);
      const j = Math.floor((ev.clientX - r.left - c.g.x) / c.g.s);
      if (i >= 0 && j >= 0 && i < n && j < n) this.select(c, i, j);
    };
    canvas.addEventListener('pointermove', pick);
    canvas.addEventListener('pointerdown', pick);
    canvas.addEventListener('pointerleave', () => document.activeElement === canvas || this.select(c, null));
    canvas.addEventListener('focus', () => c.at || this.select(c, 0, 0));
    canvas.addEventListener('blur', () => this.select(c, null));
    canvas.addEventListener('keydown', (ev) => {
      const step = { ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0] }[ev.key];
      if (ev.key === 'Escape') this.select(c, null);
      if (!step) return;
      ev.preventDefault();
      const [i, j] = c.at ?? [0, 0];
      this.select(c, Math.min(n - 1, Math.max(0, i + step[0])), Math.min(n - 1, Math.max(0, j + step[1])));
    });
    return c;
  }

  /** Highlights cell (i, j) of a map and shows its value (i === null: none). */
  select(c, i, j) {
    c.at = i === null ? null : [i, j];
    if (c.at) {
      const apart = Math.abs(j - i);
      rich(c.readout, `x_{${i + 1}} and x_{${j + 1}}, ${apart} layer${apart === 1 ? '' : 's'} apart: ${plain(c.m.matrix[i][j], 6)}`);
    }
    this.placeMark(c);
  }

  placeMark(c) {
    const on = !!(c.at && c.g);
    if (c.mark.hidden === on) c.mark.hidden = !on;
    if (!on) return;
    const { x, y, s } = c.g;
    const [i, j] = c.at;
    Object.assign(c.mark.style, { left: `${x + j * s}px`, top: `${y + i * s}px`, width: `${s}px`, height: `${s}px` });
  }

  keyElement() {
    const k = document.createElement('p');
    k.className = 'hint lab-heat-key';
    const bar = document.createElement('span');
    bar.className = 'lab-heat-bar';
    bar.setAttribute('aria-hidden', 'true');
    const rest = document.createElement('span');
    rich(rest, ` ${plain(this.top, 4)} (bright, the largest distance of this run; 1 would be opposite, 0.5 orthogonal). Row i, column j: x_i against x_j.`);
    k.append('Colour: 0 (dark, the same direction) ', bar, rest);
    return k;
  }

  draw() {
    refreshTheme();
    const dpr = Math.max(1, window.devicePixelRatio || 1);
    const font = fontFamily();
    for (const c of this.cells) {
      const w = Math.round(c.canvas.getBoundingClientRect().width);
      if (!w) continue; // not laid out yet: the resize observer draws it when it is
      c.canvas.width = Math.round(w * dpr);
      c.canvas.height = Math.round(w * dpr);
      const ctx = c.canvas.getContext('2d');
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      ctx.fillStyle = colour('--plot-bg');
      ctx.fillRect(0, 0, w, w);
      c.g = paintMap(ctx, c.m.matrix, this.top || 1, w, 0, 0, font);
      this.placeMark(c);
      // The canvas's text, for those who do not see it: what is drawn and which layers are labelled.
      const n = c.m.matrix.length;
      const label = `${c.m.name}: angular distance between the residual streams of every pair of layers, from 0 (dark) to ${plain(this.top, 4)} (bright); rows layer i and columns layer j, 1 to ${n}, labelled ${c.g.ticks.join(', ')}. Arrow keys move between cells; every value is in the data table.`;
      if (c.canvas.getAttribute('aria-label') !== label) c.canvas.setAttribute('aria-label', label);
    }
  }

  /**
   * The maps as a figure for export.js, which lays out and paints it as the other figures' exports
   * (the picture, then the caption): each map under its name with its labels, up to three in a row,
   * and the colour key below them.
   */
  figure() {
    const GAP = 24;
    const NAME = 26;
    const SIDE = 14;
    const cols = Math.max(1, Math.min(3, this.maps.length));
    const rows = Math.max(1, Math.ceil(this.maps.length / cols));
    const mapsW = cols * EXPORT_MAP + (cols - 1) * GAP;
    const mapsH = rows * (NAME + EXPORT_MAP) + (rows - 1) * GAP;
    return {
      series: [], // no legend: each map has its name
      cssW: mapsW + 2 * SIDE,
      cssH: mapsH + 44,
      paintTo: (ctx, W, H, scale) => {
        const font = fontFamily();
        const left = Math.round((W - mapsW) / 2);
        ctx.setTransform(scale, 0, 0, scale, 0, 0);
        this.maps.forEach((m, k) => {
          const ox = left + (k % cols) * (EXPORT_MAP + GAP);
          const oy = Math.floor(k / cols) * (NAME + EXPORT_MAP + GAP);
          const g = paintMap(ctx, m.matrix, this.top || 1, EXPORT_MAP, ox, oy + NAME, font);
          ctx.fillStyle = colour('--ink');
          ctx.font = `600 13px ${font}`;
          ctx.textAlign = 'left';
          ctx.textBaseline = 'alphabetic';
          ctx.fillText(m.name, ox + g.x, oy + 18);
        });
        paintKey(ctx, SIDE, mapsH + 14, this.top || 1, font);
      },
    };
  }

  /** A PNG (2x) of every map with its labels, the key and `caption`; resolves to a Blob. */
  async png(caption) {
    return (await figurePng(this.figure(), caption)).blob;
  }

  /** A standalone SVG file's text: one <rect> per cell, the labels, the key, `caption`, `title`. */
  svg(caption, title) {
    return figureSvg(this.figure(), caption, { title }).text;
  }

  /** CSV: the matrices, one row per layer i (the first column), one column per (placement, j). */
  csv() {
    const series = [];
    for (const m of this.maps) {
      const n = m.matrix.length;
      const xs = Float64Array.from({ length: n }, (_, i) => i + 1);
      for (let j = 0; j < n; j++) series.push({ label: `${m.name}: layer j = ${j + 1}`, xs, ys: Float64Array.from(m.matrix, (row) => row[j]) });
    }
    return seriesCsv(series, ['angular distance between x_i and x_j: one row per layer i, one column per placement and layer j'], { xName: 'layer i' });
  }
}
