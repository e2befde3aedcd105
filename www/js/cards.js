// "Paper says / the product does" cards. The verdicts only compare what the core reports (the shape
// of a divergence, whether a limit exists); every number is the core's.

import { rich } from './rich.js';
import * as core from './core.js';
import { termsText, depthLabel, plain, directed, trimZeros } from './format.js';
import { enclosureParts } from './readouts.js';

const CARDS = [
  {
    id: 'eq11',
    title: 'Eq. 11: Pre-LN grows as Θ(L)',
    says: 'The unscaled product of Eq. 9, ∏(1 + A/σ_l + B/σ_l²) with σ_l² ∼ l, grows like Θ(L), so the Pre-LN Jacobian bound grows linearly with depth.',
  },
  {
    id: 'eq65',
    title: 'Eqs. 16 / 65: LNS bound is ω(1)',
    says: 'With LayerNorm Scaling, σ_l² ∼ l^(2−ε), ½ ≤ ε < 1, the product ∏(1 + A/(lσ_l) + B/(l²σ_l²)) is ω(1): it still grows without bound (App. A.4, Eq. 65).',
  },
  {
    id: 'eq50',
    title: 'Eq. 50: Θ(L) from A/k',
    says: 'App. A.2 writes the factor as 1 + A/k + O(k⁻²) and concludes ∏ = Θ(L) (Eq. 50). Eq. 9 with σ_k² = k has A/√k there.',
  },
  {
    id: 's41',
    title: '§4.1: no strict upper bound',
    says: 'Under LNS the Jacobian norm “no longer possesses a strict upper bound” and must keep growing with depth.',
  },
];

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
      art.append(h, says, does, nums);
      root.append(art);
      this.el[c.id] = { verdict, doesText, nums };
    }
  }

  set(id, { verdict, tone, does, nums }) {
    const e = this.el[id];
    e.verdict.textContent = verdict;
    e.verdict.className = `verdict ${tone}`;
    rich(e.doesText, does);
    const lis = nums.map((t) => {
      const li = document.createElement('li');
      rich(li, t);
      return li;
    });
    e.nums.replaceChildren(...lis);
  }

  update(state, good, res) {
    const at = good.n === 'inf' ? 'N → ∞' : `N = ${depthLabel(good.n)}`;
    const num = (e) => enclosureParts(e)?.num ?? '—';
    const ev = res.evals;
    const model = modelText(state, good);

    // Eq. 11 — unscaled
    {
      const u = ev.unscaled;
      const logL = good.n === 'inf' ? null : core.evaluate({ family: 'harmonic', a: 1, b: 0, variance: { kind: 'power', c: 1, q: 1 }, n: good.n });
      const nums = [];
      if (u?.log_product) nums.push(`log P_N at ${at}: ${num(u.log_product)}`);
      if (logL?.ok && logL.value.log_product) nums.push(`log L = log(N + 1), what Θ(L) allows: ${num(logL.value.log_product)}`);
      if (u?.divergent?.constant) nums.push(`C = ${num(u.divergent.constant)}`);
      if (!u) this.set('eq11', { verdict: 'n/a', tone: 'neutral', does: res.evalErrors?.unscaled || 'not available', nums });
      else {
        const shape = shapeOf(u);
        this.set('eq11', { ...shape.verdictTheta, does: `With ${model}: ${shape.text}`, nums });
      }
    }

    // Eqs. 16 / 65 — scaled
    {
      const s = ev.scaled;
      const nums = [];
      if (s?.log_product) nums.push(`log Q_N at ${at}: ${num(s.log_product)}`);
      if (s?.limit) nums.push(`log Q_∞ = ${num(s.limit)}`);
      const zb = s?.zeta_bound || res.closed?.zeta_bound;
      if (zb) nums.push(`zeta-sum bound: ${num(zb)}`);
      const e65 = res.closed?.eq65;
      if (e65 && Number.isFinite(e65.limit)) nums.push(`Eq. 65’s own exponent → ${plain(e65.limit, 10)} (ε = ${plain(e65.eps, 4)})`);
      if (!s) this.set('eq65', { verdict: 'n/a', tone: 'neutral', does: res.evalErrors?.scaled || 'not available', nums });
      else if (s.limit) this.set('eq65', { verdict: 'bounded, not ω(1)', tone: 'bad', does: `With ${model}, log Q_N increases to a finite limit: the product is O(1).`, nums });
      else if (s.divergent) this.set('eq65', { verdict: 'ω(1) here', tone: 'good', does: `With ${model}, log Q_N = ${termsText(s.divergent.terms)} + C + o(1).`, nums });
      else this.set('eq65', { verdict: 'finite list', tone: 'neutral', does: 'A measured list is finite, so there is no limit to decide.', nums });
    }

    // Eq. 50 — harmonic
    {
      const h = ev.harmonic;
      const nums = [];
      if (h?.log_product) nums.push(`log H_N at ${at}: ${num(h.log_product)}`);
      if (h?.divergent) nums.push(`log H_N = ${termsText(h.divergent.terms)} + C + o(1)`);
      const u = ev.unscaled;
      if (u?.divergent && state.variance === 'power') nums.push(`Eq. 9 itself (unscaled): ${termsText(u.divergent.terms)} + C`);
      if (!h) this.set('eq50', { verdict: 'n/a', tone: 'neutral', does: res.evalErrors?.harmonic || 'not available', nums });
      else {
        const lt = h.divergent?.terms?.find((t) => t.log);
        const pow = h.divergent?.terms?.find((t) => !t.log && t.exponent > 0);
        if (pow) this.set('eq50', { verdict: 'not Θ(L)', tone: 'bad', does: `∏(1 + A/l + B/l²) grows faster than any power of N.`, nums });
        else if (lt) {
          const k = lt.coefficient;
          const isOne = k === 1;
          this.set('eq50', {
            verdict: isOne ? 'Θ(L) only as A = 1' : `Θ(N^${plain(k, 4)}), not Θ(L)`,
            tone: isOne ? 'good' : 'bad',
            does: `∏(1 + A/l + B/l²) = Θ(N^A) with A = ${plain(k, 6)}: ${isOne ? 'linear only because A = 1.' : 'a different power of depth.'}`,
            nums,
          });
        } else this.set('eq50', { verdict: 'bounded', tone: 'bad', does: 'With A = 0 and this B the product converges.', nums });
      }
    }

    // §4.1 — bounded
    {
      const s = ev.scaled;
      const nums = [];
      if (s?.limit) nums.push(`log Q_N ≤ log Q_∞ ≤ ${trimZeros(directed(s.limit.hi, 10, +1))} for every N`);
      if (s?.tail && good.n !== 'inf') nums.push(`still to come after ${at}: at most ${trimZeros(directed(s.tail.hi, 6, +1))}`);
      if (s?.log_product) nums.push(`log Q_N at ${at}: ${num(s.log_product)}`);
      if (!s) this.set('s41', { verdict: 'n/a', tone: 'neutral', does: res.evalErrors?.scaled || 'not available', nums });
      else if (s.limit)
        this.set('s41', {
          verdict: 'strictly bounded',
          tone: 'bad',
          does: 'The displayed upper product has a finite supremum, so it cannot show that the norm must keep growing (and a bounded norm need not converge: see the rotations).',
          nums,
        });
      else this.set('s41', { verdict: s.divergent ? 'unbounded here' : 'finite list', tone: 'neutral', does: s.divergent ? 'For this variance the scaled product diverges.' : 'A measured list is finite.', nums });
    }
  }
}

/** Describes a divergence for Eq. 11: stretched exponential, power law, or bounded. */
function shapeOf(ev) {
  const terms = ev.divergent?.terms || [];
  const pow = terms.find((t) => !t.log && t.exponent > 0);
  const lt = terms.find((t) => t.log);
  if (pow) {
    return {
      text: `log P_N = ${termsText(terms)} + C + o(1): a stretched exponential${lt ? ' times a power' : ''}, not Θ(L).`,
      verdictTheta: { verdict: 'not Θ(L)', tone: 'bad' },
    };
  }
  if (lt) {
    const isOne = lt.coefficient === 1;
    return {
      text: `log P_N = ${termsText(terms)} + C + o(1): P_N = Θ(N^${plain(lt.coefficient, 6)}).`,
      verdictTheta: isOne ? { verdict: 'Θ(L) here', tone: 'good' } : { verdict: `Θ(N^${plain(lt.coefficient, 4)})`, tone: 'bad' },
    };
  }
  if (ev.limit) return { text: 'the product converges: bounded, not Θ(L).', verdictTheta: { verdict: 'bounded', tone: 'bad' } };
  return { text: 'finite measured list: no asymptotic shape to decide.', verdictTheta: { verdict: 'finite list', tone: 'neutral' } };
}

/** "σ_l² = l", "σ_l² = 2·l^1.5", "σ_l² = e^(0.1 l)" … */
function modelText(state, good) {
  const c = good.c === 1 ? '' : `${plain(good.c)}·`;
  if (state.variance === 'power') return `σ_l² = ${c}${good.q === 1 ? 'l' : `l^${plain(good.q)}`}`;
  if (state.variance === 'exp') return `σ_l² = ${c}e^(${plain(good.lambda)} l)`;
  return 'the measured σ_l²';
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
