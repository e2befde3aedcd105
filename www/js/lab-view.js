// The lab page's text: the per-placement tables of the CLI contract, the run summary and the words
// beside each plot. Every number is one the lab reported (crates/depthlab through the worker),
// printed, never computed here; DOM text only (no markup is parsed).

import { NORMS, NORM_NAMES } from './lab-state.js';
import { plain } from './format.js';
import { rich } from './rich.js';

/** The contract's columns, in the order and with the names of `depthprod lab --json`'s `layers`. */
export const COLUMNS = ['layer', 'variance', 'jacobian_norm', 'jacobian_minus_identity_norm', 'end_to_end_norm', 'grad_norm'];

/**
 * A double as text that reads back as the same double: the shortest round-trip decimal, padded to
 * at least 10 significant digits (the contract's minimum), so 0.5 prints as 5.000000000e-1.
 */
export function exactText(x) {
  if (x === null || x === undefined) return '—';
  if (typeof x !== 'number' || !Number.isFinite(x)) return String(x);
  const s = String(x);
  const digits = s.replace(/e.*$/i, '').replace(/[^0-9]/g, '').replace(/^0+/, '').length;
  return digits >= 10 || Number.isInteger(x) ? s : x.toPrecision(10);
}

function el(tag, text, attrs = {}) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = text;
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
}

/** The table of one placement: a header row and one row per layer (rows may arrive one by one). */
export function renderTable(box, norm, layers, { partial = false } = {}) {
  let wrap = box.querySelector(`[data-norm-table="${norm}"]`);
  if (!wrap) {
    wrap = el('details', null, { 'data-norm-table': norm, class: 'lab-table-wrap' });
    wrap.append(el('summary', `${NORM_NAMES[norm]}: per-layer table`));
    const scroller = el('div', null, { class: 'lab-table-scroll', tabindex: '0', role: 'region', 'aria-label': `${NORM_NAMES[norm]} table` });
    const table = el('table', null, { 'data-testid': `lab-table-${norm}`, class: 'lab-table' });
    table.append(el('caption', `${NORM_NAMES[norm]}: the measurements per layer l (x_l enters layer l)`));
    const head = el('tr');
    for (const c of COLUMNS) head.append(el('th', c, { scope: 'col' }));
    const thead = el('thead');
    thead.append(head);
    table.append(thead, el('tbody'));
    scroller.append(table);
    wrap.append(scroller);
    // Placements may finish in any order (they run side by side): tables keep the page's order.
    const later = [...box.querySelectorAll('[data-norm-table]')].find((w) => NORMS.indexOf(w.dataset.normTable) > NORMS.indexOf(norm));
    box.insertBefore(wrap, later ?? null);
  }
  const table = wrap.querySelector('table');
  table.dataset.complete = partial ? 'false' : 'true';
  const body = table.tBodies[0];
  const rows = layers.map((l) => {
    const tr = el('tr');
    COLUMNS.forEach((c, i) => tr.append(el(i === 0 ? 'th' : 'td', exactText(l[c]), i === 0 ? { scope: 'row' } : {})));
    return tr;
  });
  body.replaceChildren(...rows);
}

/** Removes every table (a new run starts). */
export function clearTables(box) {
  box.replaceChildren();
}

const e = (x) => (x === null || x === undefined ? '—' : plain(x, 4));

/** The summary of one finished placement: the bound, the fit, the loss (numbers as reported). */
export function summaryItem(norm, r) {
  const li = el('li', null, { 'data-testid': `lab-summary-${norm}` });
  const b = r.bound;
  const last = r.layers[0];
  const fit = r.fit_power;
  const parts = [
    `${NORM_NAMES[norm]}: A = ${e(b.a)}, B = ${e(b.b)} (Eqs. 47–48 with σ = ${r.config.init_std});`,
    b.unscaled ? `log of the Eq. 9 product with the measured σ_l² = ${e(b.unscaled.value)} (certified in [${plain(b.unscaled.lo, 12)}, ${plain(b.unscaled.hi, 12)}]);` : 'the Eq. 9 product could not be evaluated;',
    b.scaled ? `of Eq. 15: ${e(b.scaled.value)};` : '',
    last?.end_to_end_norm != null ? `measured ‖∂x_{L+1}/∂x_1‖₂ = ${e(last.end_to_end_norm)};` : '',
    fit ? `σ_l² ≈ ${e(fit.c)} · l^${e(fit.rate)} (least squares, r² = ${plain(fit.r2, 3)});` : '',
    r.loss != null ? `loss ${e(r.loss)}.` : '',
  ];
  const text = el('span');
  rich(text, parts.filter(Boolean).join(' '));
  li.append(text);
  if (b.errors?.length) {
    // The lab's reasons a product was not evaluated (e.g. a fitted c outside the core's range).
    const more = el('details', null, { class: 'lab-notes' });
    more.append(el('summary', `${b.errors.length} product${b.errors.length > 1 ? 's' : ''} not evaluated: why`), el('p', b.errors.join('; '), { class: 'hint' }));
    li.append(more);
  }
  return li;
}

/**
 * The words beside each plot, with the run's numbers. `reports` maps norm → report (finished ones).
 * Returns { variance, jacobians, endToEnd, looseness, gradients, angular } as plain strings.
 */
export function words(reports) {
  const entries = Object.entries(reports);
  if (!entries.length) return {};
  const name = (n) => NORM_NAMES[n];
  const lastOf = (r) => r.layers[r.layers.length - 1];
  const variance = entries
    .map(([n, r]) => (r.fit_power ? `${name(n)}: σ_l² ≈ ${e(r.fit_power.c)} · l^${e(r.fit_power.rate)} (q 95% interval [${r.fit_power.rate_ci ? r.fit_power.rate_ci.map((v) => e(v)).join(', ') : '—'}])` : `${name(n)}: no power-law fit`))
    .join('; ');
  const jac = entries
    .map(([n, r]) => `${name(n)}: ‖J_1‖₂ = ${e(r.layers[0].jacobian_norm)}, ‖J_1 − I‖₂ = ${e(r.layers[0].jacobian_minus_identity_norm)}; at l = ${lastOf(r).layer}: ${e(lastOf(r).jacobian_norm)} and ${e(lastOf(r).jacobian_minus_identity_norm)}`)
    .join('; ');
  const e2e = entries
    .map(([n, r]) => `${name(n)}: ‖∂x_{L+1}/∂x_1‖₂ = ${e(r.layers[0].end_to_end_norm)}, the product of the per-layer norms e^${e(r.layers[0].log_product_of_norms)}`)
    .join('; ');
  const loose = entries
    .map(([n, r]) => {
      const l1 = r.layers[0];
      return `${name(n)}: at l = 1 the Eq. 9 bound is e^${e(l1.looseness_unscaled_log)} times the measured norm, the Eq. 15 bound e^${e(l1.looseness_scaled_log)} times`;
    })
    .join('; ');
  const grads = entries
    .map(([n, r]) => `${name(n)}: at l = 1, ‖∂loss/∂θ_1‖ = ${e(r.layers[0].grad_norm)} against ‖J_1 − I‖₂ = ${e(r.layers[0].jacobian_minus_identity_norm)} (ratio ${e(r.layers[0].grad_to_jacobian_minus_identity)})`)
    .join('; ');
  return {
    variance: `The residual stream’s variance per layer, with the least-squares power law c · l^q (a fit of the measurement, not a certified number). The paper’s argument takes σ_l² ∼ l for Pre-LN and a slower growth under LNS. This run: ${variance}.`,
    jacobians: `‖J_l‖₂ near 1 and ‖J_l − I‖₂ small mean a layer that is close to the identity: the stream passes through almost unchanged. A bounded product of such factors is not useful depth: a layer that does (almost) nothing keeps every product bounded. This run: ${jac}.`,
    endToEnd: `The end-to-end norm is what the product bounds. Submultiplicativity puts it at or below the product of the per-layer norms; the paper’s product (Eq. 9) bounds it from further above. This run: ${e2e}.`,
    looseness: `How loose the paper’s bound is, per layer: log(bound / measured), the bound being the certified Eq. 9 or Eq. 15 product from layer l to L with the measured variances. It is an upper bound, so any positive gap is consistent with it; the measured Jacobian could grow or not whatever the bound does, and the correction does not refute LNS’s reported pretraining gains. This run: ${loose}.`,
    gradients: `A near-identity input Jacobian (small ‖J_l − I‖₂) is a different thing from a negligible parameter gradient: the gradient of the next-token loss with respect to layer l’s weights can stay large while the layer is close to the identity in its input. This run: ${grads}.`,
    angular: 'The paper’s layer-importance map: the angular distance between x_l and x_{l+n} (arccos of the cosine similarity over π, averaged over tokens). Dark: the representation hardly turns between the two layers.',
  };
}
