// The lab page's state ⇄ URL fragment, and the presets. The contract (issue 13, TESTIDS.md):
// `norms` (comma list of pre, lns, post, deepnorm, sandwich, mix), `d`, `heads`, `dff`, `tokens`,
// `layers`, `std`, `seed`, `input` (tokens | gaussian) and `run=1` (start the run on load). Values
// are kept as the text typed; the lab (crates/depthlab, through the worker) judges their ranges and
// its messages are shown as they are.

export const NORMS = ['pre', 'lns', 'post', 'deepnorm', 'sandwich', 'mix'];
export const NORM_NAMES = { pre: 'Pre-LN', lns: 'LNS', post: 'Post-LN', deepnorm: 'DeepNorm', sandwich: 'Sandwich', mix: 'Mix-LN' };
export const NORM_COLOURS = { pre: '--c-unscaled', lns: '--c-scaled', post: '--c-harmonic', deepnorm: '--c-sqrt-scaled', sandwich: '--c-orange', mix: '--c-neutral' };
export const FIELDS = ['d', 'heads', 'dff', 'tokens', 'layers', 'std', 'seed'];
const INTEGER_FIELDS = new Set(['d', 'heads', 'dff', 'tokens', 'layers', 'seed']);
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

/**
 * The worker's specs, one per placement, or { errors } naming each field that is not a number.
 * With a checkpoint, d and d_ff are the file's (not sent), heads too when it comes with its
 * config.json, and an empty L means all its layers. Ranges are the lab's to judge (its message
 * names the parameter and its range).
 */
export function specsOf(state, { checkpoint = false, config = false } = {}) {
  const errors = [];
  const spec = { input: state.input };
  for (const k of FIELDS) {
    const t = String(state.text[k] ?? '').trim();
    // A checkpoint brings its own d, heads and d_ff; an empty L takes all of its layers.
    if (checkpoint && (['d', 'dff'].includes(k) || (k === 'heads' && config) || (k === 'layers' && t === ''))) continue;
    const ok = INTEGER_FIELDS.has(k) ? /^\d+$/.test(t) : /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(t);
    if (!ok) {
      errors.push(`${k}: “${t}” is not ${INTEGER_FIELDS.has(k) ? 'a whole number' : 'a number'}`);
      continue;
    }
    spec[k] = Number(t);
  }
  if (!state.norms.length) errors.push('norms: choose at least one placement');
  if (errors.length) return { errors };
  return { specs: state.norms.map((norm) => ({ ...spec, norm })) };
}
