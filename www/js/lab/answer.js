// The lab's answer in words: one headline per placement (its whole network's measured Jacobian
// norm beside its own certified bound) and one sentence comparing the placements. Every number is
// one the lab reported (a measured norm, its interval or probabilistic upper bound, a certified log
// product and the log of bound over measured that the lab computes); the text only picks, orders
// and rounds them. The one division, the ratio of two placements' measured norms, is formatting
// to two digits of numbers the page shows beside it.

import { NORMS, NORM_NAMES } from './state.js';
import { certifiedLogText, exponent, exponentAtLeast, measuredText, probabilityText, upTo4 } from './numbers.js';
import { enclosureText, plain } from '../common/format.js';

/**
 * Which certified product each placement is measured against. The paper bounds Pre-LN's Jacobian
 * by the unscaled product (Eq. 9) and LNS's by the scaled one (Eq. 15); it proves no bound for the
 * other placements, so the page sets them beside the unscaled product (their residual stream is
 * not scaled by 1/√l) as a reference and says it is not a bound they are known to obey.
 */
export const OWN_BOUND = {
  pre: { family: 'unscaled', eq: 'Eq. 9', product: 'the unscaled product', own: true },
  lns: { family: 'scaled', eq: 'Eq. 15', product: 'the scaled product', own: true },
};
export function boundOf(norm) {
  return OWN_BOUND[norm] ?? { family: 'unscaled', eq: 'Eq. 9', product: 'the unscaled product', own: false };
}

/** The reported log of the bound (an Interval) and of bound over measured for a layer row. */
export function boundColumns(norm, row) {
  return boundOf(norm).family === 'scaled'
    ? { log: row?.bound_scaled_log ?? null, loose: row?.looseness_scaled_log ?? null }
    : { log: row?.bound_unscaled_log ?? null, loose: row?.looseness_unscaled_log ?? null };
}

/** Layer 1's row of a placement's run ({ layers, report }), once its whole-network norm is in. */
export function firstRow(run) {
  const row = run?.layers?.find((l) => l.layer === 1);
  return row && Number.isFinite(row.end_to_end_norm) ? row : null;
}

/**
 * The probabilistic upper bound on ‖∂x_{L+1}/∂x_1‖₂ as words, when the lab reported it and the
 * probability it holds with (`meta`, the report's or the stream's `upper_bound`); '' otherwise.
 */
function upperWords(row, meta) {
  const upper = row.end_to_end_upper;
  if (!Number.isFinite(upper) || !meta || !Number.isFinite(meta.probability)) return '';
  const scope = meta.simultaneous ? 'for every l at once' : 'for this l';
  return ` and at most ${upTo4(upper)} with probability at least ${probabilityText(meta.probability)} (${scope}; an upper bound from ${meta.probes} Gaussian probes, not certified)`;
}

/**
 * How the measured norm was obtained, in words: its interval when the lab reports one, and that
 * the iteration stopped short of its tolerance when it did (the number is still a lower bound).
 */
function measuredWords(row) {
  const iv = row.end_to_end?.interval;
  const short = row.end_to_end?.converged === false ? '; the iteration stopped before reaching its tolerance' : '';
  if (Array.isArray(iv) && iv.length === 2 && Number.isFinite(iv[0]) && Number.isFinite(iv[1])) {
    const shown = measuredText(row.end_to_end_norm, iv).replace(/e.*$/i, '').replace(/[^0-9]/g, '').replace(/^0+/, '').length;
    return `measured; its residual gives the interval ${enclosureText(iv[0], iv[1], shown)}, a measurement, not certified${short}`;
  }
  return `measured: a Rayleigh quotient, so a lower bound${short}`;
}

/**
 * The headline of one placement (rich text for lab/main.js), or null before its whole-network norm
 * ‖∂x_{L+1}/∂x_1‖₂ is measured. `run` is { layers (rows as streamed), report (null until its run
 * finishes), bound and upperBound (the report's `bound` and `upper_bound` as streamed, before the
 * report) }; `stopped`: the run ended (cancelled, or an error) and no report will come.
 */
export function headline(norm, run, { stopped = false } = {}) {
  const row = firstRow(run);
  if (!row) return null;
  const report = run.report;
  const bound = report?.bound ?? run.bound ?? null;
  const name = NORM_NAMES[norm];
  const big = report?.layers.length ?? run.layers.length;
  const norm1 = measuredText(row.end_to_end_norm, row.end_to_end?.interval);
  const parts = [`${name} (L = ${big}): the whole network’s Jacobian ‖∂x_{${big + 1}}/∂x_1‖₂ is ${norm1} (${measuredWords(row)})${upperWords(row, report?.upper_bound ?? run.upperBound)}.`];
  const b = boundOf(norm);
  if (!bound) {
    parts.push(stopped ? `Its certified ${b.eq} bound comes with this placement’s report, which the run ended before.` : `Its certified ${b.eq} bound comes with this placement’s report, when its run finishes.`);
    return parts.join(' ');
  }
  const { log, loose } = boundColumns(norm, row);
  if (!log) {
    const why = bound.errors?.length ? `: ${bound.errors.join('; ')}` : '';
    parts.push(`The ${b.eq} product could not be evaluated for it${why}.`);
    return parts.join(' ');
  }
  const over = `${b.product} over the ${big} layers with the measured σ_l²`;
  const value = `e^{${certifiedLogText(log)}}`;
  if (b.own) {
    parts.push(
      loose >= 0
        ? `Its certified ${b.eq} bound (${over}) is ${value}: the ${b.eq} bound is e^{${exponent(loose)}} times this network’s measured Jacobian norm.`
        : `Its certified ${b.eq} bound (${over}) is ${value}, and the measured norm is e^{${exponent(-loose)}} times above it: the bound does not hold for this network, whose weights do not meet the assumptions behind A and B (Eqs. 47–48 at σ = ${bound.sigma}).`,
    );
  } else {
    parts.push(
      `The paper proves no bound for ${name}; as a reference, not a bound ${name} is known to obey, Pre-LN’s ${b.eq} product (${over}) is ${value}, ` +
        (loose >= 0 ? `e^{${exponent(loose)}} times its measured Jacobian norm.` : `e^{${exponent(-loose)}} times below its measured Jacobian norm.`),
    );
  }
  return parts.join(' ');
}

/**
 * One sentence comparing the placements whose whole-network norm is measured (two or more), or
 * null: the smallest against the largest measured norm, and, once every placement with a bound of
 * its own (Pre-LN, LNS) has its report, how far below those bounds they all are.
 */
export function comparison(runs, { stopped = false } = {}) {
  const measured = NORMS.filter((n) => firstRow(runs[n])).map((n) => ({ norm: n, value: firstRow(runs[n]).end_to_end_norm, row: firstRow(runs[n]) }));
  if (measured.length < 2) return null;
  const sorted = [...measured].sort((x, y) => x.value - y.value);
  const small = sorted[0];
  const large = sorted[sorted.length - 1];
  const name = (n) => NORM_NAMES[n];
  const shown = (m) => measuredText(m.value, m.row.end_to_end?.interval);
  const ratio = plain(large.value / small.value, 2);
  let text;
  if (ratio === '1') {
    text = measured.length === 2
      ? `${name(small.norm)}’s and ${name(large.norm)}’s whole-network Jacobians are about equal (${shown(small)} and ${shown(large)}, measured)`
      : `The ${measured.length} placements’ whole-network Jacobians are about equal (from ${shown(small)}, ${name(small.norm)}, to ${shown(large)}, ${name(large.norm)}, measured)`;
  } else if (measured.length === 2) {
    text = `${name(small.norm)}’s whole-network Jacobian is ${ratio}× smaller than ${name(large.norm)}’s (${shown(small)} against ${shown(large)}, both measured)`;
  } else {
    text = `Of the ${measured.length} placements, ${name(small.norm)}’s whole-network Jacobian is the smallest (${shown(small)}) and ${name(large.norm)}’s the largest (${shown(large)}), ${ratio}× larger (measured)`;
  }
  // The bounds, once every measured placement with a bound of its own has reported it.
  const owners = measured.filter((m) => boundOf(m.norm).own);
  const reported = owners.map((m) => ({ ...m, loose: boundColumns(m.norm, m.row).loose }));
  const others = measured.filter((m) => !boundOf(m.norm).own).map((m) => name(m.norm));
  const noBound = others.length ? ` The paper proves no bound for ${others.join(', ')}.` : '';
  if (!owners.length) return `${text}.${noBound}`;
  // A bound known and not evaluated (its headline says why): no claim about how far below it is.
  const known = (m) => runs[m.norm].report || runs[m.norm].bound;
  if (reported.some((m) => !Number.isFinite(m.loose) && known(m))) return `${text}.${noBound}`;
  if (!reported.every((m) => Number.isFinite(m.loose))) {
    const bounds = `${owners.map((m) => `${name(m.norm)}’s ${boundOf(m.norm).eq}`).join(' and ')} bound${owners.length > 1 ? 's' : ''}`;
    return stopped
      ? `${text}; the run ended before every report, so how far below ${bounds} ${owners.length > 1 ? 'they are' : 'it is'} is not known here.${noBound}`
      : `${text}; how far below ${bounds} ${owners.length > 1 ? 'they are' : 'it is'} follows with ${owners.length > 1 ? 'their reports' : 'its report'}.${noBound}`;
  }
  const above = reported.filter((m) => m.loose < 0);
  if (above.length) {
    return `${text}; ${above.map((m) => `${name(m.norm)}’s measured norm is above its ${boundOf(m.norm).eq} bound`).join(', and ')} (see ${above.length > 1 ? 'their lines' : 'its line'}).${noBound}`;
  }
  const least = Math.min(...reported.map((m) => m.loose));
  const which = reported.map((m) => `${boundOf(m.norm).eq} for ${name(m.norm)}`).join(', ');
  const own = reported.length === 1
    ? `; ${name(reported[0].norm)}’s measured norm is e^{${exponentAtLeast(least)}} or more below its own bound (${which})`
    : `; ${reported.length === 2 ? 'both measured norms are' : `all ${reported.length} measured norms are`} e^{${exponentAtLeast(least)}} or more below their own bounds (${which})`;
  return `${text}${own}.${noBound}`;
}
