// Page state, the URL fragment (parse / serialize) and validation. Validation messages come from the
// core: each field is probed by a cheap core call in which only that field differs from a known-good
// baseline, so the core's message lands next to the control that caused it.

import * as core from '../common/core.js';
import { depthToken, paramToken, grouped } from '../common/format.js';

export const FAMILIES = ['unscaled', 'scaled', 'harmonic', 'sqrt-scaled'];
export const MODELS = ['power', 'exp', 'list'];
const MODEL_KIND = { power: 'power', exp: 'exponential', list: 'measured' };

/** Text fields, in the order the page shows their errors. */
export const FIELDS = ['a', 'b', 'c', 'q', 'eps', 'lambda', 'list', 'n'];

export const EXAMPLE_LIST = '1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24';

/** The correction's case: what an empty fragment shows. */
export function defaultState() {
  return {
    text: { a: '1', b: '1', c: '1', q: '1', eps: '1', n: '1e6', lambda: '0.1', list: '' },
    families: ['unscaled', 'scaled'],
    variance: 'power',
    lns: false,
    logy: true,
    linx: false, // linear N axis (offered for depth ranges up to 1000)
    zoom: null, // [from, to]: the depth range shown, picked by a drag on the main plot
    // Per-family power laws that replace the shared variance model for that family (the paper's own
    // comparison puts Pre-LN's σ_l² ∼ l beside LNS's σ_l² ∼ l^(2−ε)): family → { c, q, eps, lns } as text.
    own: {},
  };
}

export function cloneState(s) {
  const own = {};
  for (const [f, m] of Object.entries(s.own || {})) own[f] = { ...m };
  return { lab: s.lab, text: { ...s.text }, families: [...s.families], variance: s.variance, lns: s.lns, logy: s.logy, linx: s.linx, zoom: s.zoom ? [...s.zoom] : null, own };
}

/**
 * A family's own variance model as typed: the power law σ_l² = c · l^q, or l^(2 − ε) when `lns`;
 * or, when `list` is a string, its own measured list σ_1², …, σ_L² (a lab hand-off gives Pre-LN's
 * list to the unscaled product and LNS's to the scaled one).
 */
export function ownModel({ c = '1', q = '1', eps = '0.5', lns = false, list } = {}) {
  const m = { c: String(c), q: String(q), eps: String(eps), lns: !!lns };
  if (typeof list === 'string') m.list = list;
  return m;
}

/** Whether a family's own model is a measured list. */
export const ownList = (m) => typeof m?.list === 'string';

/** Strict number parsing: empty or partial text is not a number (Number('') would be 0). */
export function strictNum(text) {
  const t = String(text ?? '').trim();
  if (t === '' || !/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(t)) return NaN;
  return Number(t);
}

/** N text → a number, 'inf', or the trimmed text itself when it is no plain number (the core judges it). */
export function depthValue(text) {
  const t = String(text ?? '').trim().replace(/_/g, '');
  if (/^(\+?inf(inity)?|∞)$/i.test(t)) return 'inf';
  const m = /^10\^(\d{1,2})$/.exec(t);
  if (m) return Number(`1e${m[1]}`);
  const x = strictNum(t);
  return Number.isNaN(x) ? t : x;
}

/** Never let "NaN" reach the DOM, whatever a message contains. */
export function cleanMessage(msg) {
  return String(msg).replace(/\bNaN\b/g, 'not a number');
}

// ───────────────────────────── URL fragment ─────────────────────────────

const KNOWN_KEYS = new Set(['a', 'b', 'c', 'q', 'eps', 'n', 'families', 'variance', 'lambda', 'list', 'logy', 'linx', 'zoom', 'why', 'lab']);
/** `scaled.eps=0.5`, `unscaled.q=1`, `scaled.c=2`: a family's own power law; `unscaled.list=…` its own list. */
const OWN_KEY = /^(unscaled|scaled|harmonic|sqrt-scaled)\.(c|q|eps|list)$/;
const MAX_FRAGMENT = 200_000;
/**
 * A measured list longer than this (characters, as the link would write it) is not written into
 * the link: the link says so in words instead (`list=too-long-for-a-link`). Lists of up to 10⁶
 * values are accepted (about 18 MB of text), far beyond what a fragment can carry (it is read up
 * to MAX_FRAGMENT characters), and rewriting megabytes into the URL on every slider move froze the page.
 */
export const LINK_LIST_MAX = 150_000;
/** What a link says in place of a list too long for it. */
export const LIST_NOT_IN_LINK = 'too-long-for-a-link';

/**
 * Parses `#families=...&a=...`. Returns { state, problems } where problems are [{key, message}] for
 * values that are not even of the right shape (unknown family / model / key). Numeric values are taken
 * as text and judged later by `validate`, which also reports them.
 */
export function parseFragment(hash) {
  const state = defaultState();
  const problems = [];
  let body = String(hash || '').replace(/^#/, '');
  if (body.length > MAX_FRAGMENT) {
    problems.push({ key: 'fragment', message: `the link's settings are ${body.length} characters long; at most ${MAX_FRAGMENT} are read` });
    body = body.slice(0, MAX_FRAGMENT);
  }
  if (body === '') return { state, problems };
  let params;
  try {
    params = new URLSearchParams(body);
  } catch {
    problems.push({ key: 'fragment', message: 'the link\'s settings could not be read; showing the defaults' });
    return { state, problems };
  }
  for (const [key, raw] of params) {
    const value = String(raw);
    const own = OWN_KEY.exec(key);
    if (own) {
      const [, fam, field] = own;
      const m = (state.own[fam] ??= ownModel());
      if (field === 'list' && value === LIST_NOT_IN_LINK) {
        problems.push({ key: `${fam}.list`, message: `this link was made from a ${fam} list too long to carry in a link (over ${grouped(LINK_LIST_MAX)} characters): paste the list into its box` });
        m.list = '';
        continue;
      }
      m[field] = value;
      if (field === 'eps') m.lns = true;
      continue;
    }
    if (!KNOWN_KEYS.has(key)) {
      problems.push({ key: 'fragment', message: `unknown setting “${truncate(key)}” ignored (known: a, b, c, q, eps, n, families, variance, lambda, list, logy, linx, zoom, lab, and per-product keys such as scaled.eps or unscaled.list)` });
      continue;
    }
    switch (key) {
      case 'families': {
        const names = value.split(',').map((s) => s.trim()).filter(Boolean);
        const good = [];
        for (const name of names) {
          if (FAMILIES.includes(name)) {
            if (!good.includes(name)) good.push(name);
          } else {
            problems.push({ key: 'families', message: `unknown family “${truncate(name)}”: use unscaled, scaled, harmonic or sqrt-scaled` });
          }
        }
        state.families = FAMILIES.filter((f) => good.includes(f));
        break;
      }
      case 'variance':
        if (MODELS.includes(value)) state.variance = value;
        else problems.push({ key: 'variance', message: `unknown variance model “${truncate(value)}”: use power, exp or list` });
        break;
      case 'logy':
        state.logy = !/^(0|false|no|off)$/i.test(value);
        break;
      case 'linx':
        state.linx = !/^(0|false|no|off)$/i.test(value);
        break;
      case 'zoom': {
        const [lo, hi] = value.split(',').map(strictNum);
        if (lo >= 1 && hi > lo && Number.isFinite(hi)) state.zoom = [lo, hi];
        else problems.push({ key: 'zoom', message: `depth range “${truncate(value)}” ignored: write zoom=from,to with 1 ≤ from < to` });
        break;
      }
      case 'why': // which card's "Why" to open: read by proofs.js, not part of the state
        break;
      case 'lab': // the lab view a hand-off came from (its fragment): the link back reopens it
        state.lab = value;
        break;
      case 'list':
        if (value === LIST_NOT_IN_LINK) {
          problems.push({ key: 'list', message: `this link was made from a measured list too long to carry in a link (over ${grouped(LINK_LIST_MAX)} characters): paste the list into the measured-list box` });
        } else {
          state.text.list = value;
        }
        break;
      case 'eps':
        state.lns = true;
        state.text.eps = value;
        break;
      default:
        state.text[key] = value;
    }
  }
  if (state.lns && !params.has('q')) {
    const q = lnsExponent(state.text.eps.trim());
    state.text.q = Number.isNaN(q) ? state.text.q : paramToken(q);
  }
  return { state, problems };
}

function truncate(s, n = 40) {
  const str = String(s);
  return str.length > n ? `${str.slice(0, n)}…` : str;
}

function enc(v) {
  return encodeURIComponent(v).replace(/%2C/gi, ',');
}

/**
 * The list as the link writes it (compacted, encoded), or LIST_NOT_IN_LINK above LINK_LIST_MAX
 * characters. Remembered for the last text: serialize runs on every update.
 */
function listInLink(text) {
  let part = listsInLink.get(text);
  if (part === undefined) {
    // a text far over the limit is not compacted at all (it cannot shrink below the limit)
    const compact = text.length > 8 * LINK_LIST_MAX ? null : enc(text.replace(/\s*\n\s*/g, ',').replace(/\s+/g, ''));
    part = compact !== null && compact.length <= LINK_LIST_MAX ? compact : LIST_NOT_IN_LINK;
    if (listsInLink.size >= 8) listsInLink.clear();
    listsInLink.set(text, part);
  }
  return part;
}
// the shared list and each product's own (serialize runs on every update)
const listsInLink = new Map();

/** Whether the link can carry this list text (see LINK_LIST_MAX). */
export const listFitsLink = (text) => listInLink(text) !== LIST_NOT_IN_LINK;

/** The fragment for a (good) state, e.g. `#families=unscaled,scaled&a=1&b=1&c=1&q=1&n=1e6`. */
export function serialize(good, state) {
  // The decimals as typed (the core's exact-decimal semantics), or the shortest form of the value.
  const d = (k) => enc(typeof good.raw?.[k] === 'string' ? good.raw[k] : paramToken(good[k]));
  const parts = [`families=${state.families.join(',')}`, `a=${d('a')}`, `b=${d('b')}`];
  if (state.variance !== 'list') parts.push(`c=${d('c')}`);
  if (state.variance === 'power') {
    if (state.lns) parts.push(`eps=${d('eps')}`);
    else parts.push(`q=${d('q')}`);
  }
  if (state.variance === 'exp') parts.push(`lambda=${d('lambda')}`);
  for (const f of FAMILIES) {
    const m = state.own?.[f];
    const g = good.own?.[f];
    if (!m || !g) continue;
    if (ownList(m)) {
      parts.push(`${f}.list=${listInLink(g.listText ?? m.list)}`);
      continue;
    }
    parts.push(`${f}.c=${enc(typeof g.raw?.c === 'string' ? g.raw.c : paramToken(g.c))}`);
    parts.push(m.lns ? `${f}.eps=${enc(typeof g.raw?.eps === 'string' ? g.raw.eps : paramToken(g.eps))}` : `${f}.q=${enc(typeof g.raw?.q === 'string' ? g.raw.q : paramToken(g.q))}`);
  }
  parts.push(`n=${enc(depthToken(good.n))}`);
  if (state.variance !== 'power') parts.push(`variance=${state.variance}`);
  if (state.variance === 'list') parts.push(`list=${listInLink(good.listText)}`);
  if (!state.logy) parts.push('logy=0');
  if (state.linx) parts.push('linx=1');
  if (state.zoom) parts.push(`zoom=${state.zoom.map((x) => enc(depthToken(x))).join(',')}`);
  if (state.lab) parts.push(`lab=${encodeURIComponent(state.lab)}`);
  return `#${parts.join('&')}`;
}

// ───────────────────────────── validation ─────────────────────────────

const BASE = { a: 1, b: 1, c: 1, q: 1, lambda: 0.1 };

function probe(over) {
  const p = { ...BASE, ...over };
  const variance = over.variance ?? { kind: 'power', c: p.c, q: p.q };
  return core.evaluate({ family: 'scaled', a: p.a, b: p.b, variance, n: over.n ?? 1 });
}

/** Initial "last good" values: the defaults. */
export function initialGood() {
  return { a: 1, b: 1, c: 1, q: 1, eps: 1, lambda: 0.1, n: 1e6, list: null, listText: '', own: {}, raw: { a: '1', b: '1', c: '1', q: '1', eps: '1', lambda: '0.1' } };
}

/**
 * q = 2 − ε of the LNS regime for a typed ε (decimal text or number), from the core; NaN when the core
 * refuses it. The core evaluates the regime from ε itself (variance `{kind: 'power', eps}`); this
 * value is only for the "here q = …" hint and for keeping the q box in step. The core's Eq. 65 block
 * maps x to 2 − x exactly on the decimal x (it reports ε = 2 − q for a given q); the map is its own
 * inverse, so asking it with x = ε returns q.
 */
export function lnsExponent(eps) {
  return twoMinus(eps);
}

/** ε = 2 − q for a typed q, from the core (see `lnsExponent`); NaN when the core refuses it. */
export function lnsEpsilon(q) {
  return twoMinus(q);
}

function twoMinus(x) {
  if (x === '' || x === null || x === undefined || (typeof x === 'number' && Number.isNaN(x))) return NaN;
  const key = String(x);
  return memoValue('two-minus', key, () => {
    const r = core.closedForms({ a: 0, b: 0, q: key });
    const e = r.ok ? r.value.eq65?.eps : null;
    return e ? Number(e.value) : NaN;
  });
}

const valueCache = new Map();
function memoValue(kind, key, fn) {
  const k = `${kind}|${key}`;
  if (!valueCache.has(k)) {
    if (valueCache.size > 64) valueCache.clear();
    valueCache.set(k, fn());
  }
  return valueCache.get(k);
}

/**
 * Judges every text field with the core. Returns { good, errors, coreDown } where `good` holds, per
 * field, the new value when valid and the previous good value otherwise, and `errors` maps field → message.
 * Probes are memoised on their inputs, so dragging one slider re-judges only that field.
 */
export function validate(state, prevGood) {
  const good = { ...prevGood };
  const errors = {};
  const baseline = memo('baseline', '', () => probe({}));
  if (!baseline.ok) {
    memoCache.clear(); // the core may come up later: judge again next time
    for (const k of ['a', 'b', 'c', 'q', 'eps', 'lambda']) {
      const x = strictNum(state.text[k]);
      if (!Number.isNaN(x)) good[k] = x;
    }
    const n = depthValue(state.text.n);
    if (typeof n === 'number' || n === 'inf') good.n = n;
    return { good, errors, coreDown: baseline.error };
  }
  const t = state.text;
  const num = (k) => strictNum(t[k]);
  // What the core is given for a typed parameter: the decimal exactly as typed (trimmed), so every
  // enclosure is for that exact decimal (q = 0.4 is 2/5, which decides a resonance) and the core,
  // not JavaScript, judges whether it is a number at all (its message names the field).
  const dec = (text) => String(text ?? '').trim();
  const raw = { ...(prevGood.raw || {}) };

  const check = (field, over, prefix = '') => {
    const r = memo(field, JSON.stringify(over), () => probe(over));
    if (r.ok) return true;
    errors[field] = cleanMessage(prefix + r.error);
    return false;
  };

  if (check('a', { a: dec(t.a) })) [good.a, raw.a] = [num('a'), dec(t.a)];
  if (check('b', { b: dec(t.b) })) [good.b, raw.b] = [num('b'), dec(t.b)];
  const cVariance = state.variance === 'exp' ? { kind: 'exponential', c: dec(t.c), lambda: BASE.lambda } : { kind: 'power', c: dec(t.c), q: 1 };
  if (check('c', { variance: cVariance })) [good.c, raw.c] = [num('c'), dec(t.c)];
  if (state.lns) {
    if (check('eps', { variance: { kind: 'power', c: 1, eps: dec(t.eps) } })) {
      [good.eps, raw.eps] = [num('eps'), dec(t.eps)];
      good.q = lnsExponent(t.eps.trim());
      raw.q = good.q;
    }
  } else if (check('q', { q: dec(t.q) })) {
    [good.q, raw.q] = [num('q'), dec(t.q)];
  }
  // Each family's own power law, judged like the shared one; errors land next to its own fields.
  const ownGood = {};
  for (const f of FAMILIES) {
    const m = state.own?.[f];
    if (!m) continue;
    const prev = prevGood.own?.[f] ?? { c: 1, q: 1, eps: 1, raw: { c: '1', q: '1', eps: '1' } };
    const g = { ...prev, raw: { ...prev.raw } };
    if (ownList(m)) {
      // Its own measured list, parsed by the core; a message at its own field when it cannot be read.
      const r = parsedOwnList(f, m.list);
      if (r.ok) [g.list, g.listText] = [r.value, m.list];
      else {
        errors[`${f}.list`] = cleanMessage(r.error);
        if (!(prev.list instanceof Float64Array)) g.list = null;
      }
      ownGood[f] = g;
      continue;
    }
    if (check(`${f}.c`, { variance: { kind: 'power', c: dec(m.c), q: 1 } })) [g.c, g.raw.c] = [strictNum(m.c), dec(m.c)];
    if (m.lns) {
      if (check(`${f}.eps`, { variance: { kind: 'power', c: 1, eps: dec(m.eps) } })) {
        [g.eps, g.raw.eps] = [strictNum(m.eps), dec(m.eps)];
        g.q = lnsExponent(m.eps.trim());
      }
    } else if (check(`${f}.q`, { q: dec(m.q) })) {
      [g.q, g.raw.q] = [strictNum(m.q), dec(m.q)];
    }
    ownGood[f] = g;
  }
  good.own = ownGood;
  if (check('lambda', { variance: { kind: 'exponential', c: 1, lambda: dec(t.lambda) } })) [good.lambda, raw.lambda] = [num('lambda'), dec(t.lambda)];
  good.raw = raw;

  if (state.variance === 'list') {
    const r = parsedList(t.list);
    if (r.ok) {
      // the core's Float64Array itself: it goes back into the core in one copy (an Array of 10⁶
      // numbers is read one element at a time)
      good.list = r.value;
      good.listText = t.list;
    } else {
      errors.list = cleanMessage(r.error);
    }
  }

  // N is judged with the variance model (a measured list bounds it, and has no N = inf): with the
  // shortest list any product shown uses.
  const n = depthValue(t.n);
  const lists = listsInUse(state, good);
  if (lists.every(Boolean)) {
    const nArg = typeof n === 'number' || n === 'inf' ? n : t.n;
    const shortest = lists.reduce((a, b) => (b.length < a.length ? b : a), lists[0] ?? null);
    const variance = shortest ? { kind: 'measured', values: shortest } : { kind: 'power', c: 1, q: 1 };
    const r = memo('n', JSON.stringify([nArg, shortest ? shortest.length : 0]), () =>
      core.evaluate({ family: shortest ? 'scaled' : 'harmonic', a: 1, b: 0, variance, n: nArg }),
    );
    if (r.ok) {
      good.n = typeof nArg === 'number' || nArg === 'inf' ? nArg : r.value.n ?? 'inf';
    } else {
      errors.n = cleanMessage(r.error);
    }
  }
  return { good, errors, coreDown: null };
}

/**
 * The parsed lists in use (the shared list, each product's own), null for one not (yet) readable;
 * empty when none is.
 */
export function listsInUse(state, good) {
  // Every family's: the cards evaluate the unscaled, scaled and harmonic products whatever is shown.
  const out = [];
  if (state.variance === 'list') out.push(good.list ?? null);
  for (const f of FAMILIES) if (ownList(state.own?.[f])) out.push(good.own?.[f]?.list ?? null);
  return out;
}

/** The core's parse of a list text, remembered for the last text (validation and main.js share it). */
export function parsedList(text) {
  return memo('list', text, () => core.parseList(text));
}

/** The same for a product's own list (remembered apart from the shared one's). */
export function parsedOwnList(family, text) {
  return memo(`${family}.list`, text, () => core.parseList(text));
}

const memoCache = new Map();
function memo(field, key, fn) {
  const hit = memoCache.get(field);
  if (hit && hit.key === key) return hit.result;
  const result = fn();
  memoCache.set(field, { key, result });
  return result;
}

/**
 * The variance model a family is evaluated with, as numbers for the page's own wording
 * ({ kind: 'power', c, q, eps | null } or { kind: 'exponential', c, lambda } or { kind: 'measured' }).
 */
export function modelFor(state, good, family) {
  const own = family && state.own?.[family] && good.own?.[family];
  if (own && ownList(state.own[family])) return { kind: 'measured' };
  if (own) return { kind: 'power', c: own.c, q: own.q, eps: state.own[family].lns ? own.eps : null };
  if (state.variance === 'exp') return { kind: 'exponential', c: good.c, lambda: good.lambda };
  if (state.variance === 'list') return { kind: 'measured' };
  return { kind: 'power', c: good.c, q: good.q, eps: state.lns ? good.eps : null };
}

/**
 * The core's variance object for one family: its own power law if it has one, else the shared
 * model; parameters as the decimals typed, and ε itself in the LNS regime.
 */
export function varianceFor(state, good, family) {
  const raw = good.raw || {};
  const own = family && state.own?.[family] && good.own?.[family];
  if (own && ownList(state.own[family])) return { kind: MODEL_KIND.list, values: own.list || [] };
  if (own) {
    const r = own.raw || {};
    return state.own[family].lns ? { kind: MODEL_KIND.power, c: r.c ?? own.c, eps: r.eps ?? own.eps } : { kind: MODEL_KIND.power, c: r.c ?? own.c, q: r.q ?? own.q };
  }
  switch (state.variance) {
    case 'exp':
      return { kind: MODEL_KIND.exp, c: raw.c ?? good.c, lambda: raw.lambda ?? good.lambda };
    case 'list':
      return { kind: MODEL_KIND.list, values: good.list || [] };
    default:
      return state.lns ? { kind: MODEL_KIND.power, c: raw.c ?? good.c, eps: raw.eps ?? good.eps } : { kind: MODEL_KIND.power, c: raw.c ?? good.c, q: raw.q ?? good.q };
  }
}

/** Core parameters (without n) for one family, as the decimals typed. */
export function paramsFor(family, state, good) {
  const raw = good.raw || {};
  return { family, a: raw.a ?? good.a, b: raw.b ?? good.b, variance: varianceFor(state, good, family) };
}
