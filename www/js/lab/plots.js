// The lab page's figures, drawn with the explorer's own plotting and export code (plot.js,
// export.js): one figure per measurement, every placement in it, each with hover readouts, the
// words of lab/view.js, PNG/SVG/CSV export (offered once the figure has data) and a visually hidden
// data table. The numbers are the lab's report; the fitted power law's curve is the core's
// (core.js fitPowerLaw, the explorer's fit). This module maps numbers to series; it computes none.

import { Plot, refreshTheme } from '../common/plot.js';
import { figurePng, figureSvg, seriesCsv, download } from '../common/export.js';
import { plain } from '../common/format.js';
import { rich } from '../common/rich.js';
import { NORM_NAMES, NORM_COLOURS } from './state.js';
import { boundOf, boundColumns } from './answer.js';
import { probabilityText } from './numbers.js';
import { Heatmap } from './heatmap.js';

/**
 * The figures: id, title, axes, what an empty one will show (`idle`), and the series of one
 * placement's layers. The end-to-end norm against its bound comes first: the answer. Each
 * placement is one colour; a figure tells its series apart by at most two dash styles.
 */
const FIGURES = [
  {
    id: 'endToEnd', title: 'The end-to-end norm against its bound: log(bound / measured ‖∂x_{L+1}/∂x_l‖₂) per layer l, each placement with its own bound', xLog: false, yLog: false, yLabel: 'log(bound / measured)',
    idle: 'After a run: for each placement, how far its own certified bound (Eq. 9 for Pre-LN, Eq. 15 for LNS) lies above its measured end-to-end norm, as log(bound / measured), at each layer l.',
    series: (norm, layers) => {
      const b = boundOf(norm);
      return [{ key: `${norm}-gap`, label: `${NORM_NAMES[norm]}: ${b.eq} ${b.own ? 'bound' : 'product (a reference: no bound in the paper)'} / measured`, ys: layers.map((l) => boundColumns(norm, l).loose) }];
    },
  },
  {
    id: 'endToEndNorm', title: 'The measured end-to-end norm ‖∂x_{L+1}/∂x_l‖₂ per layer l', xLog: false, yLog: true, yLabel: 'norm',
    idle: 'After a run: each placement’s measured end-to-end norm from layer l to the output (a lower bound), and its probabilistic upper bound when the lab reports one.',
    series: (norm, layers, run) => {
      const upper = layers.some((l) => Number.isFinite(l.end_to_end_upper)) && (run.report?.upper_bound ?? run.upperBound);
      return [
        { key: `${norm}-e2e`, label: `${NORM_NAMES[norm]}: measured (a lower bound)`, ys: layers.map((l) => l.end_to_end_norm) },
        ...(upper ? [{ key: `${norm}-e2e-up`, label: `${NORM_NAMES[norm]}: upper bound, probability ≥ ${probabilityText(upper.probability)}`, ys: layers.map((l) => l.end_to_end_upper), dash: [6, 4] }] : []),
      ];
    },
  },
  {
    id: 'variance', title: 'Variance σ_l² per layer (log-log), with the fitted c · l^q', xLog: true, yLog: true, yLabel: 'variance σ²',
    idle: 'After a run: the variance of each layer’s input xₗ, with the least-squares power law c·l^q fitted to it.',
    series: (norm, layers, extra) => [
      { key: `${norm}-var`, label: `${NORM_NAMES[norm]}: σ_l²`, ys: layers.map((l) => l.variance) },
      ...(extra.fit ? [{ key: `${norm}-fit`, label: `${NORM_NAMES[norm]}: fit ${plain(extra.fit.c, 3)}·l^${plain(extra.fit.q, 3)}`, ys: Array.from(extra.fit.fitted), dash: [6, 4], ref: true }] : []),
    ],
  },
  {
    id: 'jacobians', title: '‖J_l‖₂ and ‖J_l − I‖₂ per layer', xLog: false, yLog: true, yLabel: 'norm',
    idle: 'After a run: the norms of each layer’s Jacobian Jₗ and of Jₗ − I.',
    series: (norm, layers) => [
      { key: `${norm}-j`, label: `${NORM_NAMES[norm]}: ‖J_l‖₂`, ys: layers.map((l) => l.jacobian_norm) },
      { key: `${norm}-jmi`, label: `${NORM_NAMES[norm]}: ‖J_l − I‖₂`, ys: layers.map((l) => l.jacobian_minus_identity_norm), dash: [6, 4] },
    ],
  },
  {
    id: 'gradients', title: 'Parameter-gradient norm ‖∂loss/∂θ_l‖ beside ‖J_l − I‖₂', xLog: false, yLog: true, yLabel: 'norm',
    idle: 'After a run: the norm of the loss gradient with respect to each layer’s weights, beside ‖Jₗ − I‖₂.',
    series: (norm, layers) => [
      { key: `${norm}-g`, label: `${NORM_NAMES[norm]}: ‖∂loss/∂θ_l‖`, ys: layers.map((l) => l.grad_norm) },
      { key: `${norm}-gjmi`, label: `${NORM_NAMES[norm]}: ‖J_l − I‖₂`, ys: layers.map((l) => l.jacobian_minus_identity_norm), dash: [2, 3] },
    ],
  },
];

function el(tag, attrs = {}, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

export class LabFigures {
  constructor(root) {
    this.root = root;
    this.figs = {};
    refreshTheme();
    for (const f of FIGURES) this.figs[f.id] = this.build(f);
    this.heat = this.buildHeat();
    window.matchMedia?.('(prefers-color-scheme: dark)').addEventListener?.('change', () => {
      refreshTheme();
      for (const fig of Object.values(this.figs)) fig.plot.recolour();
      this.heat.map.draw();
    });
  }

  build(f) {
    const figure = el('figure', { class: 'lab-figure', 'data-testid': `lab-plot-${f.id}` });
    const cap = el('figcaption', { id: `lab-cap-${f.id}` });
    rich(cap, f.title);
    const wrap = el('div', { class: 'plot-wrap' });
    const canvas = el('canvas', { tabindex: '0', role: 'img', 'aria-labelledby': `lab-cap-${f.id}`, 'data-testid': `lab-canvas-${f.id}` });
    const overlay = el('canvas', { class: 'overlay', 'aria-hidden': 'true' });
    const hover = el('div', { class: 'hover', 'aria-live': 'off', hidden: '' });
    wrap.append(canvas, overlay, hover);
    const legend = el('ul', { class: 'legend' });
    const words = el('p', { class: 'lab-words', 'data-testid': `lab-words-${f.id}` });
    const bar = el('div', { class: 'share-bar', role: 'group', 'aria-label': `Export: ${f.title}`, hidden: '' });
    const png = el('button', { type: 'button', 'data-testid': `lab-export-png-${f.id}` }, 'PNG');
    const svg = el('button', { type: 'button', 'data-testid': `lab-export-svg-${f.id}` }, 'SVG');
    const csv = el('button', { type: 'button', 'data-testid': `lab-export-csv-${f.id}` }, 'CSV');
    bar.append(png, svg, csv);
    const table = el('div', { class: 'sr-only', 'data-testid': `lab-data-${f.id}` });
    figure.append(cap, wrap, legend, words, bar, table);
    this.root.append(figure);
    const plot = new Plot(wrap, { xLog: f.xLog, yLog: f.yLog, xLabel: 'layer l', yLabel: f.yLabel, legend, refDecades: f.refDecades, integerX: true, hoverTitle: (x) => `l = ${Math.round(x)}` });
    plot.set({ xMin: 1, xMax: 2, series: [], message: f.idle });
    const fig = { f, figure, plot, words, table, bar, caption: '' };
    figure.dataset.message = f.idle;
    const name = `depthprod-lab-${f.id}`;
    png.addEventListener('click', async () => download((await figurePng(plot, `${f.title}. ${fig.caption}`)).blob, `${name}.png`));
    svg.addEventListener('click', () => download(new Blob([figureSvg(plot, `${f.title}. ${fig.caption}`, { title: f.title }).text], { type: 'image/svg+xml' }), `${name}.svg`));
    csv.addEventListener('click', () => download(new Blob([seriesCsv(plot.series, [f.title, fig.caption], { xName: 'layer l' })], { type: 'text/csv' }), `${name}.csv`));
    return fig;
  }

  buildHeat() {
    const figure = el('figure', { class: 'lab-figure lab-heat', 'data-testid': 'lab-plot-angular' });
    const cap = el('figcaption', { id: 'lab-cap-angular' });
    // What is drawn: row i against column j; a distance n = j − i is a diagonal of the map.
    const caption = 'Angular distance between x_i and x_j: cell (i, j) is row i against column j, n = j − i layers apart; the paper’s layer-importance map';
    const title = 'Angular distance between the residual streams of layers i and j (the paper’s layer-importance map)';
    rich(cap, caption);
    const box = el('div', { class: 'lab-heat-row' });
    const words = el('p', { class: 'lab-words', 'data-testid': 'lab-words-angular' });
    const bar = el('div', { class: 'share-bar', role: 'group', 'aria-label': 'Export: angular distance', hidden: '' });
    const png = el('button', { type: 'button', 'data-testid': 'lab-export-png-angular' }, 'PNG');
    const svg = el('button', { type: 'button', 'data-testid': 'lab-export-svg-angular' }, 'SVG');
    const csv = el('button', { type: 'button', 'data-testid': 'lab-export-csv-angular' }, 'CSV');
    bar.append(png, svg, csv);
    const table = el('div', { class: 'sr-only', 'data-testid': 'lab-data-angular' });
    figure.append(cap, box, words, bar, table);
    this.root.append(figure);
    const map = new Heatmap(box);
    png.addEventListener('click', async () => download(await map.png(caption), 'depthprod-lab-angular.png'));
    svg.addEventListener('click', () => download(new Blob([map.svg(caption, title)], { type: 'image/svg+xml' }), 'depthprod-lab-angular.svg'));
    csv.addEventListener('click', () => download(new Blob([map.csv()], { type: 'text/csv' }), 'depthprod-lab-angular.csv'));
    return { map, words, table, bar };
  }

  /**
   * Draws every placement's layers. `runs` maps norm → { layers, fit, angular } (layers may be a
   * prefix while a run streams); `texts` the words of lab/view.js.
   */
  set(runs, texts = {}) {
    for (let part = 0; part < this.parts(); part++) this.setPart(runs, texts, part);
  }

  /** How many parts `setPart` draws: each figure, then the heatmap. */
  parts() {
    return Object.keys(this.figs).length + 1;
  }

  /**
   * Draws one part (a figure, or the heatmap as the last part): a caller streaming layers spreads
   * a redraw over several frames so that no frame pays for every canvas at once.
   */
  setPart(runs, texts, part) {
    const figs = Object.values(this.figs);
    if (part >= figs.length) {
      const maps = Object.entries(runs).filter(([, r]) => r.angular).map(([norm, r]) => ({ norm, name: NORM_NAMES[norm], matrix: r.angular }));
      this.heat.map.set(maps);
      this.heat.bar.hidden = maps.length === 0;
      rich(this.heat.words, texts.angular || '');
      this.heatTable(maps);
      return;
    }
    {
      const fig = figs[part];
      const series = [];
      let xMax = 2;
      for (const [norm, run] of Object.entries(runs)) {
        if (!run.layers.length) continue;
        const xs = Float64Array.from(run.layers, (l) => l.layer);
        xMax = Math.max(xMax, run.totalLayers ?? xs.length);
        for (const s of fig.f.series(norm, run.layers, run)) {
          series.push({ ...s, xs, ys: Float64Array.from(s.ys, (y) => (y == null ? NaN : y)), color: NORM_COLOURS[norm], width: 1.8, points: xs.length <= 40 });
        }
      }
      // An empty figure says what will appear (before a run), or why it is empty (during and after one).
      const shown = series.some((s) => s.ys.some(Number.isFinite));
      const state = document.body.dataset.labState;
      const waiting = state === 'running' ? 'Measuring… this plot fills in when the run reaches its stage.' : state === 'cancelled' ? 'The run was cancelled before this was measured.' : state === 'error' ? 'Nothing to show: the run ended with an error before this was measured.' : fig.f.idle;
      const message = shown ? '' : Object.keys(runs).length ? waiting : fig.f.idle;
      fig.plot.set({ xMin: 1, xMax, series, message });
      // What the canvas says, for readers of the DOM (and the tests).
      fig.figure.dataset.message = message;
      fig.bar.hidden = !shown;
      fig.caption = texts[fig.f.id] || '';
      rich(fig.words, fig.caption);
      this.table(fig);
    }
  }

  /** The hidden table of a figure: every layer, every series (DOM text). */
  table(fig) {
    const curves = fig.plot.series.filter((s) => s.xs && s.xs.length);
    if (!curves.length) {
      fig.table.replaceChildren(el('p', {}, `${fig.f.title}: nothing plotted yet.`));
      return;
    }
    const table = el('table');
    table.append(el('caption', {}, `${fig.f.title}: the plotted values`));
    const head = el('tr');
    head.append(el('th', { scope: 'col' }, 'layer l'));
    for (const s of curves) head.append(el('th', { scope: 'col' }, s.label));
    const thead = el('thead');
    thead.append(head);
    const body = el('tbody');
    const xs = curves[0].xs;
    for (let i = 0; i < xs.length; i++) {
      const tr = el('tr');
      tr.append(el('th', { scope: 'row' }, String(xs[i])));
      for (const s of curves) tr.append(el('td', {}, Number.isFinite(s.ys[i]) ? plain(s.ys[i], 10) : '—'));
      body.append(tr);
    }
    table.append(thead, body);
    fig.table.replaceChildren(table);
  }

  heatTable(maps) {
    // Subscripts rendered (rich), so a screen reader says "x 2", not "x underscore 2".
    const x = (tag, i, attrs) => {
      const cell = el(tag, attrs);
      rich(cell, `x_{${i + 1}}`);
      return cell;
    };
    const out = maps.map(({ norm, name, matrix }) => {
      const table = el('table', { 'data-norm': norm });
      const caption = el('caption');
      rich(caption, `${name}: angular distance between x_i (row i) and x_j (column j), i, j = 1 … ${matrix.length}`);
      const head = el('tr');
      head.append(el('th', { scope: 'col' }, 'row i, column j'), ...matrix.map((_, j) => x('th', j, { scope: 'col' })));
      const thead = el('thead');
      thead.append(head);
      const body = el('tbody');
      matrix.forEach((row, i) => {
        const tr = el('tr');
        tr.append(x('th', i, { scope: 'row' }));
        for (const v of row) tr.append(el('td', {}, plain(v, 6)));
        body.append(tr);
      });
      table.append(caption, thead, body);
      return table;
    });
    this.heat.table.replaceChildren(...out);
  }
}
