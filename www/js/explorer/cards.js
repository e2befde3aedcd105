// "Paper says / the product does" cards. The verdicts only compare what the core reports (the shape
// of a divergence, whether a limit exists); every number is the core's. `claimParams` says which
// product and parameters each card judges; proofs.js fills the card's "Why" from the same object.

import { rich } from '../common/rich.js';
import * as core from '../common/core.js';
import { termsText, depthLabel, directed, identifyingText, trimZeros } from '../common/format.js';
import { paramsFor } from './state.js';
import { evalFor, growthFor } from './series.js';
import { setAttr, setText } from './readouts.js';

const CARDS = [
  {
    id: 'eq11',
    title: 'Eq. 11: Pre-LN grows as Θ(L)',
    says: 'The unscaled product of Eq. 9, P_N = ∏(1 + A/σ_l + B/σ_l²) with σ_l² ∼ l, grows like Θ(L), so the Pre-LN Jacobian bound grows linearly with depth.',
    judged: 'Judged: the displayed upper product P_N and the step from it to Θ(L), at σ_l² = c·l. An actual Pre-LN Jacobian may grow differently.',
  },
  {
    id: 'eq65',
    title: 'Eqs. 16 / 65: LNS bound is ω(1)',
    says: 'With LayerNorm Scaling, σ_l² ∼ l^(2−ε), ½ ≤ ε < 1, the product Q_N = ∏(1 + A/(lσ_l) + B/(l²σ_l²)) is ω(1): it still grows without bound (App. A.4, Eq. 65).',
    judged: 'Judged: the displayed upper product Q_N and Eq. 65’s last step, at σ_l² = c·l^(2−ε), not LNS as a method; the correction leaves LNS’s reported pretraining gains standing.',
  },
  {
    id: 'eq50',
    title: 'Eq. 50: Θ(L) from A/k',
    says: 'App. A.2 writes the factor as 1 + A/k + O(k⁻²) and concludes ∏ = Θ(L) (Eq. 50). Eq. 9 with σ_k² = k has A/√k there.',
    judged: 'Judged: the derivation’s substituted product H_N = ∏(1 + A/l + B/l²), which does not depend on σ.',
  },
  {
    id: 's41',
    title: '§4.1: no strict upper bound',
    says: 'Under LNS the Jacobian norm “no longer possesses a strict upper bound” and must keep growing with depth.',
    judged: 'Judged: whether the displayed bound Q_N supports that sentence. A bounded upper product does not make depth useful or a parameter gradient non-negligible, and the actual norm may still grow.',
  },
];

/** The product each card judges. */
const CLAIM_FAMILY = { eq11: 'unscaled', eq65: 'scaled', s41: 'scaled', eq50: 'harmonic' };

/** Whether `claimParams` knows the card `id`. */
export const hasClaim = (id) => Object.hasOwn(CLAIM_FAMILY, id);

/** Eqs. 16 / 65's range of ε (Lemma 4.1): ½ ≤ ε < 1; outside it the LNS cards use ε = ½. */
const EPS_RANGE = { lo: 0.5, hi: 1, fallback: '0.5' };

/**
 * What a card judges: its product and the core parameters it is evaluated with, and how the card
 * and its "Why" write each of them. Every parameter comes from the product's own parameters
 * (`paramsFor`: its own variance model, or the shared one); when those lie outside the claim's
 * regime the card is evaluated at the regime's nearest point instead, and says so:
 *   eq11 (P_N, Eq. 11's σ_l² ∼ l):  the product's own law if it is c·l^q with q = 1, else σ_l² = c·l
 *                                   with the product's c (1 for a measured list);
 *   eq65, s41 (Q_N, LNS's σ_l² ∼ l^(2−ε), ½ ≤ ε < 1): the product's own law if its ε is in that
 *                                   range, else ε = ½ with the product's c;
 *   eq50 (H_N = ∏(1 + A/l + B/l²)): A and B; H_N does not depend on σ.
 * Returns { id, family, a, b, variance, n, inside, own, law: { c, q, eps } }: `variance` the core's
 * object (decimals as typed), `own` the product's own variance, and `law` the exponents as the
 * page writes them ({ text, lo, hi, exact }: the typed decimal, or the core's 2 − x for the other
 * one of q and ε = 2 − q; eps is null when 2 − q is not in (0, 2)).
 */
export function claimParams(id, state, good) {
  const family = CLAIM_FAMILY[id];
  const own = paramsFor(family, state, good);
  const v = own.variance;
  const base = { id, family, a: String(own.a).trim(), b: String(own.b).trim(), n: good.n, own: v };
  const ownC = v.kind !== 'measured' && v.c !== undefined ? String(v.c).trim() : '1';
  const power = (variance, inside) => ({ ...base, variance, inside, law: lawOf(variance) });
  if (family === 'harmonic') return power({ kind: 'power', c: '1', q: '1' }, true);
  if (family === 'unscaled') {
    const inside = v.kind === 'power' && (v.eps !== undefined ? isDecimalOne(v.eps) : isDecimalOne(v.q));
    return power(inside ? v : { kind: 'power', c: ownC, q: '1' }, inside);
  }
  const eps = v.kind === 'power' ? lawOf(v).eps : null;
  const inside = !!eps && eps.lo >= EPS_RANGE.lo && eps.hi < EPS_RANGE.hi;
  return power(inside ? v : { kind: 'power', c: ownC, eps: EPS_RANGE.fallback }, inside);
}

/** A power law's c, q and ε = 2 − q as the page writes them (see `claimParams`). */
function lawOf(v) {
  const typed = (x) => {
    const text = String(x).trim();
    return { text, lo: Number(text), hi: Number(text), exact: true };
  };
  const c = typed(v.c ?? '1');
  if (v.eps !== undefined) return { c, eps: typed(v.eps), q: twoMinus(v.eps) };
  return { c, q: typed(v.q), eps: twoMinus(v.q) };
}

/**
 * 2 − x for a decimal x, from the core: its Eq. 65 block reports ε = 2 − q exactly on the decimal
 * q (an enclosure of it), and the map is its own inverse. Null unless 0 < 2 − x < 2.
 */
function twoMinus(x) {
  const key = String(x).trim();
  if (!twoMinusMemo.has(key)) {
    if (twoMinusMemo.size > 64) twoMinusMemo.clear();
    const r = core.closedForms({ a: 0, b: 0, q: key });
    const e = r.ok ? r.value.eq65?.eps : null;
    const t = e ? identifyingText(e.value, e.lo, e.hi) : null;
    twoMinusMemo.set(key, t ? { text: t.text, lo: e.lo, hi: e.hi, exact: false } : null);
  }
  return twoMinusMemo.get(key);
}
const twoMinusMemo = new Map();

/** The core's parameters of a claim ({family, a, b, variance}), without n. */
export const coreParams = (claim) => ({ family: claim.family, a: claim.a, b: claim.b, variance: claim.variance });

/** A certified number as the cards and their Whys write it: the digits it certifies (identifyingText). */
function certified(e) {
  return e ? identifyingText(e.value, e.lo, e.hi)?.text ?? '—' : '—';
}

/**
 * The growth class of a product, from the core (`product.growth()`): 'convergent', 'power' (N^a),
 * 'stretched' (stretched exponential or faster), or 'finite' (a measured list). The one function
 * the verdicts are decided from; it reads the core's class and never computes one.
 * `linear` (a = 1, i.e. Θ(N) = Θ(L)): the core's certified a contains 1 and `unitIsOne`, the
 * caller's reading of the typed decimals (A = 1 for App. A.2's product; B and c the same decimal
 * for Eq. 9 with A = 0, where a = B/c); a rounded enclosure alone cannot tell 1 from its neighbours.
 */
export function growthOf(params, unitIsOne = false) {
  const r = growthFor(params);
  if (!r.ok) return null;
  const g = r.value;
  switch (g.class) {
    case 'convergent':
      return { kind: 'convergent' };
    case 'power':
      return { kind: 'power', exponent: g.exponent, linear: contains(g.exponent, 1) && unitIsOne };
    case 'stretched-exponential':
    case 'exponential':
      return { kind: 'stretched', exponent: g.exponent };
    default:
      return { kind: 'finite' };
  }
}

/**
 * A growth exponent in a badge or a sentence: the digits it certifies, without trailing zeros its
 * enclosure does not need (Θ(N^100), not Θ(N^100.000000000000), when it is 100 ± 1e-12).
 */
const exponentText = (e) => certified(e);

/** Whether a certified enclosure contains x. */
function contains(e, x) {
  return !!e && Number(e.lo) <= x && x <= Number(e.hi);
}

/**
 * Whether two typed decimals denote the same number ("2", "2.0", "0.2e1"), read as their
 * significant digits and the power of ten of the last one (text, not arithmetic on values).
 */
function sameDecimal(x, y) {
  const key = (text) => {
    const m = /^\+?(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/i.exec(String(text ?? '').trim());
    if (!m || (m[1] === '' && !m[2])) return null;
    const frac = m[2] ?? '';
    const digits = `${m[1]}${frac}`.replace(/^0+/, '');
    const significant = digits.replace(/0+$/, '');
    if (!significant) return '0';
    return `${significant}e${Number(m[3] ?? 0) - frac.length + (digits.length - significant.length)}`;
  };
  const [a, b] = [key(x), key(y)];
  return a !== null && a === b;
}

/** Whether a typed decimal denotes exactly 1 ("1", "1.0", "+1.000e0"; not "1.0000000000000002"). */
export function isDecimalOne(text) {
  return /^\+?0*1(\.0*)?(e[+-]?0+)?$/i.test(String(text ?? '').trim());
}

export class Cards {
  constructor(root) {
    this.el = {};
    for (const c of CARDS) {
      const art = document.createElement('article');
      art.className = 'card';
      art.dataset.testid = `card-${c.id}`;
      const h = document.createElement('h3');
      const t = document.createElement('span');
      rich(t, c.title);
      const verdict = document.createElement('span');
      verdict.className = 'verdict neutral';
      verdict.dataset.testid = `verdict-${c.id}`;
      h.append(t, verdict);
      const [says, saysText] = taggedParagraph('says', 'Paper says');
      rich(saysText, c.says);
      const [does, doesText] = taggedParagraph('does', 'The product does');
      const nums = document.createElement('ul');
      nums.className = 'nums';
      const regime = document.createElement('p');
      regime.className = 'regime';
      regime.dataset.testid = `regime-${c.id}`;
      const judged = document.createElement('p');
      judged.className = 'judged-card';
      rich(judged, c.judged);
      art.append(h, says, does, regime, nums, judged);
      root.append(art);
      this.el[c.id] = { art, verdict, doesText, nums, regime };
    }
  }

  /**
   * Writes one card. `nums`: strings, or { text, slot } for a number its Why shows too (the
   * item carries data-slot, so a reader, or a test, can match the two).
   */
  set(id, { verdict, tone, does, nums, regime = '', outside = false, claim = null }) {
    const e = this.el[id];
    // Only what changed is written: an equal text or attribute write still costs the browser a
    // style and layout pass (and the card's :has() rules are rechecked on every attribute write).
    setText(e.verdict, verdict);
    if (e.verdict.className !== `verdict ${tone}`) e.verdict.className = `verdict ${tone}`;
    setAttr(e.verdict, 'data-tone', tone);
    rich(e.doesText, does);
    rich(e.regime, regime);
    setAttr(e.art, 'data-outside', String(outside));
    // The parameters the card is evaluated with, as the core is given them.
    if (claim) setAttr(e.art, 'data-params', JSON.stringify({ ...coreParams(claim), n: claim.n }));
    // The list keeps its items while their number holds; rich() rewrites only the changed ones.
    const lis = [...e.nums.children];
    if (lis.length !== nums.length) {
      lis.length = 0;
      for (let i = 0; i < nums.length; i++) lis.push(document.createElement('li'));
      e.nums.replaceChildren(...lis);
    }
    nums.forEach((t, i) => {
      rich(lis[i], typeof t === 'string' ? t : t.text);
      const slot = typeof t === 'string' ? null : t.slot;
      if (slot) setAttr(lis[i], 'data-slot', slot);
      else if (lis[i].hasAttribute('data-slot')) lis[i].removeAttribute('data-slot');
    });
  }

  /** Marks every card as not matching the inputs (an input is invalid; the last good numbers stay). */
  setStale(stale) {
    for (const e of Object.values(this.el)) setAttr(e.art, 'data-stale', String(!!stale));
  }

  update(state, good) {
    const at = good.n === 'inf' ? 'N → ∞' : `N = ${depthLabel(good.n)}`;
    const n = good.n;

    // Eq. 11: unscaled at σ_l² = c·l.
    {
      const claim = claimParams('eq11', state, good);
      const params = coreParams(claim);
      const r = evalFor(params, n);
      const u = r.ok ? r.value : null;
      // log L with L = N (one factor per layer): ∏_{l<N} (1 + 1/l) = N, the harmonic product at depth
      // N − 1 (an integer index shift, exact in BigInt for every depth the page accepts); log 1 = 0.
      const logL = n === 'inf' || n < 2 ? null : evalFor({ family: 'harmonic', a: 1, b: 0, variance: { kind: 'power', c: 1, q: 1 } }, String(BigInt(n) - 1n));
      const nums = [];
      if (u?.log_product) nums.push({ text: `log P_N at ${at}: ${certified(u.log_product)}`, slot: 'pn' });
      if (logL?.ok && logL.value.log_product) nums.push(`log L = log N, what Θ(L) allows: ${certified(logL.value.log_product)}`);
      else if (n === 1) nums.push('log L = log N, what Θ(L) allows: 0');
      if (u?.divergent?.constant) nums.push({ text: `C = ${certified(u.divergent.constant)}`, slot: 'cc' });
      else if (u?.divergent) nums.push(`C: not resolvable here (${unresolvedReason(u, 'constant') || 'the core cannot certify it'})`);
      const model = `σ_l² = ${cText(claim.law.c.text)}l`;
      let regime = `Evaluated at Eq. 11’s regime, ${model}.`;
      if (!claim.inside) {
        regime = `P_N’s variance here (${viewText(claim.own)}) lies outside Eq. 11’s regime σ_l² ∼ l; this card is evaluated at ${model}.`;
        if (claim.own.kind === 'exponential') regime += ' Exponential variance is the paper’s own bounded case (Eq. 10): see its bound among the numbers.';
      }
      regime += ` ${parameterText(claim)}`;
      const g = u ? growthOf(params, sameDecimal(claim.b, claim.law.c.text)) : null;
      const common = { nums, regime, outside: !claim.inside, claim };
      if (!u || !g) this.set('eq11', { verdict: 'n/a', tone: 'neutral', does: r.error || 'not available', ...common });
      else {
        const terms = termsText(u.divergent?.terms);
        let v;
        if (g.kind === 'stretched') v = { verdict: 'not Θ(L)', tone: 'differs', does: `With ${model}: log P_N = ${terms} + C + o(1), a stretched exponential${u.divergent?.terms?.some((t) => t.log) ? ' times a power' : ''}, not Θ(L).` };
        else if (g.kind === 'power' && g.linear) v = { verdict: 'Θ(L) here', tone: 'holds', does: `With ${model}: log P_N = ${terms} + C + o(1), so P_N = Θ(N).` };
        else if (g.kind === 'power') v = { verdict: `Θ(N^${exponentText(g.exponent)}), not Θ(L)`, tone: 'differs', does: `With ${model}: log P_N = ${terms} + C + o(1), so P_N = Θ(N^${exponentText(g.exponent)}).` };
        else v = { verdict: 'bounded, not Θ(L)', tone: 'differs', does: `With ${model} and A = 0 the product converges.` };
        this.set('eq11', { ...v, ...common });
      }
    }

    // Eqs. 16 / 65 and §4.1: scaled at σ_l² = c·l^(2−ε), ½ ≤ ε < 1.
    {
      const claim = claimParams('eq65', state, good);
      const params = coreParams(claim);
      const { c, eps } = claim.law;
      const model = `σ_l² = ${cText(c.text)}l^(2−${eps.text})`;
      const regime = `${
        claim.inside
          ? `Evaluated at the LNS regime, ${model}.`
          : `Q_N’s variance here (${viewText(claim.own)}) lies outside the LNS regime σ_l² ∼ l^(2−ε), ½ ≤ ε < 1; this card is evaluated at ${model}.`
      } ${parameterText(claim)}`;
      const r = evalFor(params, n);
      const s = r.ok ? r.value : null;
      const closed = core.closedForms({ a: claim.a, b: claim.b, ...lawArgs(claim.variance), n });
      const e65 = closed.ok ? closed.value.eq65 : null;
      const zb = closed.ok ? closed.value.zeta_bound : null;
      const g = s ? growthOf(params) : null;
      const common = { regime, outside: !claim.inside, claim };

      const nums = [];
      if (s?.log_product) nums.push({ text: `log Q_N at ${at}: ${certified(s.log_product)}`, slot: 'qn' });
      if (s?.limit) nums.push({ text: `log Q_∞ = ${certified(s.limit)}`, slot: 'qinf' });
      if (zb) nums.push({ text: `zeta-sum bound: ${certified(zb)}`, slot: 'zb' });
      if (e65?.limit) nums.push({ text: `Eq. 65’s own exponent → ${certified(e65.limit)} (ε = ${eps.text})`, slot: 'e65lim' });
      if (!s || !g) this.set('eq65', { verdict: 'n/a', tone: 'neutral', does: r.error || 'not available', nums, ...common });
      else if (g.kind === 'convergent') this.set('eq65', { verdict: 'bounded, not ω(1)', tone: 'differs', does: `With ${model}, log Q_N increases to a finite limit: the displayed product is O(1), and Eq. 65’s own exponent tends to a finite value.`, nums, ...common });
      else this.set('eq65', { verdict: 'ω(1) here', tone: 'holds', does: `With ${model}, log Q_N = ${termsText(s.divergent?.terms)} + C + o(1).`, nums, ...common });

      const claim41 = claimParams('s41', state, good);
      const common41 = { ...common, claim: claim41 };
      const nums41 = [];
      if (s?.limit) nums41.push(`log Q_N ≤ log Q_∞ ≤ ${trimZeros(directed(s.limit.hi, 10, +1))} for every N`);
      if (s?.tail && n !== 'inf') nums41.push(`still to come after ${at}: at most ${trimZeros(directed(s.tail.hi, 6, +1))}`);
      if (s?.log_product) nums41.push({ text: `log Q_N at ${at}: ${certified(s.log_product)}`, slot: 'qn' });
      if (!s || !g) this.set('s41', { verdict: 'n/a', tone: 'neutral', does: r.error || 'not available', nums: nums41, ...common41 });
      else if (g.kind === 'convergent')
        this.set('s41', {
          verdict: 'bound is bounded',
          tone: 'differs',
          does: 'The displayed upper product has a finite supremum, so it cannot show that the norm must keep growing (a bounded norm need not converge either: see the rotations). It does not show that the actual norm stays bounded.',
          nums: nums41,
          ...common41,
        });
      else this.set('s41', { verdict: 'unbounded here', tone: 'holds', does: 'For this variance the displayed product diverges.', nums: nums41, ...common41 });
    }

    // Eq. 50: the harmonic product ∏(1 + A/l + B/l²), independent of σ.
    {
      const claim = claimParams('eq50', state, good);
      const params = coreParams(claim);
      const r = evalFor(params, n);
      const h = r.ok ? r.value : null;
      const nums = [];
      if (h?.log_product) nums.push({ text: `log H_N at ${at}: ${certified(h.log_product)}`, slot: 'harm' });
      if (h?.divergent) nums.push(`log H_N = ${termsText(h.divergent.terms)} + C + o(1)`);
      const regime = `H_N does not depend on σ. ${parameterText(claim)}`;
      const g = h ? growthOf(params, isDecimalOne(claim.a)) : null;
      const common = { nums, regime, claim };
      if (!h || !g) this.set('eq50', { verdict: 'n/a', tone: 'neutral', does: r.error || 'not available', ...common });
      else if (g.kind === 'stretched') this.set('eq50', { verdict: 'not Θ(L)', tone: 'differs', does: '∏(1 + A/l + B/l²) grows faster than any power of N.', ...common });
      else if (g.kind === 'power')
        this.set('eq50', {
          verdict: g.linear ? 'Θ(L) only as A = 1' : `Θ(N^${exponentText(g.exponent)}), not Θ(L)`,
          tone: g.linear ? 'caveat' : 'differs',
          does: g.linear
            ? '∏(1 + A/l + B/l²) = Θ(N^A) is linear only because A = 1, a condition the derivation does not state; and Eq. 9 needs A/√l, not A/l.'
            : `∏(1 + A/l + B/l²) = Θ(N^A) with A = ${claim.a}: a different power of depth.`,
          ...common,
        });
      else this.set('eq50', { verdict: 'bounded', tone: 'differs', does: 'With A = 0 and this B the product converges.', ...common });
    }
  }
}

/** The closedForms arguments of a power law: c and q, or c and ε. */
export function lawArgs(variance) {
  return variance.eps !== undefined ? { c: variance.c, eps: variance.eps } : { c: variance.c, q: variance.q };
}

/** "Parameters: A = 1, B = 1, c = 1, ε = 0.5 (q = 1.5), N = 10⁶." — every parameter a card is evaluated with. */
function parameterText(claim) {
  const parts = [`A = ${claim.a}`, `B = ${claim.b}`];
  if (claim.family !== 'harmonic') {
    const { c, q, eps } = claim.law;
    parts.push(`c = ${c.text}`);
    if (claim.family === 'scaled') parts.push(`ε = ${eps.text} (q = ${q.text})`);
    else parts.push(claim.variance.eps !== undefined ? `q = ${q.text} (ε = ${eps.text})` : `q = ${q.text}`);
  }
  parts.push(`N = ${depthLabel(claim.n)}`);
  return `Parameters: ${parts.join(', ')}.`;
}

/** The core's words for a missing quantity of an evaluation, or ''. */
function unresolvedReason(ev, quantity) {
  return (ev?.unresolved || []).find((u) => u.quantity === quantity)?.reason || '';
}

/** "c·" for a typed c other than 1. */
function cText(c) {
  return isDecimalOne(c) ? '' : `${c}·`;
}

/** A product's own variance in words, its parameters as typed: "σ_l² = 4·l^1.3", "σ_l² = c·e^(λ l)", "a measured list σ_l²". */
function viewText(v) {
  if (v.kind === 'power' && v.eps !== undefined) return `σ_l² = ${cText(String(v.c))}l^(2−${v.eps})`;
  if (v.kind === 'power') return `σ_l² = ${cText(String(v.c))}${isDecimalOne(v.q) ? 'l' : `l^${v.q}`}`;
  if (v.kind === 'exponential') return `σ_l² = ${cText(String(v.c))}e^(${v.lambda} l)`;
  return 'a measured list σ_l²';
}

/** `<p class=…><span class="tag">tag</span><span></span></p>`; returns the paragraph and its text span. */
function taggedParagraph(className, tag) {
  const p = document.createElement('p');
  p.className = className;
  const label = document.createElement('span');
  label.className = 'tag';
  label.textContent = tag;
  const text = document.createElement('span');
  p.append(label, text);
  return [p, text];
}
