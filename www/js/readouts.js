// The readout panel: certified numbers as DOM text. Each readout's text starts with the number
// (parseFloat-readable), followed by its enclosure, with a one-line meaning underneath.

import { rich } from './rich.js';
import { certifiedText, enclosureText, directed, plain, termsText, depthLabel, finite, trimZeros } from './format.js';
import { FAMILY_STYLE } from './series.js';
import { FAMILIES } from './state.js';

// No live region per value (it would speak on every frame of a drag): access.js announces the key
// numbers once they settle.

export class Readouts {
  constructor(dl) {
    this.dl = dl;
    this.items = new Map(); // id → { root, num, enc, meaning }
  }

  /** items: [{ id, label, num, enc, meaning, color }] in display order. */
  render(list) {
    const seen = new Set();
    let prev = null;
    for (const it of list) {
      seen.add(it.id);
      let el = this.items.get(it.id);
      if (!el) el = this.create(it.id);
      rich(el.label, it.label);
      el.num.textContent = it.num;
      el.enc.textContent = it.enc ? ` ${it.enc}` : '';
      el.approx.textContent = it.approx ? ` ${it.approx}` : '';
      rich(el.meaning, it.meaning || '');
      el.root.style.setProperty('--ro', `var(${it.color || '--rule'})`);
      el.root.classList.toggle('is-stale', !!it.stale);
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
    dd.append(val, meaning);
    root.append(dt, dd);
    const el = { root, label, num, enc, approx, meaning };
    this.items.set(id, el);
    return el;
  }
}

/** Text parts for an enclosure {value, lo, hi}: the certified digits, then the enclosure. */
export function enclosureParts(e) {
  if (!e) return null;
  const c = certifiedText(e.value, e.lo, e.hi);
  if (!c) return null;
  return {
    num: c.text,
    approx: c.certified ? '' : '(no digit certified)',
    enc: c.digits >= 17 ? '(exact)' : `∈ ${enclosureText(e.lo, e.hi, c.digits)}`,
  };
}

/** Builds the readout list for a computed result. */
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
      items.push({ id, label: `log ${st.sym}_N, ${st.name}, ${at}`, ...parts, meaning: meaningFor(f, ev), color: st.color });
    } else if (ev.divergent) {
      items.push({ id, label: `log ${st.sym}_N, ${st.name}, ${at}`, num: 'Infinity', enc: '', meaning: `diverges: log ${st.sym}_N = ${termsText(ev.divergent.terms)} + C + o(1)`, color: st.color });
    }
    if (f === 'scaled' || !ev.limit) continue;
    // Other convergent families also get their limit and tail.
    pushLimitTail(items, f, ev, good);
  }
  const sc = res.evals.scaled;
  if (sc && on.includes('scaled')) pushLimitTail(items, 'scaled', sc, good);

  const un = res.evals.unscaled;
  if (un?.divergent?.constant) {
    const parts = enclosureParts(un.divergent.constant);
    if (parts) items.push({ id: 'constant-c', label: 'C, the unscaled constant', ...parts, meaning: `log P_N = ${termsText(un.divergent.terms)} + C + o(1) (the correction's expansion)`, color: FAMILY_STYLE.unscaled.color });
  }

  const zb = sc?.zeta_bound || res.closed?.zeta_bound;
  if (zb) {
    const parts = enclosureParts(zb);
    if (parts) items.push({ id: 'zeta-bound', label: 'zeta-sum bound on log Q_∞', ...parts, meaning: '(A/√c) ζ(1 + q/2) + (B/c) ζ(2 + q): the correction’s bound, finite for every q > 0', color: '--c-sky' });
  }
  const e65 = res.closed?.eq65;
  if (e65 && finite(e65.limit)) {
    items.push({
      id: 'eq65-limit',
      label: 'Eq. 65 exponent, limit N → ∞',
      num: plain(e65.limit, 12),
      enc: finite(e65.exponent_at_n) && good.n !== 'inf' ? `(at N = ${depthLabel(good.n)}: ${plain(e65.exponent_at_n, 10)})` : '',
      meaning: `A/(1 − ε/2) + B/(3 − ε) with ε = 2 − q = ${plain(e65.eps, 6)}: finite, where the paper writes ω(1). It drops the l = 1 term, so it can sit below log Q_∞.`,
      color: '--c-orange',
    });
  }
  return items;
}

function pushLimitTail(items, f, ev, good) {
  const st = FAMILY_STYLE[f];
  if (ev.limit) {
    const parts = enclosureParts(ev.limit);
    if (parts) items.push({ id: `limit-${f}`, label: `log ${st.sym}_∞, limit of the ${st.name} product`, ...parts, meaning: `the ${st.name} product increases to this finite value`, color: st.color });
  }
  if (ev.tail && finite(ev.tail.hi) && good.n !== 'inf') {
    items.push({
      id: `tail-${f}`,
      label: `tail Σ_{l>N}, ${st.name}, at N = ${depthLabel(good.n)}`,
      num: directed(ev.tail.hi, 10, +1),
      enc: finite(ev.tail.lo) ? `(upper bound; the tail is at least ${trimZeros(directed(ev.tail.lo, 4, -1))})` : '(upper bound)',
      meaning: `tail to infinity at most this: log ${st.sym}_∞ − log ${st.sym}_N ≤ ${trimZeros(directed(ev.tail.hi, 4, +1))}`,
      color: st.color,
    });
  }
}

function meaningFor(f, ev) {
  if (ev.divergent) return `diverges like ${termsText(ev.divergent.terms)} + C`;
  if (ev.limit) return 'converges: increases to the limit below';
  return f === 'harmonic' ? 'independent of σ' : 'finite depth of a measured list';
}
