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

  /** Draws a parsed list (the core's Float64Array or array), or clears the panel for null. */
  set(values) {
    if (!this.ok) return;
    const key = values ? `${values.length}|${values[0]}|${values[values.length - 1]}|${values[values.length >> 1]}` : '';
    if (key === this.key) return;
    this.key = key;
    if (!values || !values.length) {
      this.plot.set({ xMin: 1, xMax: 10, series: [], message: 'No list yet.' });
      this.fitText.textContent = '';
      this.useFit.hidden = true;
      return;
    }
    const ys = Float64Array.from(values);
    const xs = Float64Array.from(ys, (_, i) => i + 1); // the layer index l of each value
    const series = [{ key: 'list', label: 'measured σ_l²', short: 'σ_l²', color: '--c-scaled', width: 1.6, xs, ys, points: ys.length <= 200 }];
    this.fit = null;
    const fitter = typeof core.fitPowerLaw === 'function' ? core.fitPowerLaw : null;
    const r = fitter ? fitter(ys) : null;
    if (r?.ok) {
      this.fit = r.value;
      const c = paramToken(this.fit.c);
      const q = paramToken(this.fit.q);
      series.push({ key: 'fit', label: `least-squares fit ${c}·l^${q}`, short: 'fit', color: '--c-orange', dash: [6, 4], width: 1.6, xs, ys: Float64Array.from(this.fit.fitted), ref: true });
      rich(this.fitText, `Fitted power law: σ_l² ≈ ${c} · l^${q} (least squares of log σ_l² on log l; a fit of the data, not a certified number; rms log residual ${paramToken(this.fit.rms_log_residual)}).`);
      this.useFit.hidden = false;
    } else {
      rich(this.fitText, r && !r.ok ? `No power-law fit: ${r.error}` : '');
      this.useFit.hidden = true;
    }
    this.plot.set({ xMin: 1, xMax: Math.max(2, ys.length), series });
  }
}
