// Screen-reader support that must not follow every frame of a drag: once the inputs settle, the key
// numbers are announced in one polite live region, and each plot gets a visually hidden data table
// (its curves at N = 10, 10³, 10⁶, … and at the last depth, read from the series the plot draws, at
// the grid depth nearest to each) plus a list of its reference lines.

import { readoutItems } from './readouts.js';
import { nearest } from '../common/plot.js';
import { richRuns } from '../common/export.js';
import { depthLabel, plain } from '../common/format.js';

const SETTLE_MS = 700;
const KEY = /^(log-product-|limit-scaled$|constant-c$)/;
const ROW_DEPTHS = [10, 1e3, 1e6, 1e9, 1e12, 1e15, 1e18];

/** rich.js notation for speech and table text: "log P_N" → "log P N", "σ_l^2" → "σ l ^2". */
export function spoken(markup) {
  return richRuns(markup)
    .map((r) => (r.k === 'sub' ? ` ${r.t}` : r.k === 'sup' ? (r.t.length > 1 ? `^(${r.t})` : `^${r.t}`) : r.t))
    .join('')
    .replace(/\s+/g, ' ')
    .trim();
}

export class Access {
  /** @param {Record<string, Plot>} plots  main / remainder / tail */
  constructor(plots) {
    this.plots = plots;
    this.timer = 0;
    this.settles = 0;
    this.live = document.createElement('p');
    this.live.className = 'sr-only';
    this.live.id = 'announce';
    this.live.dataset.testid = 'announce';
    this.live.setAttribute('aria-live', 'polite');
    this.live.setAttribute('aria-atomic', 'true');
    document.body.append(this.live);
    this.tables = {};
    for (const [name, plot] of Object.entries(plots)) {
      const box = document.createElement('div');
      box.className = 'sr-only plot-table';
      box.dataset.testid = `table-${name}`;
      box.id = `table-${name}`;
      const anchor = plot.legendEl || plot.wrap;
      anchor.after(box);
      const label = plot.canvas.getAttribute('aria-label');
      if (label) plot.canvas.setAttribute('aria-label', `${label}. Values at selected depths are in the table that follows.`);
      this.heading = this.heading || {};
      this.heading[name] = label || name;
      this.tables[name] = { box, key: '' };
    }
  }

  /** Called after every redraw; the work happens once the inputs have been still for a moment. */
  set(state, good, res) {
    this.latest = { state, good, res };
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.settle(), SETTLE_MS);
  }

  settle() {
    this.timer = 0;
    const { state, good, res } = this.latest;
    for (const [name, plot] of Object.entries(this.plots)) this.table(name, plot);
    // The first settle is the page load: nothing changed yet, so nothing is announced.
    if (this.settles++ === 0) return;
    const items = readoutItems(state, good, res).filter((it) => KEY.test(it.id) && it.num !== '—');
    const parts = items.slice(0, 4).map((it) => `${spoken(it.label)}: ${it.num}`);
    const text = parts.length ? `${parts.join('; ')}.` : `N = ${depthLabel(good.n)}.`;
    // Same text again would not be re-announced; a changed one is.
    if (this.live.textContent !== text) this.live.textContent = text;
  }

  /** Rebuilds the hidden table of one plot from its series (textContent only). */
  table(name, plot) {
    const entry = this.tables[name];
    const curves = plot.series.filter((s) => s.xs && s.ys && s.xs.length);
    const lines = plot.series.filter((s) => s.hline !== undefined);
    const key = `${plot.series.map((s) => `${s.key}:${s.ys ? s.ys.length : s.hline}`).join('|')}|${plot.xMax}|${curves[0]?.ys?.[curves[0].ys.length - 1]}`;
    if (key === entry.key) return;
    entry.key = key;
    const heading = this.heading[name];
    const out = [];
    if (!curves.length && !lines.length) {
      const p = document.createElement('p');
      p.textContent = `${heading}: ${(plot.message || 'nothing plotted').replace(/\.$/, '')}.`;
      entry.box.replaceChildren(p);
      return;
    }
    if (curves.length) {
      const xs = curves[0].xs;
      const idx = [];
      for (const d of [...ROW_DEPTHS, xs[xs.length - 1]]) {
        if (d > xs[xs.length - 1] * (1 + 1e-12)) continue;
        const i = nearest(xs, d);
        if (i >= 0 && !idx.includes(i)) idx.push(i);
      }
      idx.sort((a, b) => a - b);
      const table = document.createElement('table');
      const cap = document.createElement('caption');
      cap.textContent = `${heading}: values of the curves at selected depths`;
      const head = document.createElement('tr');
      head.append(th('depth N', 'col'));
      for (const s of curves) head.append(th(spoken(s.label), 'col'));
      const thead = document.createElement('thead');
      thead.append(head);
      const tbody = document.createElement('tbody');
      for (const i of idx) {
        const tr = document.createElement('tr');
        tr.append(th(depthLabel(xs[i]), 'row'));
        for (const s of curves) {
          const td = document.createElement('td');
          const j = s.xs === xs ? i : nearest(s.xs, xs[i]);
          td.textContent = j >= 0 ? plain(s.ys[j], 10) : '—';
          tr.append(td);
        }
        tbody.append(tr);
      }
      table.append(cap, thead, tbody);
      out.push(table);
    }
    if (lines.length) {
      const ul = document.createElement('ul');
      ul.setAttribute('aria-label', 'Reference lines');
      for (const s of lines) {
        const li = document.createElement('li');
        li.textContent = `${spoken(s.label)}: ${plain(s.hline, 10)}`;
        ul.append(li);
      }
      out.push(ul);
    }
    entry.box.replaceChildren(...out);
  }
}

function th(text, scope) {
  const el = document.createElement('th');
  el.scope = scope;
  el.textContent = text;
  return el;
}
