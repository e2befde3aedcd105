// Every displayed equation of the claim cards and their "Why" derivations adds up, and every
// parameter they name is the one the card is evaluated with. For every preset, and for random
// views (each product with its own power law, exponential variance, a measured list, the LNS
// regime), in both browsers, this walks each card and its open Why and checks:
//   - the card's parameters (data-params, and the "A = …, N = …" it writes) are its product's own
//     (paramsFor, from the page's modules) or, outside the claim's regime, the regime point the
//     card names (cards.js claimParams states the rule; the test restates it);
//   - every live number of a Why is the core's value for the card's parameters (asked of the core
//     here, independently of proofs.js), and a number the card shows too is the same text;
//   - every displayed relation holds: the MathML is read as rows of numbers (<mn>), operators
//     (<mo>) and the card's parameters (<mi> A, B, c, q, ε, N), split at relations (=, ≤, <, ≥,
//     >, ≠, ≈); every side that is arithmetic in numbers and parameters (+ − · /, fractions,
//     roots, powers, log, ζ) is evaluated in interval arithmetic, and each relation between two
//     such sides (through symbolic sides between them, "log Q_N = 2.1 ≤ log Q_∞ = 2.2") must
//     hold twice: to the digits shown (each number stands for the interval its last digit
//     allows) and on the certified enclosures (data-lo, data-hi);
//   - a parameter a Why or card names ("c = 1", a slot A, q, ε, N) equals the card's, exactly;
//   - no number carries floating-point noise (trailing zeros its enclosure does not need, or a
//     binary-rounding tail such as 0.016384000000000003).
// A relation inside \general{…} (<mrow data-general>) is about other values than the card's and
// is skipped; an "≈" between two evaluated sides would need a stated tolerance and fails.
// Random views come from a seeded generator: E2E_SEED=<n> picks another set (the seed is in the
// test names).
import assert from 'node:assert/strict';
import { test as nodeTest } from 'node:test';
import { browsers } from './harness.mjs';

const { test, session } = browsers();
const T = { timeout: 240_000 };

const CLAIM_FAMILY = { eq11: 'unscaled', eq65: 'scaled', s41: 'scaled', eq50: 'harmonic' };
const PRESETS = ['correction', 'preln', 'lns', 'comparison', 'exp', 'harmonic'];

// ───────────── exact decimals (the parameters as typed) ─────────────

/** A decimal text as m · 10^e with m a BigInt, or null. */
function decimal(text) {
  const t = String(text).trim().replace(/−/g, '-');
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/i.exec(t);
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) return null;
  const frac = m[3] ?? '';
  const sign = m[1] === '-' ? -1n : 1n;
  return { m: sign * BigInt(`${m[2]}${frac}` || '0'), e: Number(m[4] ?? 0) - frac.length };
}
const POW10 = (k) => 10n ** BigInt(k);
/** a − b, a = b for decimals. */
function decSub(a, b) {
  const e = Math.min(a.e, b.e);
  return { m: a.m * POW10(a.e - e) - b.m * POW10(b.e - e), e };
}
const decCmp = (a, b) => {
  const d = decSub(a, b).m;
  return d < 0n ? -1 : d > 0n ? 1 : 0;
};
/** A decimal as plain text ("1.5", "-0.25", "1000000"): exact, for messages and for Number(). */
function decText(d) {
  const neg = d.m < 0n;
  let digits = (neg ? -d.m : d.m).toString();
  if (d.e >= 0) digits += '0'.repeat(d.e);
  else {
    digits = digits.padStart(-d.e + 1, '0');
    digits = `${digits.slice(0, d.e)}.${digits.slice(d.e)}`.replace(/\.?0+$/, '');
  }
  return `${neg ? '-' : ''}${digits}`;
}

const SUPER = { '⁰': '0', '¹': '1', '²': '2', '³': '3', '⁴': '4', '⁵': '5', '⁶': '6', '⁷': '7', '⁸': '8', '⁹': '9', '⁻': '-' };
/**
 * A number as the page writes it ("2.106", "-2.4e-5", "10⁶", "2.5 × 10¹²", "12,345", "∞"):
 * { dec, inf } or null. `dec.e` is the power of ten of its last digit.
 */
function shownNumber(text) {
  const t = String(text).trim().replace(/−/g, '-');
  if (t === '∞') return { inf: true };
  const sup = (s) => Number([...s].map((ch) => SUPER[ch]).join(''));
  let m = /^(-?\d+(?:\.\d+)?) × 10([⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+)$/.exec(t);
  if (m) {
    const d = decimal(m[1]);
    return { dec: { m: d.m, e: d.e + sup(m[2]) } };
  }
  m = /^10([⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+)$/.exec(t);
  if (m) return { dec: { m: 1n, e: sup(m[1]) } };
  if (/^\d{1,3}(,\d{3})+$/.test(t)) return { dec: decimal(t.replace(/,/g, '')) };
  const d = decimal(t);
  return d ? { dec: d } : null;
}

// ───────────── interval arithmetic with outward rounding ─────────────

const F = new Float64Array(1);
const U64 = new BigUint64Array(F.buffer);
/** The next double towards +∞ (dir 1) or −∞ (dir −1). */
function next(x, dir) {
  if (Number.isNaN(x) || x === dir * Infinity) return x;
  if (x === 0) return dir * Number.MIN_VALUE;
  F[0] = x;
  U64[0] += (x > 0) === (dir > 0) ? 1n : -1n;
  return F[0];
}
const down = (x, k = 1) => {
  for (let i = 0; i < k; i++) x = next(x, -1);
  return x;
};
const up = (x, k = 1) => {
  for (let i = 0; i < k; i++) x = next(x, 1);
  return x;
};
class Symbolic extends Error {}
const symbolic = (why) => {
  throw new Symbolic(why);
};
const I = (lo, hi = lo) => ({ lo, hi });
/** The doubles around a decimal: the exact decimal lies within half an ulp of its nearest double. */
const decInterval = (d) => {
  const x = Number(decText(d));
  return I(down(x), up(x));
};
/** What a shown decimal with last digit 10^e admits: ± half a unit of that digit. */
const digitInterval = (d) => {
  const x = Number(decText(d));
  const h = 0.5 * Number(`1e${d.e}`);
  return I(down(x - h, 3), up(x + h, 3));
};
// +, −, ×, ÷ and sqrt are correctly rounded (one ulp outward covers them); log and pow are
// V8's / SpiderMonkey's fdlibm ports (below 1 ulp), widened by 4 ulps.
const add = (a, b) => I(down(a.lo + b.lo), up(a.hi + b.hi));
const sub = (a, b) => I(down(a.lo - b.hi), up(a.hi - b.lo));
function mul(a, b) {
  const p = [a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi];
  return I(down(Math.min(...p)), up(Math.max(...p)));
}
function div(a, b) {
  if (b.lo <= 0 && b.hi >= 0) symbolic('division by an interval containing 0');
  const p = [a.lo / b.lo, a.lo / b.hi, a.hi / b.lo, a.hi / b.hi];
  return I(down(Math.min(...p)), up(Math.max(...p)));
}
function sqrt(a) {
  if (a.lo < 0) symbolic('sqrt of a negative');
  return I(down(Math.sqrt(a.lo)), up(Math.sqrt(a.hi)));
}
function log(a) {
  if (a.lo <= 0) symbolic('log of a non-positive');
  return I(down(Math.log(a.lo), 4), up(Math.log(a.hi), 4));
}
function pow(a, b) {
  if (b.lo === b.hi && Number.isInteger(b.lo) && Math.abs(b.lo) <= 8) {
    let r = I(1);
    for (let i = 0; i < Math.abs(b.lo); i++) r = mul(r, a);
    return b.lo < 0 ? div(I(1), r) : r;
  }
  if (a.lo <= 0) symbolic('a non-integer power of a non-positive base');
  const p = [a.lo ** b.lo, a.lo ** b.hi, a.hi ** b.lo, a.hi ** b.hi];
  return I(down(Math.min(...p), 4), up(Math.max(...p), 4));
}

/**
 * ζ(s) for real s > 1 with an error bound, by Euler–Maclaurin at N = 20 with six Bernoulli
 * corrections: the remainder is at most the first omitted term (real s), and rounding is at most
 * 40 u of the sum of the terms' magnitudes (each term has at most 16 correctly rounded operations
 * or pow calls, the sum 26 additions).
 */
function zetaPoint(s) {
  const N = 20;
  const B = [1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6]; // B_2 … B_14
  let sum = 0;
  let size = 0;
  const addTerm = (x) => {
    sum += x;
    size += Math.abs(x);
  };
  for (let n = 1; n < N; n++) addTerm(n ** -s);
  addTerm(N ** (1 - s) / (s - 1));
  addTerm(0.5 * N ** -s);
  let rising = s; // s (s+1) … (s+2k−2)
  let fact = 2; // (2k)!
  let term = 0;
  for (let k = 1; k <= 7; k++) {
    term = (B[k - 1] / fact) * rising * N ** (-s - 2 * k + 1);
    if (k < 7) addTerm(term);
    rising *= (s + 2 * k - 1) * (s + 2 * k);
    fact *= (2 * k + 1) * (2 * k + 2);
  }
  const err = Math.abs(term) + 40 * 2 ** -53 * size;
  return I(down(sum - err), up(sum + err));
}
function zeta(s) {
  if (s.lo <= 1) symbolic('ζ at s ≤ 1');
  return I(zetaPoint(s.hi).lo, zetaPoint(s.lo).hi); // ζ decreases on (1, ∞)
}

// ───────────── reading the MathML ─────────────

const RELATIONS = new Set(['=', '≤', '<', '≥', '>', '≈', '≠', '∼', '→', '∝', '≡', '⩽', '⩾']);
const ROWS = new Set(['mrow', 'mstyle', 'mpadded']);
const PARAMS = new Set(['A', 'B', 'c', 'q', 'ε', 'N']);
const SLOT_PARAM = { A: 'A', B: 'B', c: 'c', q: 'q', eps: 'ε', N: 'N' };
const tag = (n) => (typeof n === 'string' ? '#text' : n.t);
const text = (n) => (typeof n === 'string' ? n : n.c.map(text).join(''));
const isRelation = (n) => tag(n) === 'mo' && RELATIONS.has(text(n).trim());
const isGeneral = (n) => typeof n !== 'string' && n.a['data-general'] !== undefined;
const emWidth = (n) => Number.parseFloat(n.a.width ?? '0');
const isSeparator = (n) =>
  (tag(n) === 'mo' && [',', ';', ':'].includes(text(n).trim())) || (tag(n) === 'mspace' && emWidth(n) >= 0.5) || tag(n) === 'mtext';
/** Whether a row (with its nested rows) holds a relation of its own. */
const rowHasRelation = (n) => n.c.some((ch) => isRelation(ch) || (ROWS.has(tag(ch)) && !isGeneral(ch) && rowHasRelation(ch)));

/**
 * The items of a row, nested rows inlined; a nested row with relations of its own ("(ε = 0.5)")
 * becomes a separator here and a formula of its own in `subformulas`; \general{…} a separator.
 */
function rowItems(node, subformulas) {
  const out = [];
  for (const ch of node.c) {
    if (typeof ch === 'string') continue;
    if (ROWS.has(ch.t) && isGeneral(ch)) out.push({ sep: true });
    else if (ROWS.has(ch.t) && rowHasRelation(ch)) {
      out.push({ sep: true });
      subformulas.push(ch);
    } else if (ROWS.has(ch.t)) out.push(...rowItems(ch, subformulas));
    else out.push(ch);
  }
  return out;
}

/** Evaluates a segment (a list of items) to an interval, or throws Symbolic. */
function evaluate(items, env) {
  let i = 0;
  const skip = () => {
    while (i < items.length && (tag(items[i]) === 'mspace' || (tag(items[i]) === 'mo' && /^[\u2061\u2062]?$/.test(text(items[i]).trim())))) i++;
  };
  const peek = () => {
    skip();
    return items[i];
  };
  const isOp = (n, ops) => n && (tag(n) === 'mo' || (tag(n) === 'mi' && text(n) === '/')) && ops.includes(text(n).trim());
  const row = (node) => {
    const subs = [];
    const inner = rowItems({ c: node.c }, subs);
    if (subs.length || inner.some((x) => x.sep || isRelation(x))) symbolic('a relation inside an operand');
    return evaluate(inner, env);
  };
  const startsPrimary = (n) => n && !n.sep && (['mn', 'mfrac', 'msqrt', 'msup', 'msub', 'mrow', 'mstyle', 'munderover', 'munder', 'mover', 'msubsup'].includes(tag(n)) || (tag(n) === 'mi' && text(n) !== '/') || isOp(n, ['(', '[']));
  function primary() {
    const n = peek();
    if (!n || n.sep) symbolic('missing operand');
    i++;
    switch (tag(n)) {
      case 'mn':
        return env.number(n);
      case 'mi': {
        const name = text(n).trim();
        if (name === 'log' || name === 'ζ') {
          const arg = primary();
          return name === 'log' ? log(arg) : zeta(arg);
        }
        if (PARAMS.has(name)) return env.param(name);
        return symbolic(`the symbol ${name}`);
      }
      case 'mo': {
        const open = text(n).trim();
        if (open !== '(' && open !== '[') symbolic(`the operator ${open}`);
        const v = expr();
        const close = peek();
        if (!isOp(close, [open === '(' ? ')' : ']'])) symbolic('unbalanced brackets');
        i++;
        return v;
      }
      case 'mfrac':
        return div(row({ c: [n.c.filter((x) => typeof x !== 'string')[0]] }), row({ c: [n.c.filter((x) => typeof x !== 'string')[1]] }));
      case 'msqrt':
        return sqrt(row(n));
      case 'msup': {
        const [base, exponent] = n.c.filter((x) => typeof x !== 'string');
        return pow(row({ c: [base] }), row({ c: [exponent] }));
      }
      case 'mrow':
      case 'mstyle':
        return row(n);
      default:
        return symbolic(`<${tag(n)}>`);
    }
  }
  function term() {
    let v = primary();
    for (;;) {
      const n = peek();
      if (isOp(n, ['⋅', '·', '×', '*'])) {
        i++;
        v = mul(v, primary());
      } else if (isOp(n, ['/'])) {
        i++;
        v = div(v, primary());
      } else if (startsPrimary(n)) v = mul(v, primary());
      else return v;
    }
  }
  function expr() {
    let sign = 1;
    while (isOp(peek(), ['+', '−', '-'])) {
      if (text(peek()).trim() !== '+') sign = -sign;
      i++;
    }
    let v = term();
    if (sign < 0) v = I(-v.hi, -v.lo);
    for (;;) {
      const n = peek();
      if (isOp(n, ['+'])) {
        i++;
        v = add(v, term());
      } else if (isOp(n, ['−', '-'])) {
        i++;
        v = sub(v, term());
      } else return v;
    }
  }
  if (items.length === 0) symbolic('empty');
  const v = expr();
  skip();
  if (i < items.length) symbolic(`left over: ${items.slice(i).map(text).join('')}`);
  return v;
}

/** The relation from one evaluated side to the next through the relations between them, or null. */
function compose(rels) {
  const set = new Set(rels.filter((r) => r !== '=' && r !== '≡'));
  if ([...set].some((r) => ['∼', '→', '∝'].includes(r))) return null;
  if (set.size === 0) return '=';
  if (set.size === 1) return [...set][0].replace('⩽', '≤').replace('⩾', '≥');
  if ([...set].every((r) => ['≤', '<', '⩽'].includes(r))) return '<';
  if ([...set].every((r) => ['≥', '>', '⩾'].includes(r))) return '>';
  return null;
}

function holds(rel, x, y) {
  switch (rel) {
    case '=':
      return x.lo <= y.hi && y.lo <= x.hi;
    case '≤':
      return x.lo <= y.hi;
    case '<':
      return x.lo < y.hi;
    case '≥':
      return y.lo <= x.hi;
    case '>':
      return y.lo < x.hi;
    case '≠':
      return !(x.lo === x.hi && y.lo === y.hi && x.lo === y.lo);
    default:
      return false;
  }
}
const show = (x) => `[${x.lo}, ${x.hi}]`;

/**
 * Walks one <math> tree: every relation between evaluated sides holds in both modes, and a bare
 * parameter set equal to a bare number ("c = 1") names the card's value exactly. Returns
 * { problems, names, relations } (how many names and relations, in either mode, it checked).
 */
function walkFormula(tree, env, where) {
  const problems = [];
  let names = 0;
  let relations = 0;
  const formulas = [tree];
  while (formulas.length) {
    const f = formulas.shift();
    const items = rowItems(f, formulas);
    const clauses = [[]];
    for (const it of items) {
      if (it.sep || isSeparator(it)) clauses.push([]);
      else clauses.at(-1).push(it);
    }
    for (const clause of clauses) {
      const sides = [[]];
      const rels = [];
      for (const it of clause) {
        if (isRelation(it)) {
          rels.push(text(it).trim());
          sides.push([]);
        } else sides.at(-1).push(it);
      }
      if (rels.length === 0) continue;
      const label = clause.map(text).join('');
      // A parameter named as a number: exact.
      for (let k = 0; k < rels.length; k++) {
        if (rels[k] !== '=') continue;
        const [l, r] = [sides[k], sides[k + 1]];
        const bare = (s) => s.length === 1 && tag(s[0]) === 'mi' && PARAMS.has(text(s[0]).trim()) ? text(s[0]).trim() : null;
        const num = (s) => (s.length === 1 && tag(s[0]) === 'mn' ? s[0] : null);
        const [p, n] = bare(l) && num(r) ? [bare(l), num(r)] : bare(r) && num(l) ? [bare(r), num(l)] : [null, null];
        if (p) {
          const why = env.names(p, n);
          if (why) problems.push(`${where}: “${label}” names ${why}`);
          names++;
        }
      }
      for (const mode of ['digits', 'enclosure']) {
        const values = sides.map((s) => {
          try {
            return evaluate(s, env.mode(mode));
          } catch (e) {
            if (e instanceof Symbolic) return null;
            throw e;
          }
        });
        let last = -1;
        for (let k = 0; k < sides.length; k++) {
          if (!values[k]) continue;
          if (last >= 0) {
            const between = rels.slice(last, k);
            const rel = compose(between);
            const [x, y] = [values[last], values[k]];
            if (between.includes('≈')) problems.push(`${where}: “${label}”: “≈” between two evaluated sides (${show(x)}, ${show(y)}) needs a stated tolerance`);
            else if (rel !== null) {
              relations++;
              if (!holds(rel, x, y)) {
                problems.push(`${where}: “${label}”: ${sides[last].map(text).join('')} ${rel} ${sides[k].map(text).join('')} fails ${mode === 'digits' ? 'to the digits shown' : 'on the enclosures'}: ${show(x)} vs ${show(y)}`);
              }
            }
          }
          last = k;
        }
      }
    }
  }
  return { problems, names, relations };
}

// ───────────── the card's parameters ─────────────

/** q and ε = 2 − q of a power law, as exact decimals (either may be null). */
function exponents(variance) {
  const two = { m: 2n, e: 0 };
  if (variance.eps !== undefined) {
    const eps = decimal(variance.eps);
    return { eps, q: decSub(two, eps) };
  }
  const q = decimal(variance.q);
  return { q, eps: decSub(two, q) };
}

/** The rule of cards.js claimParams, restated: the claim a card should be evaluated at. */
function expectedClaim(id, own, n) {
  const family = CLAIM_FAMILY[id];
  const p = own[family];
  const v = p.variance;
  const base = { family, a: String(p.a), b: String(p.b) };
  const c = v.kind !== 'measured' && v.c !== undefined ? String(v.c) : '1';
  const one = { m: 1n, e: 0 };
  if (family === 'harmonic') return { ...base, variance: { kind: 'power', c: '1', q: '1' }, n };
  if (family === 'unscaled') {
    const inside = v.kind === 'power' && decCmp(exponents(v).q, one) === 0;
    return { ...base, variance: inside ? v : { kind: 'power', c, q: '1' }, n };
  }
  const eps = v.kind === 'power' ? exponents(v).eps : null;
  const inside = !!eps && decCmp(eps, { m: 5n, e: -1 }) >= 0 && decCmp(eps, one) < 0;
  return { ...base, variance: inside ? v : { kind: 'power', c, eps: '0.5' }, n };
}

/** Differences between two claims' parameters (as exact decimals), as sentences. */
function claimDifferences(got, want) {
  const out = [];
  const same = (x, y) => x !== undefined && y !== undefined && decimal(x) && decimal(y) && decCmp(decimal(x), decimal(y)) === 0;
  for (const k of ['a', 'b']) if (!same(got[k], want[k])) out.push(`${k} = ${got[k]}, its product’s is ${want[k]}`);
  if (got.family !== want.family) out.push(`family ${got.family}, not ${want.family}`);
  const [gv, wv] = [got.variance ?? {}, want.variance];
  for (const k of ['c', 'q', 'eps']) {
    if (gv[k] === undefined && wv[k] === undefined) continue;
    if (!same(gv[k], wv[k])) out.push(`${k} = ${gv[k]}, expected ${wv[k]}`);
  }
  if (gv.kind !== wv.kind) out.push(`variance ${gv.kind}, not ${wv.kind}`);
  if (String(got.n) !== String(want.n)) out.push(`N = ${got.n}, not ${want.n}`);
  return out;
}

/** Environment of a card: its parameters as intervals, and how its numbers are read. */
function cardEnv(claim, slotById) {
  const v = claim.variance;
  const { q, eps } = exponents(v);
  const exactOf = { A: decimal(claim.a), B: decimal(claim.b), c: decimal(v.c), q, ε: eps };
  const names = (p, mn) => {
    const slot = mn.a['data-slot'];
    const shown = slot ? slotById[slot] : null;
    const t = text(mn).trim();
    const read = shownNumber(t);
    if (p === 'N') {
      const ok = claim.n === 'inf' ? read?.inf : read?.dec && Number(decText(read.dec)) === claim.n;
      return ok ? null : `N = ${t}, but the card’s N is ${claim.n}`;
    }
    const want = exactOf[p];
    if (!read?.dec || !want) return `${p} = ${t}, which is no number`;
    if (shown && shown.kind === 'enclosure') {
      // A derived value (q from a typed ε): its digits and its enclosure must hold the exact value.
      const x = decInterval(want);
      const d = digitInterval(read.dec);
      const inside = d.lo <= x.hi && x.lo <= d.hi && Number(shown.lo) <= x.hi && x.lo <= Number(shown.hi);
      return inside ? null : `${p} = ${t}, but the card’s ${p} is ${decText(want)}`;
    }
    return decCmp(read.dec, want) === 0 ? null : `${p} = ${t}, but the card’s ${p} is ${decText(want)}`;
  };
  const paramInterval = (p) => {
    if (p === 'N') return claim.n === 'inf' ? symbolic('N = ∞') : I(claim.n);
    return decInterval(exactOf[p]);
  };
  const mode = (m) => ({
    param: paramInterval,
    number(mn) {
      const slot = mn.a['data-slot'];
      const t = text(mn).trim();
      const read = shownNumber(t);
      if (!read?.dec) symbolic(`the number ${t}`);
      if (!slot) return decInterval(read.dec);
      const s = slotById[slot];
      if (!s || s.missing || s.kind === 'double' || s.kind === undefined) {
        // main's slots had no data-kind: their digits and data-lo / data-hi still say what they claim.
        if (s && !s.missing && s.kind === undefined && s.lo !== null) return m === 'digits' ? digitInterval(read.dec) : I(Number(s.lo), Number(s.hi));
        symbolic(`slot ${slot}`);
      }
      if (s.kind === 'exact') return decInterval(read.dec);
      return m === 'digits' ? digitInterval(read.dec) : I(Number(s.lo), Number(s.hi));
    },
  });
  return { mode, names };
}

// ───────────── in the page ─────────────

/** The page's own parameters (paramsFor from its modules) and everything the cards show. */
async function collect(page) {
  return page.evaluate(async () => {
    const st = await import('./js/explorer/state.js');
    const { state } = st.parseFragment(location.hash);
    const { good } = st.validate(state, st.initialGood());
    const plainParams = (p) => ({ ...p, variance: p.variance.values ? { ...p.variance, values: Array.from(p.variance.values) } : p.variance });
    const own = Object.fromEntries(['unscaled', 'scaled', 'harmonic'].map((f) => [f, plainParams(st.paramsFor(f, state, good))]));
    const visible = (el) => el.closest('[hidden]') === null;
    const ser = (node) => (node.nodeType === 3 ? node.textContent : { t: node.localName, a: Object.fromEntries([...node.attributes].map((x) => [x.name, x.value])), c: [...node.childNodes].filter((c) => c.nodeType === 1 || c.nodeType === 3).map(ser) });
    const cards = [...document.querySelectorAll('article[data-testid^="card-"]')].map((art) => {
      const id = art.dataset.testid.slice('card-'.length);
      const why = art.querySelector(':scope > details.why');
      return {
        id,
        params: art.dataset.params ?? null,
        text: [...art.children].filter((e) => !e.matches('.says, details')).map((e) => e.textContent).join('\n'),
        nums: [...art.querySelectorAll('.nums li')].map((li) => ({ slot: li.dataset.slot ?? null, text: li.textContent })),
        maths: why ? [...why.querySelectorAll('math')].filter(visible).map(ser) : [],
        slots: why
          ? [...why.querySelectorAll('mn[data-slot]')].filter(visible).map((m) => ({
              slot: m.dataset.slot,
              text: m.textContent,
              lo: m.getAttribute('data-lo'),
              hi: m.getAttribute('data-hi'),
              kind: m.getAttribute('data-kind') ?? undefined,
              missing: m.hasAttribute('data-missing'),
            }))
          : [],
        whyText: why ? [...why.querySelectorAll('.why-body > :not([hidden])')].map((e) => e.textContent).join('\n') : '',
      };
    });
    return { n: good.n, own, cards };
  });
}

/**
 * Each slot's value asked of the core directly for a claim (not through proofs.js), in the
 * page's formatting: { slot: { text, lo, hi } | null }.
 */
async function expectedSlots(page, claim) {
  return page.evaluate(async (cl) => {
    const core = await import('./js/common/core.js');
    const f = await import('./js/common/format.js');
    const val = (r) => (r.ok ? r.value : null);
    const params = { family: cl.family, a: cl.a, b: cl.b, variance: cl.variance };
    const at = (n) => val(core.evaluate({ ...params, n }));
    const prepared = val(core.product(params));
    const growth = prepared ? prepared.growth() : null;
    prepared?.free();
    const enc = (e) => (e ? { text: f.identifyingText(e.value ?? e.lo, e.lo, e.hi).text, lo: e.lo, hi: e.hi } : null);
    const here = at(cl.n);
    const out = {};
    if (cl.family === 'unscaled') Object.assign(out, { pn: enc(here?.log_product), cc: enc(here?.divergent?.constant), u1: enc(growth?.coefficient), u2: enc(growth?.log_coefficient) });
    if (cl.family === 'scaled') {
      const law = cl.variance.eps !== undefined ? { c: cl.variance.c, eps: cl.variance.eps } : { c: cl.variance.c, q: cl.variance.q };
      const closed = val(core.closedForms({ a: cl.a, b: cl.b, ...law, n: cl.n }));
      const up = (hi) => {
        const t = f.trimZeros(f.directed(hi, 10, +1));
        return { text: t, lo: Number(t), hi: Number(t) };
      };
      Object.assign(out, {
        qn: enc(here?.log_product),
        qinf: enc(here?.limit),
        q1: enc(at(1)?.log_product),
        z1: enc(val(core.closedForms({ a: cl.a, b: 0, ...law }))?.zeta_bound),
        z2: enc(val(core.closedForms({ a: 0, b: cl.b, ...law }))?.zeta_bound),
        zb: enc(closed?.zeta_bound),
        e65n: enc(closed?.eq65?.exponent_at_n),
        e65lim: enc(closed?.eq65?.limit),
        tail: here?.tail ? enc({ value: here.tail.lo, lo: here.tail.lo, hi: here.tail.hi }) : null,
        ztail: closed?.zeta_tail_bound != null ? up(closed.zeta_tail_bound) : null,
      });
    }
    if (cl.family === 'harmonic') Object.assign(out, { harm: enc(here?.log_product), hc: enc(here?.divergent?.constant), hcoef: enc(growth?.log_coefficient) });
    return out;
  }, claim);
}

/** Opens every Why and waits until each visible live number is written. */
async function openAll(page) {
  await page.waitForFunction(() => document.querySelectorAll('details.why').length >= 4);
  await page.evaluate(() => {
    for (const d of document.querySelectorAll('details.why')) d.open = true;
  });
  await page.waitForFunction(() =>
    [...document.querySelectorAll('details.why mn[data-slot]')].filter((m) => m.closest('[hidden]') === null).every((m) => m.hasAttribute('data-lo') || m.hasAttribute('data-missing')),
  );
}

// ───────────── the checks of one view ─────────────

/** A number with noise: trailing zeros its enclosure does not need, or a binary-rounding tail. */
function noise(t, slot) {
  if (/\d{16,}/.test(t.replace('.', '').replace(/^-?0*/, '')) && /(0{5,}|9{5,})\d{1,2}(e-?\d+)?$/.test(t)) return 'a binary-rounding tail';
  if (/\.\d*0(e|$)/.test(t)) {
    if (!slot || slot.kind !== 'enclosure') return 'trailing zeros';
    const short = Number(t.replace(/(\.\d*?)0+(?=$|e)/, '$1').replace(/\.(?=$|e)/, ''));
    if (Number(slot.lo) < short && short < Number(slot.hi)) return 'trailing zeros its enclosure does not need';
  }
  return null;
}

/**
 * Relations between evaluated sides that every view's derivation has, in both modes: Eq. 11's
 * A, B, c and 2A/√c; Eqs. 16 / 65's A, B, c, ε, q = 2 − ε and its chain; §4.1's A, B, c, ε and
 * q = 2 − ε; Eq. 50's A and B.
 */
const MIN_RELATIONS = { eq11: 8, eq65: 20, s41: 10, eq50: 4 };

const NAMED = /(?:^|[\s(,;:])(A|B|c|q|ε|N) = (∞|10[⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+|-?\d[\d.,]*(?:e[+-]?\d+)?(?: × 10[⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+)?)/g;

async function checkView(t, page, label) {
  await openAll(page);
  const view = await collect(page);
  const problems = [];
  let checked = 0;
  const seen = new Set();
  for (const card of view.cards) {
    if (!CLAIM_FAMILY[card.id]) continue;
    seen.add(card.id);
    const where = `${label} / ${card.id}`;
    const want = expectedClaim(card.id, view.own, view.n);
    // 1. The card's parameters: its data-params, and the product's own by the regime rule.
    let claim = want;
    if (!card.params) problems.push(`${where}: the card does not say which parameters it is evaluated with (no data-params)`);
    else {
      const got = JSON.parse(card.params);
      for (const d of claimDifferences(got, want)) problems.push(`${where}: card parameters: ${d}`);
      claim = got;
    }
    // 2. What the card writes ("A = 1", "ε = 0.5", "N = 10⁶") is that claim, and no number is noise.
    const env = cardEnv(claim, {});
    for (const [, p, value] of card.text.matchAll(NAMED)) {
      const v = value.replace(/[.,]$/, '');
      const why = env.names(p, { a: {}, c: [v], t: 'mn' });
      if (why) problems.push(`${where}: the card writes ${why}`);
      checked++;
    }
    for (const tok of card.text.match(/-?\d[\d.]*\d(e-?\d+)?/g) ?? []) {
      const slotText = card.nums.find((x) => x.slot && x.text.includes(tok));
      const slot = slotText ? card.slots.find((s) => s.slot === slotText.slot) : null;
      const bad = noise(tok, slot);
      if (bad) problems.push(`${where}: the card shows ${tok}: ${bad}`);
    }
    if (!card.maths.length) continue;
    // 3. Every live number is the core's for the card's parameters.
    const expected = await expectedSlots(page, claim);
    const slotById = Object.fromEntries(card.slots.map((s) => [s.slot, s]));
    const cardEnvFull = cardEnv(claim, slotById);
    for (const s of card.slots) {
      if (SLOT_PARAM[s.slot]) {
        const why = cardEnvFull.names(SLOT_PARAM[s.slot], { a: { 'data-slot': s.slot }, c: [s.text], t: 'mn' });
        if (why) problems.push(`${where}: the Why names ${why}`);
        checked++;
        continue;
      }
      if (s.slot === 'hn') continue; // a double-precision sum, written after "≈"
      if (!(s.slot in expected)) {
        problems.push(`${where}: slot ${s.slot} is not known to this test`);
        continue;
      }
      const e = expected[s.slot];
      if (!e) {
        if (!(s.missing && s.text === '—')) problems.push(`${where}: slot ${s.slot}: the core has no value for the card’s parameters, the page shows “${s.text}”`);
        continue;
      }
      if (s.text !== e.text || Number(s.lo) !== e.lo || Number(s.hi) !== e.hi) problems.push(`${where}: slot ${s.slot} shows “${s.text}” [${s.lo}, ${s.hi}]; the core gives “${e.text}” [${e.lo}, ${e.hi}] for the card’s parameters`);
      checked++;
      const bad = noise(s.text, s);
      if (bad) problems.push(`${where}: slot ${s.slot} shows ${s.text}: ${bad}`);
    }
    // 4. A number the card and its Why both show is the same text; the card's own bounds hold.
    for (const li of card.nums) {
      const bound = /(?:log Q_?N ≤ log Q_?∞ ≤|at most) (\S+?)(?: for every N)?$/.exec(li.text);
      const quantity = bound ? (li.text.includes('at most') ? expected.tail : expected.qinf) : null;
      if (bound && quantity && !(Number(bound[1]) >= quantity.hi)) problems.push(`${where}: the card says “${li.text}”, but the core’s enclosure reaches ${quantity.hi}`);
      const logL = /log L = (log\(N \+ 1\)|log N), what Θ\(L\) allows: (\S+)$/.exec(li.text);
      if (logL) {
        const d = digitInterval(shownNumber(logL[2]).dec);
        const x = logL[1] === 'log N' ? Math.log(claim.n) : Math.log1p(claim.n);
        const exact = I(down(x, 4), up(x, 4));
        if (!holds('=', d, exact)) problems.push(`${where}: the card says “${li.text}”, but ${logL[1]} is ${show(exact)}`);
      }
    }
    for (const li of card.nums.filter((x) => x.slot)) {
      const s = slotById[li.slot];
      if (s && !s.missing && !li.text.includes(s.text)) problems.push(`${where}: the card shows “${li.text}”, its Why ${li.slot} = ${s.text}`);
    }
    // 5. Every displayed relation; a walk that evaluates too few of them has stopped reading the MathML.
    let relations = 0;
    for (const m of card.maths) {
      const r = walkFormula(m, cardEnvFull, `${where}: Why`);
      problems.push(...r.problems);
      checked += r.names + r.relations;
      relations += r.relations;
    }
    t.diagnostic(`${card.id}: ${relations} relations between evaluated sides`);
    if (relations < MIN_RELATIONS[card.id]) problems.push(`${where}: only ${relations} relations between evaluated sides were checked (at least ${MIN_RELATIONS[card.id]} expected)`);
  }
  for (const id of Object.keys(CLAIM_FAMILY)) if (!seen.has(id)) problems.push(`${label}: no card ${id}`);
  t.diagnostic(`${label}: ${checked} relations, numbers and names checked`);
  assert.ok(checked >= 40, `${label}: only ${checked} checks ran`);
  assert.deepEqual(problems, [], `${label}:\n  ${problems.join('\n  ')}`);
}

// ───────────── the walk itself ─────────────

// The reader of the MathML, on formulas made by hand (the page's are temml's, read in the views
// below): it must find a false sum, a relation that fails only on the enclosures, a parameter
// named wrongly, and read fractions, roots, powers and ζ; and it must leave \general{…} alone.
nodeTest('the walk fails false relations and passes true ones (no browser)', () => {
  const el = (t, a, ...c) => ({ t, a, c });
  const mn = (x, a = {}) => el('mn', a, x);
  const mi = (x) => el('mi', {}, x);
  const mo = (x) => el('mo', {}, x);
  const math = (...c) => el('math', {}, el('mrow', {}, ...c));
  const claim = { family: 'scaled', a: '1', b: '1', variance: { kind: 'power', c: '1', eps: '0.5' }, n: 1e6 };
  const slots = {
    z1: { kind: 'enclosure', lo: '1.9623200994513381', hi: '1.9623200994513461' },
    z2: { kind: 'enclosure', lo: '1.1267338673170544', hi: '1.1267338673170588' },
    zb: { kind: 'enclosure', lo: '3.0890539667683923', hi: '3.0890539667684047' },
    far: { kind: 'enclosure', lo: '3.0890539667690000', hi: '3.0890539667690001' },
  };
  const env = cardEnv(claim, slots);
  const run = (m) => walkFormula(m, env, 'unit');
  const slot = (id, text) => mn(text, { 'data-slot': id });
  // ζ(1 + q/2) + ζ(2 + q) at q = 2 − ε = 1.5, the ζ terms' sum and its total.
  const zetaTerm = (inner) => [mi('ζ'), mo('('), ...inner, mo(')')];
  const good = math(
    ...zetaTerm([mn('1'), mo('+'), el('mfrac', {}, mi('q'), mn('2'))]),
    mo('+'),
    el('mfrac', {}, mi('B'), mi('c')),
    ...zetaTerm([mn('2'), mo('+'), mi('q')]),
    mo('='),
    slot('z1', '1.9623200994513'),
    mo('+'),
    slot('z2', '1.1267338673171'),
    mo('='),
    slot('zb', '3.0890539667684'),
  );
  const ok = run(good);
  assert.deepEqual(ok.problems, []);
  assert.equal(ok.relations, 4);
  // The page's old mistake: the ζ terms of q = 1 beside Q_N's own total.
  const bad = run(math(slot('z1', '2.6123753486855'), mo('+'), slot('z2', '1.2020569031596'), mo('='), slot('zb', '3.0890539667684')));
  assert.equal(bad.problems.length, 1, bad.problems.join('\n'));
  assert.match(bad.problems[0], /fails to the digits shown/);
  // Equal to the digits shown, apart on the enclosures.
  const apart = run(math(slot('zb', '3.0890539667684'), mo('='), slot('far', '3.08905396677')));
  assert.deepEqual(apart.problems.map((p) => /on the enclosures/.test(p)), [true]);
  // A parameter named wrongly, and √, powers and a chain through a symbol: E_∞ ≤ …
  const named = run(math(mi('q'), mo('='), mn('1')));
  assert.ok(named.problems.some((p) => /names q = 1, but the card’s q is 1\.5/.test(p)), named.problems.join('\n'));
  const chain = run(math(mn('0'), mo('≤'), el('msub', {}, mi('E'), mi('∞')), mo('='), el('mfrac', {}, mi('A'), el('msqrt', {}, mi('c'))), el('msup', {}, mi('N'), el('mrow', {}, mo('−'), mi('q'))), mo('≤'), mn('1e-9')));
  assert.deepEqual(chain.problems, []);
  assert.equal(chain.relations, 4); // 0 ≤ N^(−q) (through E_∞), N^(−q) ≤ 1e-9, in both modes
  const wrongChain = run(math(el('msup', {}, mi('N'), el('mrow', {}, mo('−'), mi('q'))), mo('≤'), mn('1e-10')));
  assert.equal(wrongChain.problems.length, 2);
  // \general{…}: q = 1 there is about another value than the card's.
  assert.deepEqual(run(math(el('mrow', { 'data-general': '1' }, mi('q'), mo('='), mn('1')))).problems, []);
  // "≈" between two evaluated sides has no tolerance to be checked with.
  assert.match(run(math(mn('1'), mo('≈'), mn('1.0001'))).problems[0], /needs a stated tolerance/);
  // ζ at real s > 1 against known values: ζ(2) = π²/6, ζ(3/2).
  assert.ok(holds('=', zeta(I(2)), I(Math.PI ** 2 / 6)));
  const z32 = zeta(I(1.5));
  assert.ok(z32.lo <= 2.612375348685488 && 2.612375348685488 <= z32.hi && z32.hi - z32.lo < 1e-13, show(z32));
});

// ───────────── the views ─────────────

for (const name of PRESETS) {
  test(`every equation of every card and Why adds up: preset ${name}`, T, async (t) => {
    const page = await session.open(t);
    const before = await page.evaluate(() => ({ hash: location.hash, updates: window.depthprodStats.updates }));
    await page.click(`[data-testid="preset-${name}"]`);
    await page.waitForFunction((b) => location.hash !== b.hash && location.hash.length > 1 && window.depthprodStats.updates > b.updates, before);
    await checkView(t, page, `preset ${name}`);
  });
}

/** A small deterministic generator (mulberry32). */
function generator(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let x = s;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

const SEED = Number(process.env.E2E_SEED ?? 20260227);
/** Twelve views: two of each kind, the depths drawn without repeats from DEPTHS. */
function randomViews(seed) {
  const rnd = generator(seed);
  const pick = (xs) => xs[Math.floor(rnd() * xs.length)];
  const dec = (lo, hi, digits) => String(Number((lo + rnd() * (hi - lo)).toFixed(digits)));
  const DEPTHS = ['1', '2', '7', '100', '999', '12345', '1e6', '3e9', '1e12', 'inf', '1e6', '250'];
  const depths = DEPTHS.map((d) => [rnd(), d]).sort((x, y) => x[0] - y[0]).map(([, d]) => d);
  const n = () => depths.pop();
  const ab = () => `a=${pick(['0', '1', dec(0, 4, 2), dec(0, 3, 3)])}&b=${pick(['0', '1', dec(0, 4, 2), dec(0, 2, 4)])}`;
  const c = () => pick(['1', '4', '0.25', dec(0.05, 20, 2)]);
  const q = () => pick(['1', '1.5', dec(0.3, 4, 2)]);
  const eps = () => pick(['0.5', '0.75', '1', dec(0.05, 1.9, 3)]);
  const own = (fam) => (rnd() < 0.5 ? `&${fam}.c=${c()}&${fam}.q=${q()}` : `&${fam}.c=${c()}&${fam}.eps=${eps()}`);
  const list = () => {
    const values = Array.from({ length: 6 + Math.floor(rnd() * 20) }, (_, i) => String(Number((Number(dec(0.5, 3, 2)) * (i + 1)).toFixed(3))));
    const depth = Math.max(1, values.length - Math.floor(rnd() * 3));
    return `n=${depth}&variance=list&list=${values.join(',')}`;
  };
  const kinds = [
    ['each product with its own power law', () => `#families=unscaled,scaled,harmonic&${ab()}&c=${c()}&q=${q()}${own('unscaled')}${own('scaled')}&n=${n()}`],
    ['each product with its own power law, LNS shared', () => `#families=unscaled,scaled&${ab()}&c=${c()}&eps=${eps()}${own('unscaled')}${own('scaled')}&n=${n()}`],
    ['a shared power law', () => `#families=unscaled,scaled,harmonic,sqrt-scaled&${ab()}&c=${c()}&q=${q()}&n=${n()}`],
    ['the LNS regime', () => `#families=unscaled,scaled&${ab()}&c=${c()}&eps=${eps()}&n=${n()}`],
    ['exponential variance', () => `#families=unscaled,scaled&${ab()}&c=${c()}&lambda=${dec(0.01, 2, 3)}&n=${n()}&variance=exp`],
    ['a measured list', () => `#families=unscaled,scaled&${ab()}&${list()}`],
  ];
  return [1, 2].flatMap((k) => kinds.map(([name, make]) => ({ name: `${name} (${k})`, hash: make() })));
}

/** Views that reach every block of the derivations (each `when`), with parameters chosen for it. */
const EDGES = [
  // B = A²/2: no log N term; q = 1.25 typed, so ε = 0.75 is the core's 2 − q; c ≠ 1; N = ∞.
  { name: 'no log term, ε from q, c = 2, N = ∞', hash: '#families=unscaled,scaled&a=1&b=0.5&c=2&q=1.25&n=inf' },
  // A = B = 0: every product is 1.
  { name: 'A = B = 0', hash: '#families=unscaled,scaled,harmonic&a=0&b=0&c=1&q=1&n=1e6' },
  // A = 0: a power of N; Q_N's own q with twelve decimals (ε = 0.876543210988).
  { name: 'A = 0, an own q with twelve decimals', hash: '#families=unscaled,scaled&a=0&b=2&c=0.5&q=1&scaled.c=3&scaled.q=1.123456789012&n=12345' },
  // The corner of the parameter box.
  { name: 'the corner A = B = 100, c = 1e-3, q = 0.05', hash: '#families=unscaled,scaled&a=100&b=100&c=0.001&q=0.05&n=1e6' },
  // P_N's own σ² = l^(2−1) (ε = 1 is q = 1: inside Eq. 11's regime), the shared law exponential.
  { name: 'own ε = 1 beside exponential variance', hash: '#families=unscaled,scaled&a=1.5&b=0.75&c=2&lambda=0.1&unscaled.c=2&unscaled.eps=1&n=999&variance=exp' },
];

for (const view of [...EDGES, ...randomViews(SEED).map((v) => ({ ...v, name: `${v.name}, seed ${SEED}` }))]) {
  test(`every equation of every card and Why adds up: ${view.name}`, T, async (t) => {
    t.diagnostic(view.hash);
    const page = await session.open(t, view.hash);
    await checkView(t, page, `${view.name} ${view.hash}`);
  });
}
