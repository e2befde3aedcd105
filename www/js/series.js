// Asks the core for everything the plots, readouts and cards show for one (good) state, and packages
// it as plot series. Curves are the core's Float64Arrays; the only arithmetic here is the one the
// brief allows — leading terms = log-product − remainder, drawn as an asymptote with the core's C.

import * as core from './core.js';
import { paramsFor } from './state.js';
import { termsText, depthLabel } from './format.js';
import { FAMILIES } from './state.js';

export const POINTS = 1000;
const EQ65_POINTS = 160;

export const FAMILY_STYLE = {
  unscaled: { color: '--c-unscaled', name: 'unscaled', sym: 'P' },
  scaled: { color: '--c-scaled', name: 'scaled', sym: 'Q' },
  harmonic: { color: '--c-harmonic', name: 'harmonic', sym: 'H' },
  'sqrt-scaled': { color: '--c-sqrt-scaled', name: 'sqrt-scaled', sym: 'S' },
};

// Curves depend on (params, kind, grid); memoise the last few so toggling a family or log-y is free.
const curveCache = new Map();
const CACHE_MAX = 48;
function cachedCurve(params, kind, grid, gridKey) {
  const key = `${kind}|${gridKey}|${JSON.stringify(params)}`;
  const hit = curveCache.get(key);
  if (hit) return hit;
  const r = core.curve(params, kind, grid);
  if (r.ok && !(r.value instanceof Float64Array)) r.value = Float64Array.from(r.value);
  if (curveCache.size >= CACHE_MAX) curveCache.delete(curveCache.keys().next().value);
  curveCache.set(key, r);
  return r;
}

const gridCache = new Map();
function grid(nMax, count) {
  const key = `${nMax}|${count}`;
  let r = gridCache.get(key);
  if (!r) {
    r = core.depthGrid(nMax, count);
    if (r.ok && !(r.value instanceof Float64Array)) r.value = Float64Array.from(r.value);
    if (gridCache.size > 16) gridCache.clear();
    gridCache.set(key, r);
  }
  return r;
}

const evalCache = new Map();
function cachedEval(args) {
  const key = JSON.stringify(args);
  let r = evalCache.get(key);
  if (!r) {
    r = core.evaluate(args);
    if (evalCache.size > 32) evalCache.clear();
    evalCache.set(key, r);
  }
  return r;
}


/** The depth the plots run to: N itself, or 10^18 for N = ∞. */
export const plotMax = (n) => (n === 'inf' ? 1e18 : n);

/**
 * Computes everything for one state. Returns
 * { ok, grid, nMax, evals, closed, main, remainder, tail, problems }.
 */
export function compute(state, good, want = { tail: true, remainder: true }) {
  const problems = [];
  const n = good.n;
  const nMax = plotMax(n);
  const g = grid(nMax, POINTS);
  if (!g.ok) return { ok: false, problems: [g.error] };
  const ns = g.value;
  const gridKey = `${nMax}`;
  const on = FAMILIES.filter((f) => state.families.includes(f));
  // The cards need unscaled, scaled and harmonic whatever is toggled on.
  const needed = FAMILIES.filter((f) => on.includes(f) || f !== 'sqrt-scaled');

  const evals = {};
  const evalErrors = {};
  for (const f of needed) {
    const r = cachedEval({ ...paramsFor(f, state, good), n });
    if (r.ok) evals[f] = r.value;
    else {
      evals[f] = null;
      evalErrors[f] = r.error;
      if (on.includes(f)) problems.push(`${f}: ${r.error}`);
    }
  }

  let closed = null;
  if (state.variance === 'power') {
    const r = core.closedForms({ a: good.a, b: good.b, c: good.c, q: good.q, lambda: good.lambda, n });
    if (r.ok) closed = r.value;
    else problems.push(`closed forms: ${r.error}`);
  }

  const main = [];
  const remainder = [];
  const tail = [];
  const few = ns.length < 40;
  const curves = {};

  for (const f of on) {
    const st = FAMILY_STYLE[f];
    const p = paramsFor(f, state, good);
    const lp = cachedCurve(p, 'log-product', ns, gridKey);
    if (!lp.ok) {
      problems.push(`${f} curve: ${lp.error}`);
      continue;
    }
    curves[f] = lp.value;
    main.push({ key: f, label: `log ${st.sym}_N, ${st.name}`, short: `log ${st.sym}_N ${st.name}`, color: st.color, width: 2.4, xs: ns, ys: lp.value, points: few });
  }

  // Reference lines of the scaled family.
  const sc = evals.scaled;
  if (on.includes('scaled') && sc) {
    if (sc.limit) {
      main.push({ key: 'limit-scaled', label: 'log Q_∞, the scaled limit (band: enclosure)', short: 'log Q_∞', color: '--c-scaled', dash: [7, 4], width: 1.4, hline: sc.limit.value, band: [sc.limit.lo, sc.limit.hi] });
    }
    const zb = sc.zeta_bound || closed?.zeta_bound;
    if (zb) main.push({ key: 'zeta-bound', label: 'zeta-sum bound (A/√c)ζ(1+q/2) + (B/c)ζ(2+q)', short: 'zeta bound', color: '--c-sky', dash: [2, 3], width: 1.8, hline: zb.value });
    if (closed?.eq65) {
      const e = eq65Curve(good, ns, nMax, gridKey);
      if (e) main.push({ key: 'eq65', label: 'Eq. 65 exponent A(N^(ε/2−1) − 1)/(ε/2 − 1) + B(…)', short: 'Eq. 65 exponent', color: '--c-orange', width: 1.6, xs: e.xs, ys: e.ys });
      if (Number.isFinite(closed.eq65.limit)) main.push({ key: 'eq65-limit', label: 'its limit A/(1 − ε/2) + B/(3 − ε)', short: 'Eq. 65 limit', color: '--c-orange', dash: [7, 4], width: 1.4, hline: closed.eq65.limit });
    }
  }

  // Divergent families: the remainder log P_N − leading terms (second plot) and, for the unscaled and
  // harmonic families, the asymptote leading terms + C (main plot): the core's 'asymptote' curve, or
  // with older cores log-product − remainder + C.
  for (const f of on) {
    const ev = evals[f] ?? cachedEval({ ...paramsFor(f, state, good), n }).value;
    const div = ev?.divergent;
    if (!div || !curves[f]) continue;
    const st = FAMILY_STYLE[f];
    const p = paramsFor(f, state, good);
    const terms = termsText(div.terms);
    const C = div.constant;
    const wantAsym = f === 'unscaled' || f === 'harmonic';
    let asym = wantAsym ? optionalCurve(p, 'asymptote', ns, gridKey) : null;
    let rem = null;
    if (want.remainder || (wantAsym && !asym)) {
      const r = cachedCurve(p, 'remainder', ns, gridKey);
      if (r.ok) rem = r.value;
      else problems.push(`${f} remainder: ${r.error}`);
    }
    if (rem && want.remainder) {
      remainder.push({ key: `rem-${f}`, label: `${st.name}: log ${st.sym}_N − (${terms})`, short: `${st.name} remainder`, color: st.color, width: 2.2, xs: ns, ys: rem, points: few });
      if (C) remainder.push({ key: `c-${f}`, label: `C (${st.name})`, short: `C ${st.name}`, color: st.color, dash: [7, 4], width: 1.4, hline: C.value, band: [C.lo, C.hi] });
    }
    if (wantAsym && !asym && rem) {
      const lp = curves[f];
      const c = C ? C.value : 0;
      asym = new Float64Array(ns.length);
      for (let i = 0; i < ns.length; i++) asym[i] = lp[i] - rem[i] + c;
    }
    if (asym) {
      const what = f === 'harmonic' ? `harmonic Θ(N^A): ${terms}${C ? ' + C' : ''}` : `unscaled asymptote ${terms}${C ? ' + C' : ''}`;
      main.push({ key: `asym-${f}`, label: what, short: `${st.name} asymptote`, color: st.color, dash: [5, 4], width: 1.4, xs: ns, ys: asym });
    }
  }

  // The paper's claimed Θ(L) for Eq. 11: the core's 'linear-claim' curve, log N + log P_1 (a product
  // growing like L through the first factor); older cores: the harmonic product with A = 1, B = 0,
  // which is exactly L = N + 1.
  if (on.includes('unscaled') || on.includes('harmonic')) {
    const fam = on.includes('unscaled') ? 'unscaled' : 'harmonic';
    const claim = optionalCurve(paramsFor(fam, state, good), 'linear-claim', ns, gridKey);
    if (claim) {
      main.push({ key: 'theta-l', label: `paper’s Θ(L) (Eq. 11): log N + log P_1 (${fam})`, short: 'Θ(L) claim', color: '--c-neutral', dash: [1.5, 3], width: 1.8, xs: ns, ys: claim });
    } else {
      const ref = cachedCurve({ family: 'harmonic', a: 1, b: 0, variance: { kind: 'power', c: 1, q: 1 } }, 'log-product', ns, gridKey);
      if (ref.ok) main.push({ key: 'theta-l', label: 'paper’s Θ(L) (Eq. 11): log L = log(N + 1)', short: 'Θ(L): log L', color: '--c-neutral', dash: [1.5, 3], width: 1.8, xs: ns, ys: ref.value });
    }
  }

  // Tails of convergent families (skipped while their plot is off screen).
  for (const f of want.tail ? on : []) {
    const ev = evals[f] ?? cachedEval({ ...paramsFor(f, state, good), n }).value;
    if (!ev || !ev.limit) continue;
    const st = FAMILY_STYLE[f];
    const tl = cachedCurve(paramsFor(f, state, good), 'tail', ns, gridKey);
    if (!tl.ok) {
      problems.push(`${f} tail: ${tl.error}`);
      continue;
    }
    tail.push({ key: `tail-${f}`, label: `${st.name}: Σ_{l>N} g(l) ≤ bound`, short: `${st.name} tail ≤`, color: st.color, width: 2.2, xs: ns, ys: tl.value, points: few });
  }

  return { ok: true, grid: ns, nMax, n, evals, evalErrors, closed, main, remainder, tail, problems, label: depthLabel(n) };
}

// Curve kinds a core may not have yet: remembered once refused as unknown.
const unsupportedKinds = new Set();
/** The core's curve of this kind, or null when the core does not know the kind or refuses it here. */
function optionalCurve(params, kind, ns, gridKey) {
  if (unsupportedKinds.has(kind)) return null;
  const r = cachedCurve(params, kind, ns, gridKey);
  if (r.ok) return r.value;
  if (/unknown curve kind/i.test(r.error)) unsupportedKinds.add(kind);
  return null;
}

/** Eq. 65's exponent against N: a dedicated core curve kind if there is one, else closedForms per point. */
function eq65Curve(good, ns, nMax, gridKey) {
  const cfArgs = { a: good.a, b: good.b, c: good.c, q: good.q, lambda: good.lambda };
  const direct = optionalCurve({ family: 'scaled', a: good.a, b: good.b, variance: { kind: 'power', c: good.c, q: good.q } }, 'eq65-exponent', ns, gridKey);
  if (direct) return { xs: ns, ys: direct };
  const key = `${nMax}|${JSON.stringify(cfArgs)}`;
  if (eq65Memo.key === key) return eq65Memo.value;
  const g = grid(nMax, EQ65_POINTS);
  if (!g.ok) return null;
  const xs = g.value;
  const ys = new Float64Array(xs.length);
  for (let i = 0; i < xs.length; i++) {
    const r = core.closedForms({ ...cfArgs, n: xs[i] });
    ys[i] = r.ok && r.value.eq65 ? r.value.eq65.exponent_at_n : NaN;
  }
  eq65Memo.key = key;
  eq65Memo.value = { xs, ys };
  return eq65Memo.value;
}
const eq65Memo = { key: '', value: null };
