// "Paper says / the product does" cards. The verdicts only compare what the core reports (the shape
// of a divergence, whether a limit exists); every number is the core's.

import { rich } from '../common/rich.js';
import * as core from '../common/core.js';
import { termsText, depthLabel, plain, directed, trimZeros } from '../common/format.js';
import { modelFor } from './state.js';
import { evalFor, growthFor } from './series.js';
import { enclosureParts, setAttr, setText } from './readouts.js';

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

/** Eqs. 16 / 65's range of ε (Lemma 4.1): ½ ≤ ε < 1; the card uses ε = ½ when the view is outside it. */
const EPS_RANGE = { lo: 0.5, hi: 1, fallback: '0.5' };

/**
 * The growth class of a product, from the core (`product.growth()`): 'convergent', 'power' (N^a),
 * 'stretched' (stretched exponential or faster), or 'finite' (a measured list). The one function
 * the verdicts are decided from; it reads the core's class and never computes one.
 * `linear` (a = 1, i.e. Θ(N) = Θ(L)): the core's certified a contains 1 and the parameter a equals
 * for this product (`unit`: A for App. A.2's product, B for Eq. 9 with A = 0) is the decimal 1 as
 * typed; a rounded enclosure alone cannot tell 1 from its neighbours.
 */
export function growthOf(params, unit = null) {
  const r = growthFor(params);
  if (!r.ok) return null;
  const g = r.value;
  switch (g.class) {
    case 'convergent':
      return { kind: 'convergent' };
    case 'power':
      return { kind: 'power', exponent: g.exponent, linear: contains(g.exponent, 1) && isDecimalOne(unit) };
    case 'stretched-exponential':
    case 'exponential':
      return { kind: 'stretched', exponent: g.exponent };
    default:
      return { kind: 'finite' };
  }
}

/**
 * A growth exponent in a badge or a sentence: its certified digits without trailing zeros
 * (Θ(N^100), not Θ(N^100.000000000000), when the enclosure is 100 ± 1e-12); the readouts keep
 * every certified digit.
 */
function exponentText(e) {
  const t = enclosureParts(e)?.num ?? '—';
  return /^-?\d+\.\d+$/.test(t) ? trimZeros(t) : t;
}

/** Whether a certified enclosure contains x. */
function contains(e, x) {
  return !!e && Number(e.lo) <= x && x <= Number(e.hi);
}

/** Whether a typed decimal denotes exactly 1 ("1", "1.0", "+1.000e0"; not "1.0000000000000002"). */
function isDecimalOne(text) {
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

  set(id, { verdict, tone, does, nums, regime = '', outside = false }) {
    const e = this.el[id];
    // Only what changed is written: an equal text or attribute write still costs the browser a
    // style and layout pass (and the card's :has() rules are rechecked on every attribute write).
    setText(e.verdict, verdict);
    if (e.verdict.className !== `verdict ${tone}`) e.verdict.className = `verdict ${tone}`;
    setAttr(e.verdict, 'data-tone', tone);
    rich(e.doesText, does);
    rich(e.regime, regime);
    setAttr(e.art, 'data-outside', String(outside));
    // The list keeps its items while their number holds; rich() rewrites only the changed ones.
    const lis = [...e.nums.children];
    if (lis.length !== nums.length) {
      lis.length = 0;
      for (let i = 0; i < nums.length; i++) lis.push(document.createElement('li'));
      e.nums.replaceChildren(...lis);
    }
    nums.forEach((t, i) => rich(lis[i], t));
  }

  /** Marks every card as not matching the inputs (an input is invalid; the last good numbers stay). */
  setStale(stale) {
    for (const e of Object.values(this.el)) setAttr(e.art, 'data-stale', String(!!stale));
  }

  update(state, good, res) {
    const at = good.n === 'inf' ? 'N → ∞' : `N = ${depthLabel(good.n)}`;
    const num = (e) => enclosureParts(e)?.num ?? '—';
    const n = good.n;
    const ab = { a: good.raw?.a ?? good.a, b: good.raw?.b ?? good.b };
    const rawC = (f) => (state.own?.[f] && good.own?.[f] ? good.own[f].raw?.c ?? good.own[f].c : good.raw?.c ?? good.c);

    // Eq. 11: unscaled at σ_l² = c·l, with the reader's A, B, c and N.
    {
      const view = modelFor(state, good, 'unscaled');
      const c = view.c ?? good.c;
      const inside = view.kind === 'power' && view.q === 1;
      const params = { family: 'unscaled', ...ab, variance: { kind: 'power', c: rawC('unscaled'), q: '1' } };
      const r = evalFor(params, n);
      const u = r.ok ? r.value : null;
      const logL = n === 'inf' ? null : evalFor({ family: 'harmonic', a: 1, b: 0, variance: { kind: 'power', c: 1, q: 1 } }, n);
      const nums = [];
      if (u?.log_product) nums.push(`log P_N at ${at}: ${num(u.log_product)}`);
      if (logL?.ok && logL.value.log_product) nums.push(`log L = log(N + 1), what Θ(L) allows: ${num(logL.value.log_product)}`);
      if (u?.divergent?.constant) nums.push(`C = ${num(u.divergent.constant)}`);
      else if (u?.divergent) nums.push(`C: not resolvable here (${unresolvedReason(u, 'constant') || 'the core cannot certify it'})`);
      const model = `σ_l² = ${cText(c)}l`;
      let regime = `Evaluated at Eq. 11’s regime, ${model}.`;
      if (!inside) {
        regime = `The current view (${viewText(view)}) lies outside Eq. 11’s regime σ_l² ∼ l; this card is evaluated at ${model}.`;
        if (view.kind === 'exponential') regime += ' Exponential variance is the paper’s own bounded case (Eq. 10): see its bound among the numbers.';
      }
      const g = u ? growthOf(params, ab.b) : null;
      if (!u || !g) this.set('eq11', { verdict: 'n/a', tone: 'neutral', does: r.error || 'not available', nums, regime, outside: !inside });
      else {
        const terms = termsText(u.divergent?.terms);
        let v;
        if (g.kind === 'stretched') v = { verdict: 'not Θ(L)', tone: 'differs', does: `With ${model}: log P_N = ${terms} + C + o(1), a stretched exponential${u.divergent?.terms?.some((t) => t.log) ? ' times a power' : ''}, not Θ(L).` };
        else if (g.kind === 'power' && g.linear) v = { verdict: 'Θ(L) here', tone: 'holds', does: `With ${model}: log P_N = ${terms} + C + o(1), so P_N = Θ(N).` };
        else if (g.kind === 'power') v = { verdict: `Θ(N^${exponentText(g.exponent)}), not Θ(L)`, tone: 'differs', does: `With ${model}: log P_N = ${terms} + C + o(1), so P_N = Θ(N^${exponentText(g.exponent)}).` };
        else v = { verdict: 'bounded, not Θ(L)', tone: 'differs', does: `With ${model} and A = 0 the product converges.` };
        this.set('eq11', { ...v, nums, regime, outside: !inside });
      }
    }

    // Eqs. 16 / 65 and §4.1: scaled at σ_l² = c·l^(2−ε), ½ ≤ ε < 1.
    {
      const view = modelFor(state, good, 'scaled');
      const viewEps = view.kind === 'power' ? view.eps : null;
      const inside = viewEps !== null && viewEps !== undefined && viewEps >= EPS_RANGE.lo && viewEps < EPS_RANGE.hi;
      const epsRaw = inside ? (state.own?.scaled ? good.own.scaled.raw?.eps ?? viewEps : good.raw?.eps ?? viewEps) : EPS_RANGE.fallback;
      const eps = inside ? viewEps : Number(EPS_RANGE.fallback);
      const c = view.c ?? good.c;
      const model = `σ_l² = ${cText(c)}l^(2−${plain(eps, 6)})`;
      const regime = inside
        ? `Evaluated at the LNS regime, ${model}.`
        : `The current view (${viewText(view)}) lies outside the LNS regime σ_l² ∼ l^(2−ε), ½ ≤ ε < 1; this card is evaluated at ${model}.`;
      const params = { family: 'scaled', ...ab, variance: { kind: 'power', c: rawC('scaled'), eps: epsRaw } };
      const r = evalFor(params, n);
      const s = r.ok ? r.value : null;
      const closed = core.closedForms({ ...ab, c: rawC('scaled'), eps: epsRaw, n });
      const e65 = closed.ok ? closed.value.eq65 : null;
      const zb = s?.zeta_bound || (closed.ok ? closed.value.zeta_bound : null);
      const g = s ? growthOf(params) : null;

      const nums = [];
      if (s?.log_product) nums.push(`log Q_N at ${at}: ${num(s.log_product)}`);
      if (s?.limit) nums.push(`log Q_∞ = ${num(s.limit)}`);
      if (zb) nums.push(`zeta-sum bound: ${num(zb)}`);
      if (e65?.limit) nums.push(`Eq. 65’s own exponent → ${num(e65.limit)} (ε = ${num(e65.eps)})`);
      if (!s || !g) this.set('eq65', { verdict: 'n/a', tone: 'neutral', does: r.error || 'not available', nums, regime, outside: !inside });
      else if (g.kind === 'convergent') this.set('eq65', { verdict: 'bounded, not ω(1)', tone: 'differs', does: `With ${model}, log Q_N increases to a finite limit: the displayed product is O(1), and Eq. 65’s own exponent tends to a finite value.`, nums, regime, outside: !inside });
      else this.set('eq65', { verdict: 'ω(1) here', tone: 'holds', does: `With ${model}, log Q_N = ${termsText(s.divergent?.terms)} + C + o(1).`, nums, regime, outside: !inside });

      const nums41 = [];
      if (s?.limit) nums41.push(`log Q_N ≤ log Q_∞ ≤ ${trimZeros(directed(s.limit.hi, 10, +1))} for every N`);
      if (s?.tail && n !== 'inf') nums41.push(`still to come after ${at}: at most ${trimZeros(directed(s.tail.hi, 6, +1))}`);
      if (s?.log_product) nums41.push(`log Q_N at ${at}: ${num(s.log_product)}`);
      if (!s || !g) this.set('s41', { verdict: 'n/a', tone: 'neutral', does: r.error || 'not available', nums: nums41, regime, outside: !inside });
      else if (g.kind === 'convergent')
        this.set('s41', {
          verdict: 'bound is bounded',
          tone: 'differs',
          does: 'The displayed upper product has a finite supremum, so it cannot show that the norm must keep growing (a bounded norm need not converge either: see the rotations). It does not show that the actual norm stays bounded.',
          nums: nums41,
          regime,
          outside: !inside,
        });
      else this.set('s41', { verdict: 'unbounded here', tone: 'holds', does: 'For this variance the displayed product diverges.', nums: nums41, regime, outside: !inside });
    }

    // Eq. 50: the harmonic product ∏(1 + A/l + B/l²), independent of σ.
    {
      const params = { family: 'harmonic', ...ab, variance: { kind: 'power', c: 1, q: 1 } };
      const r = evalFor(params, n);
      const h = r.ok ? r.value : null;
      const nums = [];
      if (h?.log_product) nums.push(`log H_N at ${at}: ${num(h.log_product)}`);
      if (h?.divergent) nums.push(`log H_N = ${termsText(h.divergent.terms)} + C + o(1)`);
      const regime = 'H_N does not depend on σ: evaluated with the current A, B and N.';
      const g = h ? growthOf(params, ab.a) : null;
      if (!h || !g) this.set('eq50', { verdict: 'n/a', tone: 'neutral', does: r.error || 'not available', nums, regime });
      else if (g.kind === 'stretched') this.set('eq50', { verdict: 'not Θ(L)', tone: 'differs', does: '∏(1 + A/l + B/l²) grows faster than any power of N.', nums, regime });
      else if (g.kind === 'power')
        this.set('eq50', {
          verdict: g.linear ? 'Θ(L) only as A = 1' : `Θ(N^${exponentText(g.exponent)}), not Θ(L)`,
          tone: g.linear ? 'caveat' : 'differs',
          does: g.linear
            ? '∏(1 + A/l + B/l²) = Θ(N^A) is linear only because A = 1, a condition the derivation does not state; and Eq. 9 needs A/√l, not A/l.'
            : `∏(1 + A/l + B/l²) = Θ(N^A) with A = ${exponentText(g.exponent)}: a different power of depth.`,
          nums,
          regime,
        });
      else this.set('eq50', { verdict: 'bounded', tone: 'differs', does: 'With A = 0 and this B the product converges.', nums, regime });
    }
  }
}

/** The core's words for a missing quantity of an evaluation, or ''. */
function unresolvedReason(ev, quantity) {
  return (ev?.unresolved || []).find((u) => u.quantity === quantity)?.reason || '';
}

/** "c·" for c ≠ 1. */
function cText(c) {
  return c === 1 ? '' : `${plain(c)}·`;
}

/** "σ_l² = c·l^q", "σ_l² = c·e^(λ l)", "a measured list". */
function viewText(v) {
  if (v.kind === 'power' && v.eps !== null && v.eps !== undefined) return `σ_l² = ${cText(v.c)}l^(2−${plain(v.eps)})`;
  if (v.kind === 'power') return `σ_l² = ${cText(v.c)}${v.q === 1 ? 'l' : `l^${plain(v.q)}`}`;
  if (v.kind === 'exponential') return `σ_l² = ${cText(v.c)}e^(${plain(v.lambda)} l)`;
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
