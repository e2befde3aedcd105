// Asks the core for everything the plots, readouts and cards show for one (good) state, and packages
// it as plot series. Every curve, reference line and asymptote is a core Float64Array or number;
// nothing here does arithmetic on them.

import * as core from '../common/core.js';
import { paramsFor, varianceFor } from './state.js';
import { describedFrom } from '../common/plot.js';
import { termsText, depthLabel, paramToken } from '../common/format.js';
import { FAMILIES } from './state.js';

/** Depths per curve: the full grid, and the coarse one a drag asks for until the pointer rests. */
export const POINTS = 1000;
export const COARSE_POINTS = 250;

export const FAMILY_STYLE = {
  unscaled: { color: '--c-unscaled', name: 'unscaled', sym: 'P' },
  scaled: { color: '--c-scaled', name: 'scaled', sym: 'Q' },
  harmonic: { color: '--c-harmonic', name: 'harmonic', sym: 'H' },
  'sqrt-scaled': { color: '--c-sqrt-scaled', name: 'sqrt-scaled', sym: 'S' },
};

// One prepared core product per parameter set: evaluate and every curve of a frame share it.
// The last few are kept (toggling a family or log-y then costs nothing) and freed on eviction.
const products = new Map();
const PRODUCTS_MAX = 16;
function productFor(params) {
  const key = productKey(params);
  let entry = products.get(key);
  if (!entry) {
    const r = core.product(params);
    entry = { prepared: r.ok ? r.value : null, error: r.ok ? null : r.error, curves: new Map(), evals: new Map() };
    if (products.size >= PRODUCTS_MAX) {
      const [oldKey, old] = products.entries().next().value;
      old.prepared?.free();
      products.delete(oldKey);
    }
    products.set(key, entry);
  }
  return entry;
}

// The cache key of a parameter set. A measured list (the core's Float64Array, up to 10⁶ values)
// stands in by identity: it is the same object for as long as its text is unchanged (state.js), and
// writing out its values would cost more than the whole evaluation.
const listIds = new WeakMap();
let nextListId = 0;
function productKey(params) {
  return JSON.stringify(params, (_, v) => {
    if (!(v instanceof Float64Array)) return v; // a plain Array is written out (it could be edited in place)
    if (!listIds.has(v)) listIds.set(v, ++nextListId);
    return `list#${listIds.get(v)}`;
  });
}

// Curves depend on (params, kind, grid); memoised per product.
function cachedCurve(params, kind, grid, gridKey) {
  const entry = productFor(params);
  if (!entry.prepared) return { ok: false, error: entry.error };
  const key = `${kind}|${gridKey}`;
  let r = entry.curves.get(key);
  if (!r) {
    r = core.curveOf(entry.prepared, kind, grid);
    if (entry.curves.size > 12) entry.curves.clear();
    entry.curves.set(key, r);
  }
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

/**
 * The core's enclosure of a certified curve (log-product or tail) at every depth of a grid,
 * { lo, hi } (NaN where the core gives none). Asked for on export, and per frame only for a curve
 * the core reports wider than the goal (see `widthNote`).
 */
export function curveBounds(params, ns, kind = 'log-product') {
  const entry = productFor(params);
  const r = entry.prepared ? core.curveBandOf(entry.prepared, kind, ns) : null;
  if (r?.ok) return r.value;
  return { lo: new Float64Array(ns.length).fill(NaN), hi: new Float64Array(ns.length).fill(NaN) };
}

/** A wide curve's band, kept with its cached curve so a frame that changes nothing asks nothing. */
function bandOf(curveResult, params, kind, ns) {
  if (!curveResult.band) curveResult.band = curveBounds(params, ns, kind);
  return curveResult.band;
}

/** The accuracy goal every certified number is held to (relative width; absolute below 1). */
export const WIDTH_GOAL = 1e-12;

/**
 * When a certified curve has a point wider than the goal, the words that say so (the band drawn
 * around the curve shows where); null when every point meets it.
 */
function widthNote(r, what) {
  if (r.worst === null || r.worst === undefined || r.worst <= WIDTH_GOAL) return null;
  const w = Number.isFinite(r.worst) ? `relative width up to ${r.worst.toExponential(1)}, at N = ${depthLabel(r.at)}` : `no finite enclosure at N = ${depthLabel(r.at)}`;
  return `${what}: ${w}`;
}

/**
 * The core's growth class of one parameter set (`product.growth()`: convergent, power,
 * stretched-exponential, exponential or finite-list, with its certified exponent), as { ok, value }.
 */
export function growthFor(params) {
  const entry = productFor(params);
  if (!entry.prepared) return { ok: false, error: entry.error };
  if (!entry.growth) {
    try {
      entry.growth = { ok: true, value: entry.prepared.growth() };
    } catch (e) {
      entry.growth = { ok: false, error: core.messageOf(e) };
    }
  }
  return entry.growth;
}

/** The core's evaluation of one parameter set at depth n, through the same cache as the plots. */
export function evalFor(params, n) {
  return cachedEval({ ...params, n });
}

function cachedEval(args) {
  const { n, ...params } = args;
  const entry = productFor(params);
  if (!entry.prepared) return { ok: false, error: entry.error };
  const key = String(n);
  let r = entry.evals.get(key);
  if (!r) {
    r = core.evaluateAt(entry.prepared, n);
    if (entry.evals.size > 8) entry.evals.clear();
    entry.evals.set(key, r);
  }
  return r;
}

/** The depth the plots run to: N itself, or 10^18 for N = ∞. */
export const plotMax = (n) => (n === 'inf' ? 1e18 : n);

/**
 * Computes everything for one state. Returns
 * { ok, grid, nMax, evals, closed, main, remainder, tail, problems }. `want.points`: depths per
 * curve (POINTS unless told; a drag asks for COARSE_POINTS, main.js).
 */
export function compute(state, good, want = { tail: true, remainder: true }) {
  const problems = [];
  const n = good.n;
  const nMax = plotMax(n);
  const points = want.points ?? POINTS;
  const g = grid(nMax, points);
  if (!g.ok) return { ok: false, problems: [g.error] };
  const ns = g.value;
  const gridKey = `${nMax}|${points}`;
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

  // Closed forms of the scaled family's own regime: the zeta-sum bound and Eq. 65 (power law), or
  // the exponential-variance bound (Eq. 10/49).
  let closed = null;
  const scV = varianceFor(state, good, 'scaled');
  const ab = { a: good.raw?.a ?? good.a, b: good.raw?.b ?? good.b };
  const closedArgs =
    scV.kind === 'power'
      ? { ...ab, c: scV.c, ...(scV.eps !== undefined ? { eps: scV.eps } : { q: scV.q }), n }
      : scV.kind === 'exponential'
        ? { ...ab, c: scV.c, lambda: scV.lambda, n }
        : null;
  if (closedArgs) {
    const r = core.closedForms(closedArgs);
    if (r.ok) closed = r.value;
    else problems.push(`closed forms: ${r.error}`);
  }
  // Eq. 10's bound belongs to the unscaled product under exponential variance.
  const unV = varianceFor(state, good, 'unscaled');
  let expBound = null;
  if (unV.kind === 'exponential') {
    const r = core.closedForms({ ...ab, c: unV.c, lambda: unV.lambda, n });
    if (r.ok) expBound = r.value.exponential_bound ?? null;
    else problems.push(`closed forms: ${r.error}`);
  }

  const main = [];
  const remainderNotes = [];
  const unsettled = []; // divergent families whose expansion has not settled to C on the plotted depths
  const expansions = {};
  const remainder = [];
  const tail = [];
  const widthNotes = [];
  const tailWidthNotes = [];
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
    const wide = widthNote(lp, `log ${st.sym}_N (${st.name})`);
    if (wide) widthNotes.push(wide);
    main.push({ key: f, label: `log ${st.sym}_N, ${st.name}${modelSuffix(state, good, f)}`, short: `log ${st.sym}_N ${st.name}${modelSuffix(state, good, f)}`, color: st.color, width: 2.4, xs: ns, ys: lp.value, points: few, bounds: () => curveBounds(p, ns), yBand: wide ? bandOf(lp, p, 'log-product', ns) : undefined });
  }

  // Reference lines of the scaled family.
  const sc = evals.scaled;
  if (on.includes('scaled') && sc) {
    if (sc.limit) {
      main.push({ key: 'limit-scaled', label: 'log Q_∞, the scaled limit (band: enclosure)', short: 'log Q_∞', color: '--c-scaled', dash: [7, 4], width: 1.4, hline: sc.limit.value, band: [sc.limit.lo, sc.limit.hi], ref: true });
    }
    const zb = sc.zeta_bound || closed?.zeta_bound;
    if (zb) main.push({ key: 'zeta-bound', label: 'zeta-sum bound on log Q_N: (A/√c)ζ(1+q/2) + (B/c)ζ(2+q)', short: 'zeta bound', color: '--c-sky', dash: [2, 3], width: 1.8, hline: zb.value, ref: true });
    if (closed?.eq65) {
      const e = cachedCurve(paramsFor('scaled', state, good), 'eq65-exponent', ns, gridKey);
      if (e.ok) main.push({ key: 'eq65', label: 'Eq. 65’s exponent A(N^(ε/2−1) − 1)/(ε/2 − 1) + B(N^(ε−3) − 1)/(ε − 3)', short: 'Eq. 65 exponent', color: '--c-orange', width: 1.6, xs: ns, ys: e.value, ref: true });
      else problems.push(`Eq. 65 exponent: ${e.error}`);
      const lim = closed.eq65.limit;
      if (lim && Number.isFinite(lim.value)) main.push({ key: 'eq65-limit', label: 'its limit A/(1 − ε/2) + B/(3 − ε)', short: 'Eq. 65 limit', color: '--c-orange', dash: [7, 4], width: 1.4, hline: lim.value, band: [lim.lo, lim.hi], ref: true });
    }
  }

  // Divergent families: the remainder log P_N − leading terms (second plot) and, for the unscaled and
  // harmonic families, the core's asymptote curve, leading terms + C (main plot).
  for (const f of on) {
    const ev = evals[f] ?? cachedEval({ ...paramsFor(f, state, good), n }).value;
    const div = ev?.divergent;
    if (!div || !curves[f]) continue;
    const st = FAMILY_STYLE[f];
    const p = paramsFor(f, state, good);
    const terms = termsText(div.terms, { max: LEGEND_TERMS });
    const C = div.constant;
    const wantAsym = f === 'unscaled' || f === 'harmonic';
    const asymCurve = wantAsym ? cachedCurve(p, 'asymptote', ns, gridKey) : null;
    if (asymCurve && !asymCurve.ok) problems.push(`${f} asymptote: ${asymCurve.error}`);
    const asym = asymCurve?.ok ? asymCurve.value : null;
    let rem = null;
    if (want.remainder) {
      const r = cachedCurve(p, 'remainder', ns, gridKey);
      if (r.ok) rem = r.value;
      else problems.push(`${f} remainder: ${r.error}`);
    }
    // The remainder is drawn only where it settles on the plotted range; otherwise the note says why.
    const settles = rem && C ? settlesTo(rem, C) : false;
    if (rem && !C) remainderNotes.push(`${st.name}: C is not resolvable in double precision for these parameters, so there is no limit to draw the remainder against`);
    else if (rem && !settles) {
      remainderNotes.push(`${st.name}: not drawn, the remainder has not settled within the plotted depths (N ≤ ${depthLabel(nMax)}); its leading terms do not yet describe log ${st.sym}_N`);
      unsettled.push(f);
      // What the expansion amounts to where it is not informative, all from the core: its terms
      // summed at N (the 'leading' curve), C, the remainder at the last plotted depth, log P_N.
      const at = n === 'inf' ? null : cachedCurve(p, 'leading', Float64Array.of(n), `${n}|1`);
      expansions[f] = { terms: div.terms, constant: C, leadingAtN: at?.ok ? at.value[0] : null, nAt: n, remainderEnd: rem[rem.length - 1], nEnd: ns[ns.length - 1], logAtN: ev.log_product ?? null };
    }
    if (rem && settles && want.remainder) {
      remainder.push({ key: `rem-${f}`, label: `${st.name}: log ${st.sym}_N − (${terms})`, short: `${st.name} remainder`, color: st.color, width: 2.2, xs: ns, ys: rem, points: few });
      if (C) remainder.push({ key: `c-${f}`, label: `C (${st.name})`, short: `C ${st.name}`, color: st.color, dash: [7, 4], width: 1.4, hline: C.value, band: [C.lo, C.hi] });
    }
    if (asym) {
      const what = f === 'harmonic' ? `harmonic Θ(N^A): ${terms}${C ? ' + C' : ''}` : `unscaled asymptote ${terms}${C ? ' + C' : ''}`;
      // Drawn only from the depth on which it stays within a few percent of the curve it describes;
      // the legend says from where, or that it is not drawn at all on this range.
      const ref = { ys: asym, describes: { ys: curves[f], tol: ASYMPTOTE_TOL } };
      const from = describedFrom(ref, Math.min(asym.length, ns.length));
      const pct = `${ASYMPTOTE_TOL * 100}%`;
      const where =
        from >= ns.length
          ? ` (not drawn: more than ${pct} from log ${st.sym}_N at every plotted depth)`
          : from > 0
            ? ` (drawn from N ≈ ${depthLabel(ns[from])}, where it is within ${pct} of log ${st.sym}_N)`
            : '';
      main.push({ key: `asym-${f}`, label: what + where, short: `${st.name} asymptote`, color: st.color, dash: [5, 4], width: 1.4, xs: ns, ys: asym, ref: true, describes: { ys: curves[f], tol: ASYMPTOTE_TOL } });
    }
  }

  // The paper's claimed Θ(L) for Eq. 11: the core's 'linear-claim' curve, log N + log P_1 (a product
  // growing like L through the first factor).
  if (on.includes('unscaled') || on.includes('harmonic')) {
    const fam = on.includes('unscaled') ? 'unscaled' : 'harmonic';
    const claim = cachedCurve(paramsFor(fam, state, good), 'linear-claim', ns, gridKey);
    if (claim.ok) {
      main.push({ key: 'theta-l', label: `paper’s Θ(L) (Eq. 11): log N + log P_1 (${fam})`, short: 'Θ(L) claim', color: '--c-neutral', dash: [1.5, 3], width: 1.8, xs: ns, ys: claim.value, ref: true });
    } else problems.push(`Θ(L) reference: ${claim.error}`);
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
    const tp = paramsFor(f, state, good);
    const wide = widthNote(tl, `${st.name} tail`);
    if (wide) tailWidthNotes.push(wide);
    tail.push({ key: `tail-${f}`, label: `${st.name}: Σ_{l>N} g(l) ≤ bound`, short: `${st.name} tail ≤`, color: st.color, width: 2.2, xs: ns, ys: tl.value, points: few, bounds: () => curveBounds(tp, ns, 'tail'), yBand: wide ? bandOf(tl, tp, 'tail', ns) : undefined });
  }

  return { ok: true, grid: ns, nMax, n, evals, evalErrors, closed, expBound, main, remainder, remainderNotes, unsettled, expansions, tail, widthNotes, tailWidthNotes, problems, label: depthLabel(n) };
}

/** How many leading terms a legend shows before "+ k more terms". */
export const LEGEND_TERMS = 3;
/** An asymptote is drawn where it is within this relative distance of its curve. */
export const ASYMPTOTE_TOL = 0.03;

/**
 * Whether a core remainder curve has settled to the core's C on the plotted range: its last value
 * lies inside C's enclosure widened by 5% of max(1, |C|). A display decision (draw or explain), not a
 * certified statement.
 */
function settlesTo(rem, C) {
  const last = rem[rem.length - 1];
  if (!Number.isFinite(last) || !Number.isFinite(C.lo) || !Number.isFinite(C.hi)) return false;
  const slack = 0.05 * Math.max(1, Math.abs(C.value));
  return last >= C.lo - slack && last <= C.hi + slack;
}

/** ", own σ_l² = c·l^q" when a family does not use the shared variance model. */
function modelSuffix(state, good, f) {
  const own = state.own?.[f] && good.own?.[f];
  if (!own) return '';
  const c = good.own[f].c;
  const cText = c === 1 ? '' : `${paramToken(c)}·`;
  const exp = state.own[f].lns ? `l^(2−${paramToken(own.eps)})` : own.q === 1 ? 'l' : `l^${paramToken(own.q)}`;
  return `, σ_l² = ${cText}${exp}`;
}
