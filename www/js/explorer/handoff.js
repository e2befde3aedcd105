// Where a measured list came from, when the lab handed it over: the lab opens the explorer with
// `lab=<its own fragment>` beside the lists (`variance=list&list=…` for one placement, or
// `unscaled.list=<Pre-LN σ²>&scaled.list=<LNS σ²>` for both), and the explorer names the run and
// links back to it. Words only; the lists themselves are state.js's.

import { FAMILIES, ownList } from './state.js';

/** The lab's names of its norm placements (its `norms=` tokens). */
const PLACEMENTS = { pre: 'Pre-LN', lns: 'LNS', post: 'Post-LN', deepnorm: 'DeepNorm', sandwich: 'Sandwich', mix: 'Mix-LN' };
/** Which placement's list the lab's hand-off gives each product. */
const HANDOFF = { unscaled: 'pre', scaled: 'lns' };

/**
 * { lead, href } for the sentence "σ_l² measured by the lab: Pre-LN, d = 128, L = 32, seed 1" and
 * the link back, or null when the view has no lab hand-off (no `lab=`) or uses no list.
 */
export function labSource(state, good) {
  if (!state.lab) return null;
  let lab;
  try {
    lab = new URLSearchParams(state.lab);
  } catch {
    return null;
  }
  const norms = (lab.get('norms') || '').split(',').filter((n) => n in PLACEMENTS);
  const run = (length) => [lab.get('d') && `d = ${lab.get('d')}`, `L = ${length}`, lab.get('seed') && `seed ${lab.get('seed')}`].filter(Boolean).join(', ');
  const parts = [];
  for (const f of FAMILIES) {
    const values = good.own?.[f]?.list;
    if (!ownList(state.own?.[f]) || !values) continue;
    const who = PLACEMENTS[HANDOFF[f]] && norms.includes(HANDOFF[f]) ? PLACEMENTS[HANDOFF[f]] : 'a placement';
    parts.push(`${f} product: ${who}, ${run(values.length)}`);
  }
  if (state.variance === 'list' && good.list) parts.unshift(`${norms[0] ? PLACEMENTS[norms[0]] : 'its first placement'}, ${run(good.list.length)}`);
  if (!parts.length) return null;
  return { lead: `σ_l² measured by the lab: ${parts.join('; ')}`, href: `lab.html#${state.lab}` };
}
