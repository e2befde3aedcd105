// The hand-off to the explorer: the links that open index.html with what this run measured, and
// the words beside them saying exactly what each carries. The depth convention is the project's
// (docs/MATH.md §1): N counts the layers a Jacobian crosses, one factor per layer, so a network of
// L layers measured from x_1 (the embedding output) to x_(L+1) has N = L factors, built from the
// variances of the layer inputs x_1 … x_L: the lab's certified bounds are exactly these products.
//
// With Pre-LN and LNS both finished, each goes to its own product (Pre-LN's list to the unscaled
// product of Eq. 9, LNS's to the scaled product of Eq. 15); otherwise the first finished
// placement's list is the one both products use. Numbers travel as the lab's doubles (their
// shortest round-trip decimals), so the explorer's products are the lab's certified bounds; the
// fitted power laws travel to six significant digits (their own 95 % intervals are far wider).

import { NORMS, NORM_NAMES } from './state.js';
import { fifteen, six } from './numbers.js';
import { plain } from '../common/format.js';

/** Whether the placement's report can be handed over: a report with its variances, A and B. */
const usable = (r) => r && Array.isArray(r.layers) && r.layers.length > 0 && Number.isFinite(r.bound?.a) && Number.isFinite(r.bound?.b);

const listOf = (r) => r.layers.map((l) => String(l.variance)).join(',');

/** "Pre-LN", "Pre-LN and LNS", "Pre-LN, LNS and Post-LN". */
export function namesText(norms) {
  const names = norms.map((n) => NORM_NAMES[n]);
  return names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

/**
 * The hand-off of a run. `reports`: placement → its finished report (placements without one are
 * left out); `measured`: every placement of the run, finished or not (for what the words say is not
 * carried); `labFragment`: this lab view's fragment (without '#'), for the explorer's link back;
 * `judge(family, { a, b, c, q, n })`: null when the explorer's core takes that power law for that
 * product, else its reason.
 *
 * Returns { list, fit, note }: `list` and `fit` are { href, note } or null (then `note` says why
 * there is nothing to hand over).
 */
export function handoff({ reports, measured = [], labFragment = '', judge = () => null }) {
  const finished = NORMS.filter((n) => usable(reports[n]));
  if (!finished.length) {
    const some = NORMS.filter((n) => measured.includes(n));
    return {
      list: null,
      fit: null,
      note: some.length
        ? `No placement finished: A and B (Eqs. 47–48) and the certified bounds come with a placement’s report, so there is nothing to hand over; the variances measured so far are in the tables below.`
        : 'After a run: the measured σ_l² of each placement, with A and B.',
    };
  }
  // Placements of one run share the network's shape and σ, so one A and B; a report that differs
  // (it cannot within one run) is not mixed in.
  const first = reports[finished[0]];
  const same = finished.filter((n) => reports[n].bound.a === first.bound.a && reports[n].bound.b === first.bound.b && reports[n].layers.length === first.layers.length);
  const a = String(first.bound.a);
  const b = String(first.bound.b);
  const big = first.layers.length;
  const back = `&lab=${encodeURIComponent(labFragment)}`;
  const perFamily = same.includes('pre') && same.includes('lns');
  const carried = perFamily ? ['pre', 'lns'] : [same[0]];
  const left = NORMS.filter((n) => measured.includes(n) && !carried.includes(n));
  const ab = `A = ${fifteen(first.bound.a)} and B = ${fifteen(first.bound.b)} (Eqs. 47–48 at σ = ${first.config.init_std}; shown to 15 significant digits, carried as the lab’s doubles)`;
  const depth = `N = ${big}: one factor per layer, from the variances of the layer inputs x_1 … x_{${big}}`;
  const notCarried = left.length
    ? ` Not carried: ${namesText(left)} (${left.some((n) => !reports[n]) ? 'a placement without a finished report has no A, B or bound to hand over; ' : ''}${perFamily ? 'the explorer’s products are the paper’s Eq. 9 for Pre-LN and Eq. 15 for LNS' : 'the link carries one list'}).`
    : '';

  let list;
  if (perFamily) {
    list = {
      href: `index.html#families=unscaled,scaled&a=${a}&b=${b}&unscaled.list=${listOf(reports.pre)}&scaled.list=${listOf(reports.lns)}&n=${big}${back}`,
      note: `Carries Pre-LN’s ${big} measured σ_l² to the unscaled product (Eq. 9) and LNS’s ${big} to the scaled product (Eq. 15), with ${ab}, and ${depth}. There, log P_{${big}} and log Q_{${big}} are this run’s certified Eq. 9 bound for Pre-LN and Eq. 15 bound for LNS.${notCarried}`,
    };
  } else {
    const n = carried[0];
    list = {
      href: `index.html#families=unscaled,scaled&a=${a}&b=${b}&variance=list&list=${listOf(reports[n])}&n=${big}${back}`,
      note: `Carries ${NORM_NAMES[n]}’s ${big} measured σ_l² as the list both products use, with ${ab}, and ${depth}.${notCarried}`,
    };
  }

  // The fitted power laws σ_l² ≈ c·l^q, each for the product its placement goes to.
  const fitOf = (n) => {
    const f = reports[n].fit_power;
    return f && Number.isFinite(f.c) && Number.isFinite(f.rate) ? { c: six(f.c), q: six(f.rate), ci: f.rate_ci } : null;
  };
  const laws = (perFamily ? [['pre', 'unscaled'], ['lns', 'scaled']] : [[carried[0], null]]).map(([n, family]) => {
    const f = fitOf(n);
    if (!f) return { n, family, refused: 'no power law was fitted' };
    const families = family ? [family] : ['unscaled', 'scaled'];
    const refused = families.map((fam) => judge(fam, { a, b, c: f.c, q: f.q, n: big })).find((r) => r) ?? null;
    return { n, family, ...f, refused };
  });
  const words = (l) => `${NORM_NAMES[l.n]}’s σ_l² ≈ ${l.c}·l^{${l.q}}${l.ci ? ` (q’s 95 % interval [${plain(l.ci[0], 3)}, ${plain(l.ci[1], 3)}])` : ''}`;
  const taken = laws.filter((l) => !l.refused);
  const refusedText = laws.filter((l) => l.refused).map((l) => `${NORM_NAMES[l.n]}’s fitted power law stays here: ${l.refused}`).join('; ');
  let fit = null;
  if (taken.length) {
    const keys = perFamily
      ? taken.map((l) => `&${l.family}.c=${l.c}&${l.family}.q=${l.q}`).join('')
      : `&variance=power&c=${taken[0].c}&q=${taken[0].q}`;
    const target = (l) => (l.family === 'scaled' ? 'the scaled product (Eq. 15)' : l.family === 'unscaled' ? 'the unscaled product (Eq. 9)' : 'both products');
    // A product whose placement's law the explorer refuses is left out (it would fall back to the
    // explorer's own σ_l² model, which describes nothing measured here).
    const families = perFamily ? taken.map((l) => l.family).join(',') : 'unscaled,scaled';
    fit = {
      href: `index.html#families=${families}&a=${a}&b=${b}${keys}&n=${big}${back}`,
      note: `Carries the least-squares fit to the measured variances, to six significant digits: ${taken.map((l) => `${words(l)} for ${target(l)}`).join('; ')}; with the same A, B and N = ${big}.${refusedText ? ` ${refusedText}.` : ''}`,
    };
  }
  return { list, fit, note: fit ? null : refusedText ? `${refusedText}.` : null };
}
