// The lab page's text: the per-placement tables of the CLI contract, the run summary and the words
// beside each plot. Every number is one the lab reported (crates/depthlab through the worker),
// printed, never computed here; DOM text only (no markup is parsed).

import { NORMS, NORM_NAMES } from './state.js';
import { boundOf, boundColumns } from './answer.js';
import { fifteen, certifiedLogText } from './numbers.js';
import { enclosureText, plain } from '../common/format.js';
import { rich } from '../common/rich.js';

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
    const caption = el('caption');
    rich(caption, `${NORM_NAMES[norm]}: the measurements per layer l (x_l enters layer l)`);
    table.append(caption);
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

/** A certified log: the digits both ends agree on (at most 12), then the enclosure, rounded outward. */
function certified(iv) {
  const text = certifiedLogText(iv, 12);
  const digits = text.replace(/e.*$/i, '').replace(/[^0-9]/g, '').replace(/^0+/, '').length;
  return `${text} (certified: in ${enclosureText(iv.lo, iv.hi, digits)})`;
}
/**
 * The summary of one finished placement: A and B, both certified products with the measured σ_l²
 * (its own bound marked), the products with the fitted power law, the fit, the loss, the digests.
 */
export function summaryItem(norm, r) {
  const li = el('li', null, { 'data-testid': `lab-summary-${norm}` });
  const b = r.bound;
  const last = r.layers[0];
  const fit = r.fit_power;
  const own = boundOf(norm);
  const mark = (family) => (own.own && own.family === family ? ' (its own bound)' : '');
  const parts = [
    `${NORM_NAMES[norm]}: A = ${fifteen(b.a)}, B = ${fifteen(b.b)} (Eqs. 47–48 with σ = ${r.config.init_std});`,
    b.unscaled ? `log of the Eq. 9 product with the measured σ_l²${mark('unscaled')} = ${certified(b.unscaled)};` : 'the Eq. 9 product could not be evaluated;',
    b.scaled ? `of Eq. 15${mark('scaled')}: ${certified(b.scaled)};` : '',
    b.unscaled_power_fit ? `with the fitted power law in place of the list: ${e(b.unscaled_power_fit.value)} (Eq. 9)${b.scaled_power_fit ? ` and ${e(b.scaled_power_fit.value)} (Eq. 15)` : ''};` : '',
    last?.end_to_end_norm != null ? `measured ‖∂x_{L+1}/∂x_1‖₂ = ${plain(last.end_to_end_norm, 6)};` : '',
    fit ? `σ_l² ≈ ${e(fit.c)} · l^${e(fit.rate)} (least squares, r² = ${plain(fit.r2, 3)});` : '',
    r.loss != null ? `loss ${e(r.loss)}.` : '',
  ];
  const text = el('span');
  rich(text, parts.filter(Boolean).join(' '));
  li.append(text);
  if (r.digest) {
    // The same digests as `depthprod lab --json`: the same network and input, bit for bit.
    li.append(el('span', ` Weights digest ${r.digest.weights}, input digest ${r.digest.input} (as depthprod lab --json reports them for the same settings).`, { class: 'hint mono', 'data-testid': `lab-digest-${norm}` }));
  }
  if (b.errors?.length) {
    // The lab's reasons a product was not evaluated (e.g. A or B beyond the core's range).
    const more = el('details', null, { class: 'lab-notes' });
    more.append(el('summary', `${b.errors.length} product${b.errors.length > 1 ? 's' : ''} not evaluated: why`), el('p', b.errors.join('; '), { class: 'hint' }));
    li.append(more);
  }
  return li;
}

/**
 * The words beside each plot, with the run's numbers. `reports` maps norm → report (finished ones).
 * Returns { endToEnd, endToEndNorm, variance, jacobians, gradients, angular } as plain strings.
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
  const gap = entries
    .map(([n, r]) => {
      const b = boundOf(n);
      const first = boundColumns(n, r.layers[0]).loose;
      const last = boundColumns(n, lastOf(r)).loose;
      return `${name(n)} against ${b.eq}${b.own ? '' : ' (a reference)'}: e^{${e(first)}} at l = 1, e^{${e(last)}} at l = ${lastOf(r).layer}`;
    })
    .join('; ');
  const e2e = entries
    .map(([n, r]) => {
      const l1 = r.layers[0];
      return `${name(n)}: ‖∂x_{L+1}/∂x_1‖₂ = ${e(l1.end_to_end_norm)}, the product of the per-layer norms e^{${e(l1.log_product_of_norms)}}; at l = ${lastOf(r).layer}: ${e(lastOf(r).end_to_end_norm)}`;
    })
    .join('; ');
  // Where the measured norm is above a placement's own bound (possible with a checkpoint, or σ not
  // the weights'): the bound's premises do not hold for this network, and the words say so.
  const below = entries.flatMap(([n, r]) => {
    if (!boundOf(n).own) return [];
    const bad = r.layers.filter((l) => {
      const x = boundColumns(n, l).loose;
      return x != null && x < 0;
    });
    return bad.length ? [`${name(n)} (${boundOf(n).eq}) at l = ${bad.map((l) => l.layer).join(', ')}`] : [];
  });
  const failed = below.length
    ? ` The measured norm is above its own bound for ${below.join('; ')}: there the bound does not hold for this network, because its A and B come from the paper’s Eqs. 47–48 with the σ typed above and their assumptions about the weights, which these weights (a checkpoint, or a σ other than theirs) need not meet.`
    : '';
  const grads = entries
    .map(([n, r]) => `${name(n)}: at l = 1, ‖∂loss/∂θ_1‖ = ${e(r.layers[0].grad_norm)} against ‖J_1 − I‖₂ = ${e(r.layers[0].jacobian_minus_identity_norm)} (ratio ${e(r.layers[0].grad_to_jacobian_minus_identity)})`)
    .join('; ');
  return {
    variance: `The residual stream’s variance per layer, with the least-squares power law c · l^q (a fit of the measurement, not a certified number). The paper’s argument takes σ_l² ∼ l for Pre-LN and a slower growth under LNS. This run: ${variance}.`,
    jacobians: `‖J_l‖₂ near 1 and ‖J_l − I‖₂ small mean a layer that is close to the identity: the stream passes through almost unchanged. A bounded product of such factors is not useful depth: a layer that does (almost) nothing keeps every product bounded. This run: ${jac}.`,
    endToEnd: `Each point is log(B_l / ‖∂x_{L+1}/∂x_l‖₂) in natural-log units, where B_l is the placement’s own certified bound over layers l … L with its measured σ_k² (Eq. 9, the unscaled product, for Pre-LN; Eq. 15, the scaled product, for LNS; the paper proves no bound for the other placements, which are set against the Eq. 9 product as a reference) and ‖∂x_{L+1}/∂x_l‖₂ the measured norm. The measured norm is a lower bound, so the true gap is at most the plotted one; y = 100 means the bound is e^{100} times the measured norm. Any positive gap is consistent with an upper bound: the measured Jacobian could grow or not whatever the bound does, and the correction does not refute LNS’s reported pretraining gains. This run: ${gap}.${failed}`,
    endToEndNorm: `‖∂x_{L+1}/∂x_l‖₂, the norm of the Jacobian from layer l’s input to the last layer’s output, measured by Lanczos (a Rayleigh quotient: a lower bound)${entries.some(([, r]) => r.upper_bound) ? ', with the lab’s probabilistic upper bound dashed (it holds with the probability in its label; not certified)' : ''}. Submultiplicativity puts it at or below the product of the per-layer norms ∏_{k≥l} ‖J_k‖₂. This run: ${e2e}.`,
    gradients: `A near-identity input Jacobian (small ‖J_l − I‖₂) is a different thing from a negligible parameter gradient: the gradient of the next-token loss with respect to layer l’s weights can stay large while the layer is close to the identity in its input. This run: ${grads}.`,
    // The run's numbers are picked out of each placement's matrix (selection, no arithmetic): the
    // distances one layer apart (n = 1) at their smallest and largest, and the largest of the map.
    angular: `The paper’s layer-importance map: cell (i, j) is the angular distance between x_i and x_j, the residual streams entering layers i and j (x_{L+1} is the last layer’s output), n = j − i layers apart; arccos of their cosine similarity over π, averaged over tokens (0: the same direction, 0.5: orthogonal). Dark cells beside the diagonal: the representation hardly turns from one layer to the next. This run: ${entries
      .map(([n, r]) => {
        const m = r.angular_distance;
        if (!m || m.length < 2) return `${name(n)}: no map`;
        const x = (i) => `x_{${i + 1}}`;
        let lo = 0;
        let hi = 0;
        let far = [0, 1];
        for (let i = 0; i + 1 < m.length; i++) {
          if (m[i][i + 1] < m[lo][lo + 1]) lo = i;
          if (m[i][i + 1] > m[hi][hi + 1]) hi = i;
          for (let j = i + 1; j < m.length; j++) if (m[i][j] > m[far[0]][far[1]]) far = [i, j];
        }
        const step = (i) => `${e(m[i][i + 1])} (${x(i)} to ${x(i + 1)})`;
        return `${name(n)}: one layer apart ${lo === hi ? step(lo) : `from ${step(lo)} to ${step(hi)}`}; the largest distance ${e(m[far[0]][far[1]])}, between ${x(far[0])} and ${x(far[1])}`;
      })
      .join('; ')}.`,
  };
}
