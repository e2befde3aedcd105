// The angular-distance heatmap of the lab page: one HiDPI canvas per placement, cell (i, j) the
// lab's angular distance between x_i and x_j, with a hover readout and a colour key. Pixels and
// colours only; the values are the lab's.

import { colour, refreshTheme } from './plot.js';
import { plain } from './format.js';
import { rich } from './rich.js';
import { seriesCsv } from './export.js';

// A perceptually ordered ramp (viridis stops), interpolated per channel for a value in [0, 1].
const RAMP = [[68, 1, 84], [59, 82, 139], [33, 145, 140], [94, 201, 98], [253, 231, 37]];

function rampColour(t) {
  const x = Math.min(1, Math.max(0, t)) * (RAMP.length - 1);
  const i = Math.min(RAMP.length - 2, Math.floor(x));
  const f = x - i;
  const c = RAMP[i].map((a, k) => Math.round(a + (RAMP[i + 1][k] - a) * f));
  return `rgb(${c[0]}, ${c[1]}, ${c[2]})`;
}

export class Heatmap {
  constructor(box) {
    this.box = box;
    this.maps = [];
    this.cells = [];
    this.ro = new ResizeObserver(() => this.draw());
    this.ro.observe(box);
  }

  /** maps: [{ norm, name, matrix }] */
  set(maps) {
    const key = maps.map((m) => `${m.norm}:${m.matrix.length}:${m.matrix[0]?.[1]}`).join('|');
    if (key === this.key) return;
    this.key = key;
    this.maps = maps;
    // One colour scale for every map (0 … the largest distance of the run), so placements compare.
    this.top = maps.reduce((m, x) => x.matrix.reduce((a, row) => row.reduce((b, v) => (v > b ? v : b), a), m), 0);
    this.cells = maps.map((m) => {
      const wrap = document.createElement('div');
      wrap.className = 'lab-heat-cell';
      const title = document.createElement('p');
      title.className = 'lab-heat-title';
      title.textContent = m.name;
      const canvas = document.createElement('canvas');
      canvas.setAttribute('role', 'img');
      canvas.setAttribute('aria-label', `${m.name}: angular distance between every pair of layers (the values are in the data table)`);
      canvas.dataset.testid = `lab-heat-${m.norm}`;
      const readout = document.createElement('p');
      readout.className = 'hint lab-heat-readout';
      readout.textContent = 'Hover a cell for its value.';
      wrap.append(title, canvas, readout);
      canvas.addEventListener('pointermove', (ev) => {
        const r = canvas.getBoundingClientRect();
        const n = m.matrix.length;
        const i = Math.floor(((ev.clientY - r.top) / r.height) * n);
        const j = Math.floor(((ev.clientX - r.left) / r.width) * n);
        if (i >= 0 && j >= 0 && i < n && j < n) readout.textContent = `x_${i + 1} vs x_${j + 1}: ${plain(m.matrix[i][j], 6)}`;
      });
      return { m, canvas, readout, wrap };
    });
    if (!maps.length) {
      const p = document.createElement('p');
      p.className = 'hint';
      p.textContent = 'Run the lab to see this map.';
      this.box.replaceChildren(p);
    } else this.box.replaceChildren(...this.cells.map((c) => c.wrap), this.keyElement());
    this.draw();
  }

  keyElement() {
    const k = document.createElement('p');
    k.className = 'hint lab-heat-key';
    rich(k, `Colour: 0 (dark, the same direction) … ${plain(this.top, 4)} (bright, the largest distance of this run; 1 would be opposite, 0.5 orthogonal). Row i, column j: x_i against x_j.`);
    return k;
  }

  draw() {
    refreshTheme();
    const dpr = Math.max(1, window.devicePixelRatio || 1);
    for (const { m, canvas } of this.cells) {
      const w = Math.max(1, Math.round(canvas.getBoundingClientRect().width));
      if (!w) continue;
      canvas.width = Math.round(w * dpr);
      canvas.height = Math.round(w * dpr);
      this.paint(canvas.getContext('2d'), m.matrix, w, dpr, 0, 0);
    }
  }

  /** Paints one map of w × w CSS px at (ox, oy), `scale` device px per CSS px. */
  paint(ctx, matrix, w, scale, ox, oy) {
    const n = matrix.length;
    const top = this.top || 1;
    ctx.setTransform(scale, 0, 0, scale, ox * scale, oy * scale);
    ctx.fillStyle = colour('--plot-bg');
    ctx.fillRect(0, 0, w, w);
    const s = w / n;
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        ctx.fillStyle = rampColour(matrix[i][j] / top);
        ctx.fillRect(j * s, i * s, Math.ceil(s), Math.ceil(s));
      }
    }
  }

  /** A PNG of every map side by side (2x). */
  png() {
    const size = 320;
    const gap = 16;
    const canvas = document.createElement('canvas');
    const n = Math.max(1, this.maps.length);
    canvas.width = 2 * (n * size + (n - 1) * gap);
    canvas.height = 2 * (size + 24);
    const ctx = canvas.getContext('2d');
    ctx.setTransform(2, 0, 0, 2, 0, 0);
    ctx.fillStyle = colour('--plot-bg');
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    this.maps.forEach((m, k) => {
      this.paint(ctx, m.matrix, size, 2, k * (size + gap), 24);
      ctx.setTransform(2, 0, 0, 2, 0, 0);
      ctx.fillStyle = colour('--ink');
      ctx.font = '13px system-ui, sans-serif';
      ctx.fillText(m.name, k * (size + gap), 16);
    });
    return new Promise((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('the browser could not encode the PNG'))), 'image/png'));
  }

  /** CSV: the matrices, one column per (placement, j), one row per i. */
  csv() {
    const series = [];
    for (const m of this.maps) {
      const n = m.matrix.length;
      const xs = Float64Array.from({ length: n }, (_, i) => i + 1);
      for (let j = 0; j < n; j++) series.push({ label: `${m.name}: distance to x_${j + 1}`, xs, ys: Float64Array.from(m.matrix, (row) => row[j]) });
    }
    return seriesCsv(series, ['angular distance between x_i (rows, first column i) and x_j (columns)']);
  }
}
