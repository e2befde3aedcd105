// The "Why" of every claim card: a <details data-testid="why-<id>"> appended to each
// <article data-testid="card-<id>">, holding the card's short derivation (docs/MATH.md in brief) as
// MathML built at build time (proofs-math.js, from scripts/proofs-source.mjs), with the current
// view's numbers filled into its <mn data-slot> elements. Every number comes from the core
// (core.js: evaluate, closedForms, rotation); this file only picks, formats and places them.
//
// `#…&why=eq65` opens that card's Why and scrolls to it; printing opens them all. Cards that
// cards.js adds later get a Why too (their own derivation if proofs-source.mjs has one, otherwise a
// pointer to docs/MATH.md), and a card that is rebuilt gets its Why back on the next update.

import * as core from '../common/core.js';
import { PACKED } from './proofs-math.js';
import { paramsFor } from './state.js';
import { certifiedText, depthLabel, directed, paramToken, plain, termsText, trimZeros } from '../common/format.js';

const MATHML = 'http://www.w3.org/1998/Math/MathML';

/** {PROOFS, FALLBACK}: the generated MathML trees, inflated from their gzip (data only, JSON). */
async function unpack(base64) {
  const text = atob(base64);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
  return JSON.parse(await new Response(stream).text());
}

/** A tree [tag, {attributes}?, ...children] (strings are text) as MathML elements. */
function mathml(node) {
  if (typeof node === 'string') return document.createTextNode(node);
  const el = document.createElementNS(MATHML, node[0]);
  let first = 1;
  const attrs = node[1];
  if (attrs && typeof attrs === 'object' && !Array.isArray(attrs)) {
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
    first = 2;
  }
  for (let i = first; i < node.length; i++) el.append(mathml(node[i]));
  return el;
}

/** The card id a `why` fragment key asks to open, or null. */
function whyFromHash(hash) {
  try {
    return new URLSearchParams(String(hash || '').replace(/^#/, '')).get('why');
  } catch {
    return null;
  }
}

/** The fragment `hash` with `why=id` (replacing any earlier one). */
function hashWithWhy(hash, id) {
  const params = String(hash || '').replace(/^#/, '').split('&').filter((p) => p && !p.startsWith('why='));
  params.push(`why=${encodeURIComponent(id)}`);
  return `#${params.join('&')}`;
}

// ───────────── numbers: each slot's text and the interval it stands for ─────────────

const none = null;
/** A certified enclosure: the digits both ends agree on. */
const enclosed = (e) => {
  if (!e) return none;
  const c = certifiedText(e.value, e.lo, e.hi);
  return c ? { text: c.text, lo: e.lo, hi: e.hi, certified: c.certified } : none;
};
/** A number the core returns without an enclosure (Eq. 65's own formula, an angle). */
const exactish = (x) => (Number.isFinite(x) ? { text: plain(x, 12), lo: x, hi: x } : none);
/** An upper bound, rounded up for display; `lo` is its known lower end when there is one. */
const upper = (hi, lo = hi) => (Number.isFinite(hi) ? { text: trimZeros(directed(hi, 10, +1)), lo, hi } : none);
const param = (x) => (Number.isFinite(x) ? { text: paramToken(x), lo: x, hi: x } : none);
/** A closed-form number: a plain double from today's core, an enclosure {value, lo, hi} from the certified API. */
const closedValue = (x) => (x && typeof x === 'object' ? enclosed(x) : exactish(x));
const closedUpper = (x) => (x && typeof x === 'object' ? upper(x.hi, x.lo) : upper(x));

const ok = (r) => (r && r.ok ? r.value : null);

/** The leading term N^e (not log) and the log N term of a divergence. */
const powerTerm = (div) => div?.terms?.find((t) => !t.log && t.exponent > 0) || null;
const logTerm = (div) => div?.terms?.find((t) => t.log) || null;

/** Everything the derivations show for one view: slot values and the conditions of the blocks. */
function viewNumbers(state, good) {
  const n = good.n;
  const power = state.variance === 'power';
  const ev = (family, at) => ok(core.evaluate({ ...paramsFor(family, state, good), n: at }));
  const scaled = ev('scaled', n);
  const scaled1 = ev('scaled', 1);
  const unscaled = ev('unscaled', n);
  const harmonic = ev('harmonic', n);
  // The typed decimals, as the products get them (paramsFor): q, or eps when LNS sets q = 2 - eps.
  const raw = good.raw || {};
  const law = { c: raw.c ?? good.c, ...(state.lns ? { eps: raw.eps ?? good.eps } : { q: raw.q ?? good.q }) };
  const [a, b] = [raw.a ?? good.a, raw.b ?? good.b];
  const closed = power ? ok(core.closedForms({ a, b, ...law, n })) : null;
  // The two halves of the zeta-sum bound: the same core function with B = 0, then with A = 0.
  const closedA = power ? ok(core.closedForms({ a, b: 0, ...law })) : null;
  const closedB = power ? ok(core.closedForms({ a: 0, b, ...law })) : null;
  // H_N is the angle of the rotation product with theta = 1, r = 1.
  const rot = n === 'inf' ? null : ok(core.rotation(1, 1, n));
  const eq65 = closed?.eq65 || null;
  const uPow = powerTerm(unscaled?.divergent);
  const uLog = logTerm(unscaled?.divergent);
  const hLog = logTerm(harmonic?.divergent);

  const slots = {
    A: param(good.a),
    B: param(good.b),
    c: param(good.c),
    q: param(good.q),
    N: n === 'inf' ? { text: '∞', lo: Infinity, hi: Infinity } : { text: depthLabel(n), lo: n, hi: n },
    eps: eq65 ? closedValue(eq65.eps) : none,
    qn: enclosed(scaled?.log_product),
    qinf: enclosed(scaled?.limit),
    q1: enclosed(scaled1?.log_product),
    z1: enclosed(closedA?.zeta_bound),
    z2: enclosed(closedB?.zeta_bound),
    zb: enclosed(scaled?.zeta_bound || closed?.zeta_bound),
    e65n: eq65 && eq65.exponent_at_n != null ? closedValue(eq65.exponent_at_n) : none,
    e65lim: eq65 ? closedValue(eq65.limit) : none,
    tail: scaled?.tail ? upper(scaled.tail.hi, scaled.tail.lo) : none,
    ztail: closed && closed.zeta_tail_bound != null ? closedUpper(closed.zeta_tail_bound) : none,
    pn: enclosed(unscaled?.log_product),
    u1: uPow ? exactish(uPow.coefficient) : none,
    u2: uLog ? exactish(uLog.coefficient) : none,
    cc: enclosed(unscaled?.divergent?.constant),
    hn: rot ? exactish(rot.angle) : none,
    harm: enclosed(harmonic?.log_product),
    hcoef: hLog ? exactish(hLog.coefficient) : none,
    hc: enclosed(harmonic?.divergent?.constant),
  };
  const when = {
    power,
    notpower: !power,
    q1: power && good.q === 1 && good.a > 0,
    finite: n !== 'inf',
    infinite: n === 'inf',
    eq65finite: !!eq65 && eq65.exponent_at_n != null,
    eq65inf: !!eq65 && eq65.exponent_at_n == null,
    noeq65: power && !eq65,
    eq65c1: !!eq65 && good.c === 1 && !!scaled?.limit,
    eq65cnot1: !!eq65 && good.c !== 1,
    harmlog: !!hLog,
    harmconv: !!harmonic?.limit,
    scaledlimit: !!scaled?.limit,
    powerfinite: power && n !== 'inf' && !!scaled?.tail && !!slots.ztail,
  };
  return { slots, when, unscaled };
}

// ───────────── the panels ─────────────

/**
 * Scrolls `el` to the top of the viewport and keeps it there while the page above it settles:
 * sections with `content-visibility: auto` start at a placeholder height and plots and cards fill
 * in after the first frames, which moved a linked Why thousands of pixels away in Firefox. Holds
 * until it has stayed put for 10 frames (at most about a second), and lets go at once when the
 * reader scrolls, types, touches or opens another panel.
 */
function scrollAndHold(el) {
  el.scrollIntoView({ block: 'start' });
  let frames = 60;
  let still = 0;
  const release = () => {
    frames = 0;
  };
  const onToggle = (e) => {
    if (e.target !== el) release();
  };
  const events = ['wheel', 'touchstart', 'keydown', 'pointerdown'];
  for (const e of events) addEventListener(e, release, { passive: true });
  document.addEventListener('toggle', onToggle, true);
  const hold = () => {
    if (frames-- <= 0 || still >= 10) {
      for (const e of events) removeEventListener(e, release);
      document.removeEventListener('toggle', onToggle, true);
      return;
    }
    if (Math.abs(el.getBoundingClientRect().top) > 2) {
      still = 0;
      el.scrollIntoView({ block: 'start' });
    } else still++;
    requestAnimationFrame(hold);
  };
  requestAnimationFrame(hold);
}

export class Proofs {
  constructor() {
    this.content = null;
    this.view = null;
    this.pending = whyFromHash(location.hash);
    this.printing = false;
    unpack(PACKED)
      .then((content) => {
        this.content = content;
        this.refresh();
      })
      .catch((e) => {
        this.failure = `the derivations could not be unpacked (${e && e.message ? e.message : e})`;
      });
    window.addEventListener('hashchange', () => {
      this.pending = whyFromHash(location.hash);
      this.refresh();
    });
    // Print expanded: the print events for a real print, the media query for print emulation.
    window.addEventListener('beforeprint', () => this.setPrinting(true));
    window.addEventListener('afterprint', () => this.setPrinting(false));
    matchMedia('print').addEventListener('change', (e) => this.setPrinting(e.matches));
  }

  /** Called by main.js after each computed frame with the state and its last good values. */
  update(state, good) {
    this.view = { state, good };
    this.refresh();
  }

  /** Every Why element on the page. */
  panels() {
    return [...document.querySelectorAll('details.why[data-testid^="why-"]')];
  }

  refresh() {
    if (!this.content) return;
    this.attach();
    if (!this.view) return;
    // Numbers only where someone can see them: open panels (all of them while printing).
    const open = this.panels().filter((d) => d.open);
    if (open.length) this.fill(open);
    if (this.pending) {
      const id = this.pending;
      this.pending = null;
      const d = document.querySelector(`details.why[data-testid="why-${CSS.escape(id)}"]`);
      if (d) {
        d.open = true;
        this.fill([d]);
        // Not in an embed: its reader sees the plot first, and scrolling an iframe's content into
        // view would scroll the host page too.
        if (!document.documentElement.classList.contains('embed')) scrollAndHold(d);
      }
    }
  }

  setPrinting(on) {
    if (on === this.printing) return;
    this.printing = on;
    for (const d of this.panels()) {
      if (on && !d.open) {
        d.dataset.printOpened = 'true';
        d.open = true;
      } else if (!on && d.dataset.printOpened) {
        delete d.dataset.printOpened;
        d.open = false;
      }
    }
    if (on) this.refresh();
  }

  /** Gives every card without one its Why. */
  attach() {
    for (const card of document.querySelectorAll('article[data-testid^="card-"]')) {
      const id = card.dataset.testid.slice('card-'.length);
      if (!id || card.querySelector(':scope > details.why')) continue;
      card.append(this.panel(id, this.content.PROOFS[id] || this.content.FALLBACK));
    }
  }

  panel(id, proof) {
    const details = document.createElement('details');
    details.className = 'why';
    details.dataset.testid = `why-${id}`;
    details.dataset.card = id;
    const summary = document.createElement('summary');
    const label = document.createElement('span');
    label.className = 'why-label';
    label.textContent = 'Why';
    const text = document.createElement('span');
    text.className = 'why-summary';
    text.textContent = proof.summary;
    summary.append(label, ' ', text);
    const body = document.createElement('div');
    body.className = 'why-body';
    for (const block of proof.blocks) body.append(this.block(block));
    const foot = document.createElement('p');
    foot.className = 'why-foot';
    const link = document.createElement('a');
    link.className = 'why-link';
    link.dataset.testid = `why-link-${id}`;
    link.href = hashWithWhy(location.hash, id);
    link.textContent = 'Link to this derivation';
    link.addEventListener('click', (ev) => {
      ev.preventDefault();
      location.hash = hashWithWhy(location.hash, id);
    });
    foot.append(
      link,
      '. Sources: Sun et al., ',
      cite('The Curse of Depth in Large Language Models'),
      ', arXiv 2502.05795; ',
      cite('A finite-product correction to LayerNorm Scaling’s depth argument'),
      ' (2026). Full proofs and error bounds: docs/MATH.md in the depthprod repository.',
    );
    body.append(foot);
    details.append(summary, body);
    details.addEventListener('toggle', () => {
      if (details.open && this.view) this.fill([details]);
    });
    return details;
  }

  block(block) {
    let el;
    if (block.m) {
      // A display formula scrolls inside its own box on narrow screens; focusable so keyboards can.
      el = document.createElement('div');
      el.className = 'why-formula';
      el.tabIndex = 0;
      el.setAttribute('role', 'group');
      el.setAttribute('aria-label', 'formula (scrolls sideways when wide)');
      el.append(mathml(block.m));
      if (block.chain) el.dataset.chain = JSON.stringify(block.chain);
    } else if (block.terms) {
      el = document.createElement('p');
      el.className = 'why-terms';
    } else {
      el = document.createElement('p');
      for (const part of block.p) el.append(mathml(part));
    }
    if (block.when) el.dataset.when = block.when;
    return el;
  }

  /** Writes the view's numbers into the given panels and shows the blocks that apply to it. */
  fill(panels) {
    const { state, good } = this.view;
    const { slots, when, unscaled } = viewNumbers(state, good);
    for (const d of panels) {
      for (const el of d.querySelectorAll('[data-when]')) el.hidden = !when[el.dataset.when];
      for (const mn of d.querySelectorAll('mn[data-slot]')) setSlot(mn, slots[mn.dataset.slot]);
      for (const p of d.querySelectorAll('.why-terms')) this.terms(p, unscaled, slots.cc);
      const link = d.querySelector('.why-link');
      if (link) link.href = hashWithWhy(location.hash, d.dataset.card);
    }
  }

  /** "For this view the core finds log P_N = … + C + o(1), C = …" (or its finite limit). */
  terms(p, unscaled, cc) {
    const math = (slot, value) => {
      const m = document.createElementNS(MATHML, 'math');
      const mn = document.createElementNS(MATHML, 'mn');
      mn.dataset.slot = slot;
      setSlot(mn, value);
      m.append(mn);
      return m;
    };
    if (unscaled?.divergent) {
      p.replaceChildren(`For this view the core finds log P_N = ${termsText(unscaled.divergent.terms)} + C + o(1)`);
      if (cc) p.append(', with C = ', math('cc', cc), '.');
      else p.append('; C is not resolvable in double precision here, and no digits are shown for it.');
    } else if (unscaled?.limit) {
      p.replaceChildren('For this view the unscaled product converges: log P_∞ = ', math('pinf', enclosed(unscaled.limit)), '.');
    } else {
      p.replaceChildren('');
    }
  }
}

function cite(title) {
  const c = document.createElement('cite');
  c.textContent = title;
  return c;
}

/** One live number: its text, and the interval it stands for (for tests and print readers). */
function setSlot(mn, value) {
  const text = value ? value.text : '—';
  if (mn.textContent !== text) mn.textContent = text;
  if (value) {
    mn.setAttribute('data-lo', String(value.lo));
    mn.setAttribute('data-hi', String(value.hi));
    mn.removeAttribute('data-missing');
    if (value.certified === false) mn.setAttribute('data-uncertified', 'true');
    else mn.removeAttribute('data-uncertified');
  } else {
    mn.removeAttribute('data-lo');
    mn.removeAttribute('data-hi');
    mn.setAttribute('data-missing', 'true');
  }
}
