// The answer first: one sentence above the plot saying what each product shown does for the current
// view (converges to …, grows like …), with its certified number; side by side with its own
// variance model when more than one product is shown, and one sentence comparing two of them. The
// words are chosen from the core's growth class (`product.growth()`); every number is a core
// enclosure rounded to the digits both of its ends agree on. Nothing here computes.

import { FAMILIES, modelFor, ownList, paramsFor } from './state.js';
import { FAMILY_STYLE, growthFor } from './series.js';
import { depthLabel, headlineNumber, trimZeros } from '../common/format.js';
import { rich } from '../common/rich.js';
import { setText } from './readouts.js';

/** A coefficient or exponent in words: its certified digits without trailing zeros ("2", "0.5"). */
function coefText(e) {
  const t = headlineNumber(e, 6);
  return t && /^-?\d+\.\d+$/.test(t) ? trimZeros(t) : t;
}

/** Whether a typed decimal is exactly 1 ("1", "1.0"; not "1.0000000000000002"). */
const isOne = (text) => /^\+?0*1(\.0*)?(e[+-]?0+)?$/i.test(String(text ?? '').trim());

/**
 * The variance model a family is evaluated with, in words, with the decimals as typed:
 * "σ_l² = l", "σ_l² = 0.001·l^0.05", "σ_l² = l^(2 − ε), ε = 0.5", "σ_l² = e^(0.1 l)",
 * "σ_l² measured (24 values)". `who`: "Pre-LN" for σ_l² ∼ l, "LNS" for the l^(2−ε) regime, else ''.
 */
export function modelWords(state, good, family) {
  const m = modelFor(state, good, family);
  const p = paramsFor(family, state, good).variance;
  if (family === 'harmonic') return { text: 'a_l = 1/l, no σ', who: '' };
  if (m.kind === 'measured') return { text: `σ_l² measured (${p.values?.length ?? 0} values)`, who: '' };
  const c = String(p.c ?? '').trim();
  const cPart = isOne(c) ? '' : `${c}·`;
  if (m.kind === 'exponential') return { text: `σ_l² = ${cPart}e^(${String(p.lambda).trim()} l)`, who: '' };
  if (p.eps !== undefined) return { text: `σ_l² = ${cPart}l^(2 − ε), ε = ${String(p.eps).trim()}`, who: 'LNS' };
  const q = String(p.q ?? '').trim();
  return { text: `σ_l² = ${cPart}${isOne(q) ? 'l' : `l^${q}`}`, who: isOne(q) ? 'Pre-LN' : '' };
}

/**
 * What the headline says about one family: { kind, clause, num, numLabel } where `kind` is the
 * core's class ('convergent', 'power', 'stretched-exponential', 'exponential', 'finite-list'),
 * `clause` the words after the product's name, and `num` the headline number (log X_N at N, or
 * log X_∞ at N = ∞) with its label.
 */
export function familyAnswer(state, good, res, family) {
  const st = FAMILY_STYLE[family];
  const S = st.sym;
  const ev = res.evals[family];
  const g = growthFor(paramsFor(family, state, good));
  const kind = g.ok ? g.value.class : null;
  const inf = good.n === 'inf';
  const at = inf ? '' : ` at N = ${depthLabel(good.n)}`;
  const logN = ev?.log_product ? headlineNumber(ev.log_product) : null;
  const lim = ev?.limit ? headlineNumber(ev.limit) : null;
  const numLabel = inf ? `log ${S}_∞` : `log ${S}_N`;
  // at N = ∞ a divergent product's log is ∞ (the core's class says it diverges)
  const num = inf ? (DIVERGES.has(kind) ? '∞' : lim) : logN;
  const valueAtN = logN && !inf ? `log ${S}_N = ${logN}${at}` : '';
  let clause;
  switch (kind) {
    case 'convergent':
      clause = `converges: log ${S}_∞ = ${lim ?? 'not resolvable'}${lim ? ' (certified)' : ''}${valueAtN ? `, ${valueAtN}` : ''}`;
      break;
    case 'power': {
      const a = coefText(g.value.exponent);
      clause = `grows like a power of N, N^${a ?? '?'}${valueAtN ? `: ${valueAtN}` : ''}`;
      break;
    }
    case 'stretched-exponential': {
      const v = g.value;
      const k = coefText(v.coefficient);
      const e = coefText(v.exponent);
      const terms = ev?.divergent?.terms ?? [];
      // "exp(k·N^e)·N^b" only when those two terms are the whole expansion (else more terms follow).
      const two = terms.length === 2 && terms[1]?.log && v.log_coefficient;
      const b = two ? coefText(v.log_coefficient) : null;
      const m = modelFor(state, good, family);
      // The correction's closed form for σ_l² = l (c = 1): 2A√N + (B − A²/2) log N.
      const symbolic = family === 'unscaled' && two && m.kind === 'power' && m.eps === null && isOne(paramsFor(family, state, good).variance.c) && isOne(paramsFor(family, state, good).variance.q);
      const shape = two ? `exp(${k === '1' ? '' : `${k}·`}N^${e})·N^${b}` : `exp(${k}·N^${e}) to leading order`;
      clause = `grows like ${symbolic ? `exp(2A√N)·N^(B − A²/2) = ${shape}` : shape}, faster than any power of N${valueAtN ? `: ${valueAtN}` : ''}${family === 'unscaled' ? ', not Θ(N)' : ''}`;
      break;
    }
    case 'exponential':
      clause = `grows exponentially in N${valueAtN ? `: ${valueAtN}` : ''}`;
      break;
    case 'finite-list':
      clause = `over the measured list: ${valueAtN || `log ${S}_N not resolvable`}`;
      break;
    default:
      clause = g.ok ? `: ${valueAtN || 'no certified number'}` : `cannot be evaluated (${g.error})`;
  }
  if (res.unsettled?.includes(family)) clause += `; its asymptotic expansion does not describe log ${S}_N at any depth shown (N ≤ ${depthLabel(res.nMax)}, see “How each product settles”)`;
  return { kind, clause, num, numLabel, logN, lim };
}

const DIVERGES = new Set(['power', 'stretched-exponential', 'exponential']);

/** "A = 1, B = 1" as typed. */
const abWords = (good) => `A = ${String(good.raw?.a ?? good.a).trim()}, B = ${String(good.raw?.b ?? good.b).trim()}`;

/**
 * "P_N (unscaled)" when every product shown shares one variance model (named once, up front), else
 * "P_N (unscaled, σ_l² = l)"; `who` adds "Pre-LN’s" / "LNS’s" before the model where it is theirs.
 */
function named(state, good, family, { shared = false, who = false } = {}) {
  const st = FAMILY_STYLE[family];
  if (shared || family === 'harmonic') return `${st.sym}_N (${st.name}${family === 'harmonic' ? ', 1/l' : ''})`;
  const m = modelWords(state, good, family);
  return `${st.sym}_N (${st.name}, ${who && m.who ? `${m.who}’s ` : ''}${m.text})`;
}

/** The one variance model all the products shown use (in words), or '' when they differ. */
function sharedModel(state, good, families) {
  // a product's own list is its own model, even where its words match another's
  const texts = new Set(families.filter((f) => f !== 'harmonic').map((f) => (ownList(state.own?.[f]) ? `own list of ${f}` : modelWords(state, good, f).text)));
  return texts.size === 1 ? [...texts][0] : '';
}

/** One sentence comparing two products shown, from their classes and numbers; '' when nothing fits. */
export function compareSentence(state, good, x, y) {
  const [fx, ax] = x;
  const [fy, ay] = y;
  const nx = named(state, good, fx, { who: true });
  const ny = named(state, good, fy, { who: true });
  const Sx = FAMILY_STYLE[fx].sym;
  const Sy = FAMILY_STYLE[fy].sym;
  const at = good.n === 'inf' ? '' : ` at N = ${depthLabel(good.n)}`;
  const both = ax.logN && ay.logN && good.n !== 'inf' ? `: log ${Sx}_N = ${ax.logN} against log ${Sy}_N = ${ay.logN}${at}` : '';
  if (DIVERGES.has(ax.kind) && ay.kind === 'convergent') return `Compared with ${abWords(good)} in both: ${nx} grows without bound while ${ny} converges to log ${Sy}_∞ = ${ay.lim ?? 'not resolvable'}${both}.`;
  if (ax.kind === 'convergent' && DIVERGES.has(ay.kind)) return `Compared with ${abWords(good)} in both: ${nx} converges to log ${Sx}_∞ = ${ax.lim ?? 'not resolvable'} while ${ny} grows without bound${both}.`;
  if (ax.kind === 'convergent' && ay.kind === 'convergent') return `Compared with ${abWords(good)} in both: both converge, ${nx} to log ${Sx}_∞ = ${ax.lim ?? 'not resolvable'} and ${ny} to log ${Sy}_∞ = ${ay.lim ?? 'not resolvable'}.`;
  if (DIVERGES.has(ax.kind) && DIVERGES.has(ay.kind)) return `Compared with ${abWords(good)} in both: both grow without bound, ${nx} and ${ny}${both}.`;
  if (ax.kind === 'finite-list' || ay.kind === 'finite-list') return `Compared over the same depths with ${abWords(good)}: ${nx} and ${ny}${both}.`;
  return '';
}

export class Answer {
  constructor(root, pin) {
    this.root = root;
    this.ok = !!root;
    if (!this.ok) return;
    this.sentence = root.querySelector('[data-testid="headline"]');
    this.grid = root.querySelector('[data-testid="answer-grid"]');
    this.compare = root.querySelector('[data-testid="headline-compare"]');
    this.pin = pin; // the numbers pinned with the mini-plot on narrow screens
    this.items = new Map();
    this.pinItems = new Map();
  }

  /** The core did not load: the headline says so instead of promising numbers. */
  fail(message) {
    if (!this.ok) return;
    setText(this.sentence, message);
    this.grid.hidden = true;
    this.compare.hidden = true;
  }

  update(state, good, res) {
    if (!this.ok) return;
    const on = FAMILIES.filter((f) => state.families.includes(f));
    const answers = on.map((f) => [f, familyAnswer(state, good, res, f)]);
    const shared = sharedModel(state, good, on);
    const text = answers.length
      ? `With ${abWords(good)}${shared ? `, ${shared}` : ''}: ${answers.map(([f, a]) => `${named(state, good, f, { shared: !!shared })} ${a.clause}`).join('; ')}.`
      : 'Choose a product to show.';
    rich(this.sentence, text);
    // Side by side: each product's number with its own model, when more than one is shown.
    this.grid.hidden = answers.length < 2;
    this.sync(this.items, this.grid, answers, (f, a) => [
      `${a.numLabel}, ${FAMILY_STYLE[f].name}`,
      a.num ?? 'not resolvable',
      `${modelWords(state, good, f).text}${good.n === 'inf' ? '' : `, N = ${depthLabel(good.n)}`}${a.kind === 'convergent' && good.n !== 'inf' && a.lim ? `, limit ${a.lim}` : ''}`,
    ], 'answer');
    // Products under different variance models (the paper's Pre-LN vs LNS comparison): one sentence
    // that sets them against each other; under one shared model the headline already does.
    const cmp = answers.length >= 2 && !shared ? compareSentence(state, good, answers[0], answers[1]) : '';
    rich(this.compare, cmp);
    this.compare.hidden = !cmp;
    if (this.pin) this.sync(this.pinItems, this.pin, answers, (f, a) => [a.numLabel, a.num ?? 'not resolvable', ''], 'pin');
  }

  /** Keeps one element per family in `box` ([label, number, note] each), in the families' order. */
  sync(map, box, answers, parts, prefix) {
    const seen = new Set();
    let prev = null;
    for (const [f, a] of answers) {
      seen.add(f);
      let el = map.get(f);
      if (!el) {
        const root = document.createElement('div');
        root.className = `${prefix}-item`;
        root.dataset.family = f;
        root.style.setProperty('--ro', `var(${FAMILY_STYLE[f].color})`);
        const label = document.createElement('span');
        label.className = `${prefix}-label`;
        const num = document.createElement('span');
        num.className = `${prefix}-num`;
        num.dataset.testid = `${prefix}-num-${f}`;
        const note = document.createElement('span');
        note.className = `${prefix}-note`;
        root.append(label, ' ', num, ' ', note);
        root.dataset.testid = `${prefix}-${f}`;
        el = { root, label, num, note };
        map.set(f, el);
      }
      const [l, n, note] = parts(f, a);
      rich(el.label, prefix === 'pin' ? `${l} =` : l);
      setText(el.num, n);
      rich(el.note, note);
      el.note.hidden = !note;
      const want = prev ? prev.nextSibling : box.firstChild;
      if (want !== el.root) box.insertBefore(el.root, want);
      prev = el.root;
    }
    for (const [f, el] of map) {
      if (!seen.has(f)) {
        el.root.remove();
        map.delete(f);
      }
    }
  }
}

