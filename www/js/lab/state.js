// The lab page's state ⇄ URL fragment, the presets, and the form's own checks. The contract
// (TESTIDS.md): `norms` (comma list of pre, lns, post, deepnorm, sandwich, mix), `d`, `heads`,
// `dff`, `tokens`, `layers`, `std`, `seed`, `input` (tokens | gaussian) and `run=1` (start the run
// on load). Values are kept as the text typed. The form checks what a form can (whole numbers,
// the lab's ranges, heads dividing d) as the reader types; the lab (crates/depthlab, through the
// worker) checks everything again and its messages are shown as they are.

export const NORMS = ['pre', 'lns', 'post', 'deepnorm', 'sandwich', 'mix'];
export const NORM_NAMES = { pre: 'Pre-LN', lns: 'LNS', post: 'Post-LN', deepnorm: 'DeepNorm', sandwich: 'Sandwich', mix: 'Mix-LN' };
export const NORM_COLOURS = { pre: '--c-unscaled', lns: '--c-scaled', post: '--c-harmonic', deepnorm: '--c-sqrt-scaled', sandwich: '--c-orange', mix: '--c-neutral' };
export const FIELDS = ['d', 'heads', 'dff', 'tokens', 'layers', 'std', 'seed'];
const INTEGER_FIELDS = new Set(['d', 'heads', 'dff', 'tokens', 'layers', 'seed']);

/**
 * Each field's range, as the lab states it (crates/depthlab/src/model.rs: `Config::integer_params`,
 * MAX_*, `validate`; the seed's from crates/depthlab-wasm's `integer`): `name` is the lab's name in
 * its messages. tests/e2e/lab-form.test.mjs asks the lab's own wasm for each range and compares.
 * heads ≤ d and the products T·d and T·d_ff are checked in `fieldProblems`.
 */
export const RANGES = {
  d: { name: 'd', lo: 2, hi: 8192 },
  heads: { name: 'heads', lo: 1, hi: 8192 },
  dff: { name: 'd_ff', lo: 1, hi: 32768 },
  tokens: { name: 'tokens', lo: 2, hi: 4096 },
  layers: { name: 'layers', lo: 1, hi: 1024 },
  std: { name: 'init_std', lo: 0, hi: 10 },
  seed: { name: 'seed', lo: 0, hi: 9007199254740992 }, // 2^53
};
/** The lab's limits on the stream's size (model.rs MAX_STREAM): T·d and T·d_ff. */
export const MAX_STREAM = 1048576;
export const MAX_STREAM_FF = 4 * MAX_STREAM;
/** What the form calls each field in its messages (the label on the page). */
export const FIELD_LABELS = { d: 'd', heads: 'heads', dff: 'd_ff', tokens: 'T', layers: 'L', std: 'σ', seed: 'seed' };
export const INPUTS = ['tokens', 'gaussian'];

/** The presets. small130m is also the default (the CLI's default case). */
export const PRESETS = {
  // The paper's 130M LLaMA (d = 768, 12 heads, d_ff = 2048) keeps d_head = 64 and d_ff/d ≈ 2.7;
  // scaled down to seconds: d = 128, 4 heads (d_head 32), d_ff = 344 (2.7 d), T = 32, L = 32.
  small130m: { d: '128', heads: '4', dff: '344', tokens: '32', layers: '32' },
  deep: { d: '64', heads: '2', dff: '172', tokens: '16', layers: '64' },
  wide: { d: '256', heads: '8', dff: '688', tokens: '16', layers: '6' },
};

export function defaultState() {
  return {
    norms: ['pre', 'lns'],
    text: { ...PRESETS.small130m, std: '0.02', seed: '1' },
    input: 'tokens',
  };
}

/** Fragment → { state, run, problems } (unknown keys and values are reported, not fatal). */
export function parseFragment(hash) {
  const state = defaultState();
  const problems = [];
  let run = false;
  const body = String(hash || '').replace(/^#/, '');
  if (!body) return { state, run, problems };
  for (const part of body.split('&')) {
    if (!part) continue;
    const eq = part.indexOf('=');
    const key = decodeURIComponent(eq < 0 ? part : part.slice(0, eq));
    const value = eq < 0 ? '' : decodeURIComponent(part.slice(eq + 1).replace(/\+/g, ' '));
    if (key === 'norms') {
      const list = value.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
      const bad = list.filter((n) => !NORMS.includes(n));
      if (bad.length) problems.push(`norms: “${bad.join(', ')}” not known (use ${NORMS.join(', ')})`);
      const good = NORMS.filter((n) => list.includes(n));
      if (good.length) state.norms = good;
    } else if (FIELDS.includes(key)) {
      state.text[key] = value;
    } else if (key === 'input') {
      if (INPUTS.includes(value)) state.input = value;
      else problems.push(`input: “${value}” not known (use tokens or gaussian)`);
    } else if (key === 'run') {
      run = value === '1' || value === '';
    } else {
      problems.push(`unknown setting “${key}” ignored (known: norms, ${FIELDS.join(', ')}, input, run)`);
    }
  }
  return { state, run, problems };
}

/**
 * State → fragment (without run=1: a shared link reproduces the view, the reader presses Run or adds
 * it). An empty field (L while a checkpoint is chosen means all its layers) is left out: the link
 * then takes the default, where `layers=` would be an error when opened.
 */
export function toFragment(state) {
  const parts = [`norms=${state.norms.join(',')}`];
  for (const k of FIELDS) if (String(state.text[k] ?? '').trim() !== '') parts.push(`${k}=${encodeURIComponent(state.text[k])}`);
  if (state.input !== 'tokens') parts.push(`input=${state.input}`);
  return `#${parts.join('&')}`;
}

/** A whole number as typed (digits only, no sign, no exponent), or null. */
function wholeNumber(t) {
  return /^\d+$/.test(t) ? Number(t) : null;
}

/** Whether the whole number typed as `t` lies in [lo, hi], compared exactly (a seed above 2^53 has no double of its own). */
function wholeInRange(t, lo, hi) {
  const n = BigInt(t);
  return n >= BigInt(lo) && n <= BigInt(hi);
}

/** A decimal as typed (optional sign, digits with an optional point, optional exponent), or null. */
function decimalNumber(t) {
  return /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(t) ? Number(t) : null;
}

/**
 * The form's problems, as the reader types: { field → message } for the fields (d, heads, dff,
 * tokens, layers, std, seed; also `norms`), empty when the form can be run. With a checkpoint, d
 * and d_ff are the file's (not checked here), heads too when it comes with its config.json, and an
 * empty L means all of its layers. A field the form has no word on may still be refused by the lab
 * when the run starts (its memory estimate, a prefix longer than the file): that message is shown
 * then.
 */
export function fieldProblems(state, { checkpoint = false, config = false } = {}) {
  const problems = {};
  const value = {};
  for (const k of FIELDS) {
    const t = String(state.text[k] ?? '').trim();
    if (checkpoint && (['d', 'dff'].includes(k) || (k === 'heads' && config))) continue;
    if (checkpoint && k === 'layers' && t === '') continue;
    const r = RANGES[k];
    const integer = INTEGER_FIELDS.has(k);
    const range = `${integer ? 'a whole number' : 'a number'} in [${r.lo}, ${k === 'seed' ? '2^53' : r.hi}]`;
    if (t === '') {
      problems[k] = `${r.name}: empty; expected ${range}`;
      continue;
    }
    const x = integer ? wholeNumber(t) : decimalNumber(t);
    if (x === null || !Number.isFinite(x)) {
      problems[k] = `${r.name}: “${t.length > 40 ? `${t.slice(0, 40)}…` : t}” is not ${integer ? 'a whole number' : 'a number'}; expected ${range}`;
      continue;
    }
    if (integer ? !wholeInRange(t, r.lo, r.hi) : !(x >= r.lo && x <= r.hi)) {
      problems[k] = `${r.name} = ${t} is out of range: expected ${range}`;
      continue;
    }
    value[k] = x;
  }
  // The lab's consistency rules (Config::validate), in its words, at the field they are about.
  if (value.heads !== undefined && value.d !== undefined && !problems.heads) {
    if (value.heads > value.d) problems.heads = `heads = ${value.heads} is out of range: expected a whole number in [1, ${value.d}] (at most d = ${value.d})`;
    else if (value.d % value.heads !== 0) problems.heads = `heads = ${value.heads} must divide d = ${value.d}`;
    else if ((value.d / value.heads) % 2 !== 0) problems.heads = `d / heads = ${value.d / value.heads} must be even (rotary embeddings rotate pairs)`;
  }
  if (value.tokens !== undefined && !problems.tokens) {
    if (value.d !== undefined && value.tokens * value.d > MAX_STREAM) problems.tokens = `tokens x d = ${value.tokens * value.d} is out of range: expected at most ${MAX_STREAM}`;
    else if (value.dff !== undefined && value.tokens * value.dff > MAX_STREAM_FF) problems.tokens = `tokens x d_ff = ${value.tokens * value.dff} is out of range: expected at most ${MAX_STREAM_FF}`;
  }
  if (!state.norms.length) problems.norms = 'norms: choose at least one placement';
  return problems;
}

/**
 * The worker's specs, one per placement, or { errors } (the form's problems, in the fields'
 * order). With a checkpoint, d and d_ff are the file's (not sent), heads too when it comes with
 * its config.json, and an empty L means all its layers.
 */
export function specsOf(state, { checkpoint = false, config = false } = {}) {
  const problems = fieldProblems(state, { checkpoint, config });
  const errors = [...FIELDS, 'norms'].filter((k) => problems[k]).map((k) => problems[k]);
  if (errors.length) return { errors };
  const spec = { input: state.input };
  for (const k of FIELDS) {
    const t = String(state.text[k] ?? '').trim();
    if (checkpoint && (['d', 'dff'].includes(k) || (k === 'heads' && config) || (k === 'layers' && t === ''))) continue;
    spec[k] = Number(t);
  }
  return { specs: state.norms.map((norm) => ({ ...spec, norm })) };
}
