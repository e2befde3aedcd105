// The readout panel: certified numbers as DOM text. Each readout's text starts with the number
// (parseFloat-readable), followed by its enclosure, with a one-line meaning underneath.

import { rich } from '../common/rich.js';
import { certifiedText, enclosureText, directed, plain, termsText, depthLabel, finite, trimZeros } from '../common/format.js';
import { FAMILY_STYLE } from './series.js';
import { FAMILIES, modelFor } from './state.js';
import { expansionBrief } from './expansion.js';

// No live region per value (it would speak on every frame of a drag): access.js announces the key
// numbers once they settle.

export class Readouts {
  constructor(dl) {
    this.dl = dl;
    this.items = new Map(); // id → { root, num, enc, meaning }
  }

  /**
   * items: [{ id, label, num, enc, meaning, color, more }] in display order. `stale` marks every
   * readout as no longer matching the inputs (an input is invalid, so the last good numbers stay).
   */
  render(list, { stale = false } = {}) {
    const seen = new Set();
    let prev = null;
    for (const it of list) {
      seen.add(it.id);
      let el = this.items.get(it.id);
      if (!el) el = this.create(it.id);
      rich(el.label, it.label);
      setText(el.num, it.num);
      setText(el.enc, it.enc ? ` ${it.enc}` : '');
      setText(el.approx, it.approx ? ` ${it.approx}` : '');
      rich(el.meaning, it.meaning || '');
      // Attributes and styles are written only when they change: even an equal write makes the
      // browser recheck the element's style in the next frame.
      const ro = `var(${it.color || '--rule'})`;
      if (el.ro !== ro) el.root.style.setProperty('--ro', (el.ro = ro));
      el.root.classList.toggle('is-stale', !!it.stale || stale);
      setAttr(el.val, 'data-stale', String(!!it.stale || stale));
      if (el.more.hidden !== !it.more) el.more.hidden = !it.more;
      if (it.more) {
        setText(el.moreSummary, it.more.summary);
        rich(el.moreBody, it.more.text);
      }
      // Keep DOM order equal to list order.
      const want = prev ? prev.nextSibling : this.dl.firstChild;
      if (want !== el.root) this.dl.insertBefore(el.root, want);
      prev = el.root;
    }
    for (const [id, el] of this.items) {
      if (!seen.has(id)) {
        el.root.remove();
        this.items.delete(id);
      }
    }
  }

  create(id) {
    const root = document.createElement('div');
    root.className = 'readout';
    const dt = document.createElement('dt');
    const label = document.createElement('span');
    dt.append(label);
    const dd = document.createElement('dd');
    const val = document.createElement('div');
    val.className = 'val';
    val.dataset.testid = id;
    const num = document.createElement('span');
    num.className = 'num';
    const approx = document.createElement('span');
    approx.className = 'approx';
    const enc = document.createElement('span');
    enc.className = 'enc';
    val.append(num, approx, enc);
    const meaning = document.createElement('div');
    meaning.className = 'meaning';
    // Long expansions: the leading terms stay in the meaning, all of them on demand.
    const more = document.createElement('details');
    more.className = 'more';
    more.hidden = true;
    const moreSummary = document.createElement('summary');
    const moreBody = document.createElement('div');
    moreBody.className = 'mono';
    more.append(moreSummary, moreBody);
    dd.append(val, meaning, more);
    root.append(dt, dd);
    const el = { root, label, num, enc, approx, meaning, val, more, moreSummary, moreBody };
    this.items.set(id, el);
    return el;
  }
}

/**
 * Text parts for an enclosure {value, lo, hi}: the certified digits, then the enclosure. Trailing
 * zeros of the fraction are dropped (2.5 for an enclosure of 2.5 certified to 15 digits, not
 * "2.50000000000000"): the shortest decimal those digits identify; the enclosure shows the width.
 */
export function enclosureParts(e) {
  if (!e) return null;
  const c = certifiedText(e.value, e.lo, e.hi);
  if (!c) return null;
  return {
    num: c.certified && /\.\d*0(e|$)/.test(c.text) ? trimZeros(c.text) : c.text,
    approx: c.certified ? '' : '(no digit certified)',
    enc: c.digits >= 17 ? '(exact)' : `∈ ${enclosureText(e.lo, e.hi, c.digits)}`,
  };
}

/** All the terms of an expansion on demand, when the meaning shows only the leading ones. */
function allTerms(terms, sym) {
  if (!Array.isArray(terms) || terms.length <= 3) return undefined;
  return { summary: `all ${terms.length} terms`, text: `log ${sym}_N = ${termsText(terms, { max: Infinity })} + C + o(1)` };
}

/** Builds the readout list for a computed result; the readouts follow "Products shown". */
export function readoutItems(state, good, res) {
  const items = [];
  const at = good.n === 'inf' ? 'as N → ∞' : `at N = ${depthLabel(good.n)}`;
  const on = FAMILIES.filter((f) => state.families.includes(f));
  for (const f of on) {
    const st = FAMILY_STYLE[f];
    const ev = res.evals[f];
    const id = `log-product-${f}`;
    if (!ev) {
      items.push({ id, label: `log ${st.sym}_N, ${st.name}`, num: '—', meaning: res.evalErrors?.[f] || 'not available', color: st.color, stale: true });
      continue;
    }
    const parts = enclosureParts(ev.log_product);
    if (parts) {
      items.push({ id, label: `log ${st.sym}_N, ${st.name}, ${at}`, ...parts, meaning: meaningFor(f, ev), more: allTerms(ev.divergent?.terms, st.sym), color: st.color });
    } else if (ev.divergent) {
      items.push({ id, label: `log ${st.sym}_N, ${st.name}, ${at}`, num: 'Infinity', enc: '', meaning: `diverges: log ${st.sym}_N = ${termsText(ev.divergent.terms)} + C + o(1)`, more: allTerms(ev.divergent.terms, st.sym), color: st.color });
    } else {
      // The core could not certify this number: say so where it would be, in its words.
      const why = reasonFor(ev, 'log_product') || reasonFor(ev, 'limit') || (ev.unresolved || [])[0]?.reason;
      if (why) items.push({ id, label: `log ${st.sym}_N, ${st.name}, ${at}`, num: 'not resolvable', enc: '', meaning: why, color: st.color });
    }
    if (f === 'scaled' || (!ev.limit && !reasonFor(ev, 'limit'))) continue;
    // Other convergent families also get their limit and tail.
    pushLimitTail(items, f, ev, good);
  }
  const sc = res.evals.scaled;
  const scaledOn = on.includes('scaled');
  if (sc && scaledOn) pushLimitTail(items, 'scaled', sc, good);

  const un = res.evals.unscaled;
  if (un?.divergent && on.includes('unscaled')) {
    const v = modelFor(state, good, 'unscaled');
    // The correction derives C's expansion for σ_l² = l exactly; elsewhere it is this page's generalisation.
    const correctionCase = v.kind === 'power' && v.c === 1 && v.q === 1;
    const whose = correctionCase ? 'the correction’s expansion, for σ_l² = l' : 'this page’s generalisation; the correction derives it for σ_l² = l only';
    const parts = un.divergent.constant ? enclosureParts(un.divergent.constant) : null;
    if (parts) {
      // Where the expansion has not settled, say so briefly; the figure "How each product settles" says why.
      const idle = res.unsettled?.includes('unscaled') ? ` Not informative here: ${expansionBrief('unscaled', res.expansions?.unscaled)}` : '';
      items.push({ id: 'constant-c', label: 'C, the unscaled constant', ...parts, meaning: `log P_N = ${termsText(un.divergent.terms)} + C + o(1): ${whose}.${idle}`, more: allTerms(un.divergent.terms, 'P'), color: FAMILY_STYLE.unscaled.color });
    } else {
      items.push({
        id: 'constant-c',
        label: 'C, the unscaled constant',
        num: 'not resolvable',
        enc: '',
        meaning: `${sentence(reasonFor(un, 'constant') || 'the core cannot certify any digit of C for these parameters')} C is left out rather than guessed (${whose}).`,
        more: allTerms(un.divergent.terms, 'P'),
        color: FAMILY_STYLE.unscaled.color,
      });
    }
  }

  const zb = scaledOn ? sc?.zeta_bound || res.closed?.zeta_bound : null;
  if (zb) {
    const parts = enclosureParts(zb);
    if (parts) items.push({ id: 'zeta-bound', label: 'zeta-sum bound on log Q_∞', ...parts, meaning: '(A/√c) ζ(1 + q/2) + (B/c) ζ(2 + q): the correction’s bound, finite for every q > 0', color: '--c-sky' });
  }
  const e65 = scaledOn ? res.closed?.eq65 : null;
  const e65Parts = e65 ? enclosureParts(e65.limit) : null;
  if (e65Parts) {
    const atN = e65.exponent_at_n && good.n !== 'inf' ? enclosureParts(e65.exponent_at_n) : null;
    items.push({
      id: 'eq65-limit',
      label: 'Eq. 65’s exponent, limit N → ∞',
      ...e65Parts,
      enc: `${e65Parts.enc}${atN ? ` (at N = ${depthLabel(good.n)}: ${atN.num})` : ''}`,
      meaning: `A/(1 − ε/2) + B/(3 − ε) with ε = 2 − q = ${enclosureParts(e65.eps)?.num ?? '—'}: finite, where the paper writes ω(1). It drops the l = 1 term, so it can sit below log Q_∞.`,
      color: '--c-orange',
    });
  }
  // Closed forms the core could not certify say so, in its words.
  for (const u of scaledOn ? res.closed?.unresolved || [] : []) {
    items.push({ id: `unresolved-${u.quantity}`, label: u.quantity.replace(/_/g, ' '), num: 'not resolvable', enc: '', meaning: u.reason, color: '--c-sky' });
  }
  if (res.expBound != null && on.includes('unscaled')) {
    const e = res.expBound;
    const parts = typeof e === 'object' ? enclosureParts(e) : null;
    items.push({
      id: 'exp-bound',
      label: 'Eq. 10’s bound on log P_∞ (exponential σ_l²)',
      ...(parts || { num: plain(num(e), 12), enc: '(the core’s value, not yet given as an enclosure)' }),
      meaning: 'A c^(−1/2)/(e^(λ/2) − 1) + (B/c)/(e^λ − 1), from log(1 + x) ≤ x: the paper’s own bounded case (Eq. 10)',
      color: FAMILY_STYLE.unscaled.color,
    });
  }
  return items;
}

/** A core number that may arrive as a decimal string. */
const num = (x) => (typeof x === 'string' ? Number(x) : x);

/** "the constant …" → "The constant ….": a reason from the core as a sentence. */
function sentence(text) {
  const t = String(text).trim();
  return `${t.charAt(0).toUpperCase()}${t.slice(1)}${/[.!?]$/.test(t) ? '' : '.'}`;
}

/** The core's words for a quantity it could not certify in an evaluation, or ''. */
function reasonFor(ev, quantity) {
  return (ev?.unresolved || []).find((u) => u.quantity === quantity)?.reason || '';
}

function pushLimitTail(items, f, ev, good) {
  const st = FAMILY_STYLE[f];
  const missing = reasonFor(ev, 'limit');
  if (!ev.limit && missing) items.push({ id: `limit-${f}`, label: `log ${st.sym}_∞, limit of the ${st.name} product`, num: 'not resolvable', enc: '', meaning: missing, color: st.color });
  if (ev.limit) {
    const parts = enclosureParts(ev.limit);
    if (parts) items.push({ id: `limit-${f}`, label: `log ${st.sym}_∞, limit of the ${st.name} product`, ...parts, meaning: `the ${st.name} product increases to this finite value`, color: st.color });
  }
  if (ev.tail && finite(ev.tail.hi) && good.n !== 'inf') {
    // Both ends at the same digits: those on which they agree, plus two (as every enclosure here).
    const c = finite(ev.tail.lo) ? certifiedText(ev.tail.hi, ev.tail.lo, ev.tail.hi) : null;
    const d = Math.min(17, Math.max(4, (c?.digits ?? 2) + 2));
    const hi = directed(ev.tail.hi, d, +1);
    items.push({
      id: `tail-${f}`,
      label: `tail Σ_{l>N}, ${st.name}, at N = ${depthLabel(good.n)}`,
      num: hi,
      enc: finite(ev.tail.lo) ? `(upper bound; the tail lies in [${directed(ev.tail.lo, d, -1)}, ${hi}])` : '(upper bound)',
      meaning: `tail to infinity at most this: log ${st.sym}_∞ − log ${st.sym}_N ≤ ${hi}`,
      color: st.color,
    });
  }
}

function meaningFor(f, ev) {
  if (ev.divergent) return `diverges like ${termsText(ev.divergent.terms)} + C`;
  if (ev.limit) return 'converges: increases to the limit below';
  return f === 'harmonic' ? 'independent of σ' : 'finite depth of a measured list';
}

/** Sets an attribute only when its value differs (an equal write still invalidates style). */
export function setAttr(el, name, value) {
  if (el.getAttribute(name) !== value) el.setAttribute(name, value);
}

/**
 * Sets text only when it differs: an unchanged readout costs the browser no new layout. A lone text
 * child keeps its node and changes its data (no node leaves or enters the tree, so nothing restyles).
 */
export function setText(el, text) {
  if (el.textContent === text) return;
  const only = el.firstChild;
  if (text && only && only === el.lastChild && only.nodeType === Node.TEXT_NODE) only.data = text;
  else el.textContent = text;
}
