// The presets of the issue: each is a full page state (text fields as a person would type them).

import { defaultState, ownModel } from './state.js';

export const PRESETS = {
  /** The correction's case: A = B = 1, c = 1, q = 1, N = 10^6, unscaled + scaled. */
  correction: () => defaultState(),
  /** Pre-LN, σ_l² ∼ l (Eq. 11): the unscaled product against the paper's Θ(L). */
  preln: () => ({ ...defaultState(), families: ['unscaled', 'harmonic'] }),
  /** LayerNorm Scaling, σ_l² ∼ l^(2−ε) with ε = 0.5 (Eqs. 16, 65). */
  lns: () => {
    const s = defaultState();
    s.families = ['scaled', 'sqrt-scaled'];
    s.lns = true;
    s.text.eps = '0.5';
    s.text.q = '1.5';
    return s;
  },
  /**
   * The paper's own comparison in one view: Pre-LN's unscaled product P_N with σ_l² = l (the shared
   * model) beside LNS's scaled product Q_N with its own σ_l² = l^(2−ε), ε = 1/2.
   */
  comparison: () => {
    const s = defaultState();
    s.families = ['unscaled', 'scaled'];
    s.own = { scaled: ownModel({ c: '1', eps: '0.5', lns: true }) };
    return s;
  },
  /** Exponential variance σ_l² = c e^(λ l) (Eq. 10's regime). */
  exp: () => {
    const s = defaultState();
    s.variance = 'exp';
    s.text.lambda = '0.1';
    return s;
  },
  /** App. A.2's substitution: the harmonic product 1 + A/l + B/l², with A = 2 to show Θ(N^A) ≠ Θ(L). */
  harmonic: () => {
    const s = defaultState();
    s.families = ['harmonic', 'unscaled'];
    s.text.a = '2';
    return s;
  },
};

/**
 * Depths of some real decoder-only models, marked on the depth axis. `layers` is L, the number of
 * Transformer blocks each paper reports; `n` is the product's depth N = L (one factor per layer a
 * Jacobian crosses, docs/MATH.md §1), written out here rather than computed.
 */
export const MODEL_DEPTHS = [
  { name: 'GPT-2 small', layers: 12, n: 12, source: 'Radford et al. 2019' },
  { name: 'LLaMA-2 7B', layers: 32, n: 32, source: 'Touvron et al. 2023' },
  { name: 'GPT-2 XL', layers: 48, n: 48, source: 'Radford et al. 2019' },
  { name: 'LLaMA-2 70B', layers: 80, n: 80, source: 'Touvron et al. 2023' },
  { name: 'GPT-3 175B', layers: 96, n: 96, source: 'Brown et al. 2020' },
  { name: 'Llama 3.1 405B', layers: 126, n: 126, source: 'Llama Team 2024' },
];
