// The measured-list panel: the list itself plotted (σ_l² against l, log-log) and, where the core
// provides its least-squares fit, the fitted power law c · l^q with a one-click "use it". The values,
// the fit and the fitted curve are the core's; this module only draws them.

import * as core from '../common/core.js';
import { Plot } from '../common/plot.js';
import { paramToken } from '../common/format.js';
import { rich } from '../common/rich.js';

export class ListPanel {
  /** @param {(fit: {c: number, q: number}) => void} onUseFit */
  constructor(onUseFit) {
    const wrap = document.querySelector('[data-plot="list"]');
    this.ok = !!wrap;
    if (!this.ok) return;
    this.plot = new Plot(wrap, { yLog: true, xLabel: 'layer l', yLabel: 'variance σ²', legend: document.getElementById('legend-list'), hoverTitle: (x) => `l = ${Math.round(x)}` });
    this.fitText = document.getElementById('list-fit');
    this.useFit = document.getElementById('use-fit');
    this.fit = null;
    this.key = '';
    this.useFit.addEventListener('click', () => {
      if (this.fit) onUseFit({ c: this.fit.c, q: this.fit.q });
    });
  }

  /**
   * Draws the measured lists in use: `entries` [{ key, label, color, values }] (values: the core's
   * Float64Array); [] clears the panel. The least-squares power law is fitted and offered when
   * there is one list (the shared one: "use it" sets the shared power law).
   */
  set(entries) {
    if (!this.ok) return;
    const list = (entries || []).filter((e) => e.values && e.values.length);
    const key = list.map((e) => `${e.key}:${e.values.length}|${e.values[0]}|${e.values[e.values.length - 1]}|${e.values[e.values.length >> 1]}`).join(';');
    if (key === this.key) return;
    this.key = key;
    if (!list.length) {
      this.plot.set({ xMin: 1, xMax: 10, series: [], message: 'No list yet.' });
      this.fitText.textContent = '';
      this.useFit.hidden = true;
      return;
    }
    const series = [];
    let longest = 2;
    for (const e of list) {
      const ys = Float64Array.from(e.values);
      const xs = Float64Array.from(ys, (_, i) => i + 1); // the layer index l of each value
      longest = Math.max(longest, ys.length);
      series.push({ key: `list-${e.key}`, label: e.label, short: e.short ?? 'σ_l²', color: e.color, width: 1.6, xs, ys, points: ys.length <= 200 });
    }
    this.fit = null;
    const one = list.length === 1 && list[0].fit ? list[0] : null;
    const fitter = one && typeof core.fitPowerLaw === 'function' ? core.fitPowerLaw : null;
    const r = fitter ? fitter(Float64Array.from(one.values)) : null;
    if (r?.ok) {
      this.fit = r.value;
      const c = paramToken(this.fit.c);
      const q = paramToken(this.fit.q);
      series.push({ key: 'fit', label: `least-squares fit ${c}·l^${q}`, short: 'fit', color: '--c-orange', dash: [6, 4], width: 1.6, xs: series[0].xs, ys: Float64Array.from(this.fit.fitted), ref: true });
      rich(this.fitText, `Fitted power law: σ_l² ≈ ${c} · l^${q} (least squares of log σ_l² on log l; a fit of the data, not a certified number; rms log residual ${paramToken(this.fit.rms_log_residual)}).`);
      this.useFit.hidden = false;
    } else {
      rich(this.fitText, r && !r.ok ? `No power-law fit: ${r.error}` : '');
      this.useFit.hidden = true;
    }
    this.plot.set({ xMin: 1, xMax: longest, series });
  }
}
