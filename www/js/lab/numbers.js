// The lab page's numbers as text: how many digits a measured or certified number shows, and the
// decimal forms the words use. Formatting only: every number is one the lab reported; nothing here
// computes a norm, a bound or a log.

import { directed, plain, trimZeros } from '../common/format.js';

/** `1.5e+3` → `1.5e3` (parseFloat still reads it). */
const tidy = (s) => s.replace('e+', 'e');

/**
 * The most significant digits, at most `cap`, on which both ends of [lo, hi] agree when rounded:
 * every number in [lo, hi] rounds to the text returned (rounding is monotone). Null when not even
 * one digit agrees. The ends are tried at each count from `cap` down, since ends that agree at 8
 * digits can still round apart at 6 (1.2345649… and 1.2345650…).
 */
export function agreedDigits(lo, hi, cap = 6) {
  if (!Number.isFinite(lo) || !Number.isFinite(hi) || lo > hi) return null;
  for (let d = cap; d >= 1; d--) {
    const a = lo.toPrecision(d);
    if (a === hi.toPrecision(d)) return tidy(trimZeros(a));
  }
  return null;
}

/**
 * A measured norm: the digits its interval (`[lo, hi]`, when the lab reports one) supports, at most
 * six; without an interval, six significant digits of the Rayleigh quotient.
 */
export function measuredText(value, interval) {
  if (!Number.isFinite(value)) return '—';
  if (Array.isArray(interval) && interval.length === 2) {
    const t = agreedDigits(interval[0], interval[1], 6);
    if (t !== null) return t;
  }
  return plain(value, 6);
}

/** A certified log (an Interval {value, lo, hi}): the digits both ends agree on, at most `cap`. */
export function certifiedLogText(interval, cap = 7) {
  if (!interval) return '—';
  return agreedDigits(interval.lo, interval.hi, cap) ?? plain(interval.value, 4);
}

/**
 * A double computed by the lab from a formula (A and B of Eqs. 47–48): 15 significant digits,
 * trailing zeros dropped, so the last bits of its floating-point evaluation do not show as digits
 * (0.016384000000000003 reads 0.016384).
 */
export function fifteen(x) {
  if (!Number.isFinite(x)) return '—';
  if (x === 0) return '0';
  return tidy(trimZeros(x.toPrecision(15)));
}

/** A fitted coefficient carried to the explorer: six significant digits, as a decimal the explorer reads exactly. */
export function six(x) {
  if (!Number.isFinite(x)) return '';
  if (x === 0) return '0';
  return tidy(trimZeros(x.toPrecision(6)));
}

/** The exponent of e^x in the words (x a log the lab reported): four significant digits. */
export const exponent = (x) => plain(x, 4);

/** x rounded down to four significant digits: "e^{75.06} or more" stays true of x = 75.0640. */
export const exponentAtLeast = (x) => directed(x, 4, -1);

/** x rounded up to four significant digits: an upper bound stays an upper bound. */
export const upTo4 = (x) => directed(x, 4, +1);

/** A probability rounded down to six significant digits: "at least 0.999" stays true. */
export const probabilityText = (p) => trimZeros(directed(p, 6, -1));
