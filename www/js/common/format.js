// Number formatting only: which digits an enclosure certifies, directed rounding for display,
// depth labels. Nothing here computes a product, an asymptote or a bound.

const SUPERSCRIPT = { '0': '⁰', '1': '¹', '2': '²', '3': '³', '4': '⁴', '5': '⁵', '6': '⁶', '7': '⁷', '8': '⁸', '9': '⁹', '-': '⁻' };

/** True for a finite number (never render NaN/Infinity). */
export const finite = (x) => typeof x === 'number' && Number.isFinite(x);

/** `1.234e+21` → `1.234e21`: still parseFloat-readable, easier to read. */
function tidyExp(s) {
  return s.replace('e+', 'e');
}

/**
 * The value rounded to the digits that the enclosure [lo, hi] certifies: the most significant digits d
 * such that lo and hi round to the same d-digit decimal. Rounding is monotone, so every number in
 * [lo, hi] (the exact value included) rounds to that same string.
 * `maxDigits` caps d (a headline shows at most a few digits; capped, the text is still the correctly
 * rounded value of every number in [lo, hi]).
 * Returns { text, digits, certified } — certified false when not even one digit agrees.
 */
export function certifiedText(value, lo, hi, maxDigits = 17) {
  if (!finite(value) || !finite(lo) || !finite(hi)) return null;
  if (lo === hi && maxDigits >= 17) return { text: tidyExp(shortest(lo)), digits: 17, certified: true };
  for (let d = Math.min(17, maxDigits); d >= 1; d--) {
    const a = lo.toPrecision(d);
    if (a === hi.toPrecision(d)) return { text: tidyExp(a), digits: d, certified: true };
  }
  return { text: tidyExp(value.toPrecision(3)), digits: 0, certified: false };
}

function shortest(x) {
  const s = String(x);
  return s.length <= 18 ? s : x.toPrecision(15);
}

/** Significant digits a headline number shows at most (the readouts keep every certified digit). */
export const HEADLINE_DIGITS = 7;

/**
 * An enclosure {value, lo, hi} as the digits both ends agree on, at most `max` of them (so the text
 * is the correctly rounded value of every point of the enclosure), or null when no digit agrees.
 */
export function headlineNumber(e, max = HEADLINE_DIGITS) {
  if (!e) return null;
  const c = certifiedText(Number(e.value), Number(e.lo), Number(e.hi), max);
  return c && c.certified ? trimZeros(c.text) : null;
}

/**
 * Decimal text of x with d significant digits, rounded in direction dir (-1 down, +1 up),
 * so that a displayed interval always contains the true one.
 */
export function directed(x, d, dir) {
  if (!finite(x)) return '—';
  if (x === 0) return '0';
  let s = x.toPrecision(d);
  const y = Number(s);
  if ((dir < 0 && y > x) || (dir > 0 && y < x)) {
    // Step one unit in the last displayed place, in the requested direction.
    const exp = Number(x.toExponential(d - 1).split('e')[1]);
    const unit = Number(`1e${exp - d + 1}`);
    s = (dir < 0 ? y - unit : y + unit).toPrecision(d);
  }
  return tidyExp(s);
}

/** Drops trailing zeros of a decimal ("0.00200000" → "0.002", "1.50e-3" → "1.5e-3"). */
export function trimZeros(s) {
  return s.replace(/(\.\d*?)0+(?=$|e)/, '$1').replace(/\.(?=$|e)/, '');
}

/** "[lo, hi]" with enough digits to show where they differ, rounded outward. */
export function enclosureText(lo, hi, certifiedDigits) {
  const d = Math.min(17, Math.max(3, certifiedDigits + 2));
  return `[${directed(lo, d, -1)}, ${directed(hi, d, +1)}]`;
}

/** Plain number for hover readouts and labels (central values, not certified). */
export function plain(x, digits = 6) {
  if (!finite(x)) return '—';
  if (x === 0) return '0';
  const ax = Math.abs(x);
  if (ax >= 1e-3 && ax < 1e7) return tidyExp(Number(x.toPrecision(digits)).toString());
  return tidyExp(x.toExponential(digits - 1)).replace(/\.?0+e/, 'e');
}

function superscript(intText) {
  let out = '';
  for (const ch of intText) out += SUPERSCRIPT[ch] ?? ch;
  return out;
}

/**
 * A non-negative integer with comma thousands separators (12,345), as en-US writes it. Not
 * toLocaleString: its first call in a page sets up ICU's number formatting, measured at 20-30 ms
 * of the first load's update (issue 11, first number).
 */
export function grouped(n) {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+$)/g, ',');
}

/** A depth for prose: 10⁶, 2.5 × 10¹², 12,345, ∞. */
export function depthLabel(n) {
  if (n === 'inf' || n === Infinity) return '∞';
  if (!finite(n)) return '—';
  if (n < 1e5) return grouped(n);
  const [mant, exp] = n.toExponential().split('e');
  const e = superscript(String(Number(exp)));
  return mant === '1' ? `10${e}` : `${mant} × 10${e}`;
}

/** A depth for the URL and the N text box: integers below 10^6, else `1e6` / `2.5e12` style. */
export function depthToken(n) {
  if (n === 'inf' || n === Infinity) return 'inf';
  if (!finite(n)) return '';
  if (n < 1e6) return String(Math.round(n));
  const [mant, exp] = n.toExponential().split('e');
  return `${mant}e${Number(exp)}`;
}

/** Short decimal for a parameter in a text box or URL: at most 6 significant digits, no exponent below 1e6. */
export function paramToken(x) {
  if (!finite(x)) return '';
  return String(Number(x.toPrecision(6)));
}

/**
 * Terms of a divergence as text, e.g. "2·N^0.5 + 0.5·log N" (a log-like term as "(N^d − 1)/d"): the `max` leading terms (3 unless told;
 * Infinity for all), then "+ k more terms" for the rest, so a 40-term expansion never becomes a paragraph.
 */
export function termsText(terms, { max = 3 } = {}) {
  if (!Array.isArray(terms) || terms.length === 0) return '';
  if (terms.length > max) return `${termsText(terms.slice(0, max), { max })} + ${terms.length - max} more term${terms.length - max === 1 ? '' : 's'}`;
  const parts = [];
  for (const t of terms) {
    if (!t || !finite(t.coefficient)) continue;
    const coef = plain(Math.abs(t.coefficient), 6);
    const sign = t.coefficient < 0 ? '−' : '+';
    let body;
    if (t.log) body = 'log N';
    // a near-resonant exponent d: the core merged c·N^d/d and its part of C into c·(N^d − 1)/d (≈ c·log N)
    else if (t.log_like) body = t.exponent > 0 ? `(N^${plain(t.exponent, 6)} − 1)/${plain(t.exponent, 6)}` : `(1 − N^${plain(t.exponent, 6)})/${plain(-t.exponent, 6)}`;
    else if (t.exponent === 1) body = 'N';
    else body = `N^${plain(t.exponent, 6)}`;
    parts.push({ sign, text: coef === '1' ? body : `${coef}·${body}` });
  }
  return parts.map((p, i) => (i === 0 ? (p.sign === '−' ? '−' : '') + p.text : ` ${p.sign} ${p.text}`)).join('');
}

/**
 * An enclosure's certified digits (certifiedText) without the trailing zeros it does not need:
 * "1.95" for 2 − 0.05, whose enclosure [1.9499999999999997, 1.9500000000000002] certifies
 * "1.950000000000000", and "0" for an enclosure straddling 0 (where no leading digit agrees).
 * The zeros are dropped only when the shorter decimal lies strictly inside [lo, hi] (or is its
 * one value), so the text always lies in the enclosure of the exact value.
 * Returns { text, certified } or null.
 */
export function identifyingText(value, lo, hi) {
  const c = certifiedText(value, lo, hi);
  if (!c) return null;
  const short = trimZeros(c.text);
  if (short === c.text) return { text: c.text, certified: c.certified };
  const x = Number(short);
  const inside = (lo < x && x < hi) || (lo === hi && x === lo);
  return inside ? { text: short, certified: true } : { text: c.text, certified: c.certified };
}
