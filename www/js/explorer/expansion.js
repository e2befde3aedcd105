// Why a divergent product's constant C and its asymptotic expansion say nothing at the depths shown
// (the corner A = B = 100, c = 1e-3, q = 0.05: C = 5.3e140, 40 terms): words around the core's own
// numbers (series.js collects them in `res.expansions`). Nothing here computes.

import { FAMILY_STYLE } from './series.js';
import { depthLabel, headlineNumber } from '../common/format.js';

/**
 * Why a divergent product's C and expansion say nothing at the depths shown (the core's numbers,
 * `res.expansions[family]` from series.js): how large C and the coefficients are, what the terms
 * add up to at N against log P_N, and where the remainder still is at the last plotted depth.
 */
export function expansionNote(family, x) {
  if (!x) return '';
  const S = FAMILY_STYLE[family].sym;
  const terms = (x.terms || []).filter((t) => Number.isFinite(t?.coefficient));
  if (!terms.length) return '';
  let big = terms[0];
  for (const t of terms) if (Math.abs(t.coefficient) > Math.abs(big.coefficient)) big = t;
  const powers = terms.filter((t) => !t.log && !t.log_like);
  const alternating = powers.length > 2 && powers.every((t, i) => i === 0 || Math.sign(t.coefficient) !== Math.sign(powers[i - 1].coefficient));
  const C = x.constant ? headlineNumber(x.constant, 2) : null;
  const size = (v) => plain2(Math.abs(v));
  const what = big.log ? 'the log N term' : `the N^${plain2(big.exponent)} term`;
  const parts = [
    `${C ? `C = ${C} and ` : ''}the expansion’s ${terms.length} terms have coefficients up to ${size(big.coefficient)} in size (${what})${alternating ? ', alternating in sign' : ''}.`,
  ];
  const logN = x.logAtN ? headlineNumber(x.logAtN, 4) : null;
  if (Number.isFinite(x.leadingAtN) && logN && C) parts.push(`For log ${S}_N = terms + C + o(1) to describe ${S}_N, the terms (they add up to ${plain2(x.leadingAtN)} at N = ${depthLabel(x.nAt)}) and C would have to cancel down to log ${S}_N = ${logN}; they do not.`);
  if (Number.isFinite(x.remainderEnd) && C) parts.push(`log ${S}_N minus its terms is ${plain2(x.remainderEnd)} at N = ${depthLabel(x.nEnd)}, the last depth shown, still far from C, which it reaches only as N → ∞: the o(1) is not small at any depth shown, so neither C nor the terms say how ${S}_N behaves here.`);
  parts.push(`The certified log ${S}_N is summed directly and does not use them.`);
  return parts.join(' ');
}

/** The same in one sentence, for a readout: C's size and where the reasons are. */
export function expansionBrief(family, x) {
  const S = FAMILY_STYLE[family].sym;
  const C = x?.constant ? headlineNumber(x.constant, 2) : null;
  return `${C ? `C = ${C} and ` : ''}the ${x?.terms?.length ?? ''} terms do not come near log ${S}_N at any depth shown (N ≤ ${depthLabel(x?.nEnd)}; “How each product settles” says why).`;
}

/** Two significant digits, for sizes (no trailing noise): 5.3e140, −2.3e139, 0.97. */
function plain2(v) {
  if (!Number.isFinite(v)) return '—';
  const s = Math.abs(v) >= 1e4 || (v !== 0 && Math.abs(v) < 1e-3) ? v.toExponential(1).replace('e+', 'e') : String(Number(v.toPrecision(2)));
  return s.replace(/^-/, '−');
}
