// Page state, the URL fragment (parse / serialize) and validation. Validation messages come from the
// core: each field is probed by a cheap core call in which only that field differs from a known-good
// baseline, so the core's message lands next to the control that caused it.

import * as core from './core.js';
import { depthToken, paramToken } from './format.js';

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
  };
}

export function cloneState(s) {
  return { text: { ...s.text }, families: [...s.families], variance: s.variance, lns: s.lns, logy: s.logy };
}

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

const KNOWN_KEYS = new Set(['a', 'b', 'c', 'q', 'eps', 'n', 'families', 'variance', 'lambda', 'list', 'logy', 'why']);
const MAX_FRAGMENT = 200_000;

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
    if (!KNOWN_KEYS.has(key)) {
      problems.push({ key: 'fragment', message: `unknown setting “${truncate(key)}” ignored (known: a, b, c, q, eps, n, families, variance, lambda, list, logy)` });
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
      case 'why': // which card's "Why" to open: read by proofs.js, not part of the state
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
    const eps = strictNum(state.text.eps);
    state.text.q = Number.isNaN(eps) ? state.text.q : paramToken(2 - eps);
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

/** The fragment for a (good) state, e.g. `#families=unscaled,scaled&a=1&b=1&c=1&q=1&n=1e6`. */
export function serialize(good, state) {
  const parts = [`families=${state.families.join(',')}`, `a=${enc(paramToken(good.a))}`, `b=${enc(paramToken(good.b))}`];
  if (state.variance !== 'list') parts.push(`c=${enc(paramToken(good.c))}`);
  if (state.variance === 'power') {
    if (state.lns) parts.push(`eps=${enc(paramToken(good.eps))}`);
    else parts.push(`q=${enc(paramToken(good.q))}`);
  }
  if (state.variance === 'exp') parts.push(`lambda=${enc(paramToken(good.lambda))}`);
  parts.push(`n=${enc(depthToken(good.n))}`);
  if (state.variance !== 'power') parts.push(`variance=${state.variance}`);
  if (state.variance === 'list') parts.push(`list=${enc(good.listText.replace(/\s*\n\s*/g, ',').replace(/\s+/g, ''))}`);
  if (!state.logy) parts.push('logy=0');
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
  return { a: 1, b: 1, c: 1, q: 1, eps: 1, lambda: 0.1, n: 1e6, list: null, listText: '' };
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

  const check = (field, over, prefix = '') => {
    const r = memo(field, JSON.stringify(over), () => probe(over));
    if (r.ok) return true;
    errors[field] = cleanMessage(prefix + r.error);
    return false;
  };

  if (check('a', { a: num('a') })) good.a = num('a');
  if (check('b', { b: num('b') })) good.b = num('b');
  const cVariance = state.variance === 'exp' ? { kind: 'exponential', c: num('c'), lambda: BASE.lambda } : { kind: 'power', c: num('c'), q: 1 };
  if (check('c', { variance: cVariance })) good.c = num('c');
  if (state.lns) {
    const eps = num('eps');
    const q = Number.isNaN(eps) ? NaN : 2 - eps;
    if (check('eps', { q }, 'with q = 2 − ε: ')) {
      good.eps = eps;
      good.q = q;
    }
  } else if (check('q', { q: num('q') })) {
    good.q = num('q');
  }
  if (check('lambda', { variance: { kind: 'exponential', c: 1, lambda: num('lambda') } })) good.lambda = num('lambda');

  if (state.variance === 'list') {
    const r = memo('list', t.list, () => core.parseList(t.list));
    if (r.ok) {
      good.list = Array.from(r.value);
      good.listText = t.list;
    } else {
      errors.list = cleanMessage(r.error);
    }
  }

  // N is judged with the variance model (a measured list bounds it, and has no N = inf).
  const n = depthValue(t.n);
  if (!(state.variance === 'list' && !good.list)) {
    const nArg = typeof n === 'number' || n === 'inf' ? n : t.n;
    const variance = state.variance === 'list' ? varianceFor(state, good) : { kind: 'power', c: 1, q: 1 };
    const r = memo('n', JSON.stringify([nArg, state.variance === 'list' ? good.list.length : 0]), () =>
      core.evaluate({ family: state.variance === 'list' ? 'scaled' : 'harmonic', a: 1, b: 0, variance, n: nArg }),
    );
    if (r.ok) {
      good.n = typeof nArg === 'number' || nArg === 'inf' ? nArg : r.value.n ?? 'inf';
    } else {
      errors.n = cleanMessage(r.error);
    }
  }
  return { good, errors, coreDown: null };
}

const memoCache = new Map();
function memo(field, key, fn) {
  const hit = memoCache.get(field);
  if (hit && hit.key === key) return hit.result;
  const result = fn();
  memoCache.set(field, { key, result });
  return result;
}

/** The core's variance object for the current model and good values. */
export function varianceFor(state, good) {
  switch (state.variance) {
    case 'exp':
      return { kind: MODEL_KIND.exp, c: good.c, lambda: good.lambda };
    case 'list':
      return { kind: MODEL_KIND.list, values: good.list || [] };
    default:
      return { kind: MODEL_KIND.power, c: good.c, q: good.q };
  }
}

/** Core parameters (without n) for one family. */
export function paramsFor(family, state, good) {
  return { family, a: good.a, b: good.b, variance: varianceFor(state, good) };
}
