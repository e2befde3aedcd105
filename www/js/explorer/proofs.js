// The "Why" of every claim card: a <details data-testid="why-<id>"> appended to each
// <article data-testid="card-<id>">, holding the card's short derivation (docs/MATH.md in brief) as
// MathML built at build time (proofs-math.js, from scripts/proofs-source.mjs), with its card's
// numbers filled into its <mn data-slot> elements. A derivation is about its card's product at
// the card's parameters (cards.js claimParams: the product's own variance and ε, or the regime
// the card names), and names them. Every number comes from the core (core.js: evaluate,
// closedForms, rotation; series.js: the same prepared products as the plots); this file only
// picks, formats and places them.
//
// `#…&why=eq65` opens that card's Why and scrolls to it; printing opens them all. Cards that
// cards.js adds later get a Why too (their own derivation if proofs-source.mjs has one, otherwise a
// pointer to docs/MATH.md), and a card that is rebuilt gets its Why back on the next update.

import * as core from '../common/core.js';
import { PACKED } from './proofs-math.js';
import { claimParams, coreParams, hasClaim, isDecimalOne, lawArgs } from './cards.js';
import { evalFor, growthFor } from './series.js';
import { depthLabel, directed, identifyingText, plain, trimZeros } from '../common/format.js';

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
//
// A slot's data-kind says what its text means, for readers of the DOM and for the tests:
//   enclosure  the digits the core's enclosure [data-lo, data-hi] certifies (identifyingText);
//   exact      the decimal shown is itself the number meant: a typed parameter, the depth, or a
//              bound the core rounded upward (written after "≤");
//   double     a double the core returns without an enclosure (h_N, written after "≈").

const none = null;
/** A certified enclosure: the digits it certifies. */
const enclosed = (e) => {
  if (!e) return none;
  const c = identifyingText(e.value ?? e.lo, e.lo, e.hi);
  return c ? { text: c.text, lo: e.lo, hi: e.hi, kind: 'enclosure', certified: c.certified } : none;
};
/** A decimal that is exactly what it says. */
const exact = (text) => ({ text, lo: Number(text), hi: Number(text), kind: 'exact' });
/** An upper bound from the core, rounded up to 10 digits for display: the shown decimal is the bound. */
const upper = (hi) => (Number.isFinite(hi) ? exact(trimZeros(directed(hi, 10, +1))) : none);
/** One of q and ε = 2 − q as claimParams writes it (typed, or the core's enclosure of 2 − x). */
const lawValue = (x) => (!x ? none : x.exact ? exact(x.text) : { text: x.text, lo: x.lo, hi: x.hi, kind: 'enclosure', certified: true });

const ok = (r) => (r && r.ok ? r.value : null);

/**
 * Everything one card's derivation shows, for that card's claim (cards.js claimParams): the slot
 * values and the conditions of its blocks. Every number is the core's for exactly the parameters
 * the card is evaluated with.
 */
function claimNumbers(claim) {
  const n = claim.n;
  const params = coreParams(claim);
  const at = (depth) => ok(evalFor(params, depth));
  const here = at(n);
  const growth = ok(growthFor(params));
  const slots = {
    A: exact(claim.a),
    B: exact(claim.b),
    c: exact(claim.law.c.text),
    q: lawValue(claim.law.q),
    eps: lawValue(claim.law.eps),
    N: n === 'inf' ? { text: '∞', lo: Infinity, hi: Infinity, kind: 'exact' } : { text: depthLabel(n), lo: n, hi: n, kind: 'exact' },
  };
  const when = { finite: n !== 'inf', infinite: n === 'inf' };
  if (claim.family !== 'unscaled') {
    // h_N, the angle of the rotation product with θ = 1, r = 1: a double-precision sum (not an enclosure).
    const rot = n === 'inf' ? null : ok(core.rotation(1, 1, n));
    slots.hn = rot && Number.isFinite(rot.angle) ? { text: plain(rot.angle, 10), lo: rot.angle, hi: rot.angle, kind: 'double' } : none;
  }

  if (claim.family === 'unscaled') {
    Object.assign(slots, {
      pn: enclosed(here?.log_product),
      cc: enclosed(here?.divergent?.constant),
      u1: enclosed(growth?.coefficient),
      u2: enclosed(growth?.log_coefficient),
    });
    const both = !!growth?.coefficient && !!growth?.log_coefficient;
    // A negative log N coefficient is written in brackets ("+ (−4900000) log N").
    const negative = both && growth.log_coefficient.hi < 0;
    Object.assign(when, {
      eq11both: both && !negative,
      eq11bothneg: negative,
      eq11coef: both,
      eq11sqrt: !!growth?.coefficient && !growth?.log_coefficient,
      eq11log: !growth?.coefficient && !!growth?.log_coefficient,
      eq11conv: growth?.class === 'convergent',
    });
  } else if (claim.family === 'scaled') {
    const law = lawArgs(claim.variance);
    const closed = ok(core.closedForms({ a: claim.a, b: claim.b, ...law, n }));
    // The two halves of the zeta-sum bound: the same core function with B = 0, then with A = 0.
    const closedA = ok(core.closedForms({ a: claim.a, b: 0, ...law }));
    const closedB = ok(core.closedForms({ a: 0, b: claim.b, ...law }));
    const eq65 = closed?.eq65 || null;
    Object.assign(slots, {
      qn: enclosed(here?.log_product),
      qinf: enclosed(here?.limit),
      q1: enclosed(at(1)?.log_product),
      z1: enclosed(closedA?.zeta_bound),
      z2: enclosed(closedB?.zeta_bound),
      zb: enclosed(closed?.zeta_bound),
      e65n: enclosed(eq65?.exponent_at_n),
      e65lim: enclosed(eq65?.limit),
      tail: here?.tail ? enclosed({ value: here.tail.lo, lo: here.tail.lo, hi: here.tail.hi }) : none,
      ztail: closed && closed.zeta_tail_bound != null ? upper(closed.zeta_tail_bound) : none,
    });
    Object.assign(when, {
      limitN: n !== 'inf' && !!here?.limit,
      limitInf: n === 'inf' && !!here?.limit,
      e65finite: !!eq65?.exponent_at_n,
      e65inf: !!eq65 && !eq65.exponent_at_n,
      c1: isDecimalOne(claim.law.c.text) && !!here?.limit,
      cnot1: !isDecimalOne(claim.law.c.text),
      tailbound: n !== 'inf' && !!here?.tail && !!slots.ztail,
    });
  } else {
    Object.assign(slots, {
      harm: enclosed(here?.log_product),
      hc: enclosed(here?.divergent?.constant),
      hcoef: enclosed(growth?.log_coefficient),
    });
    Object.assign(when, { harmlog: !!growth?.log_coefficient, harmconv: growth?.class === 'convergent' });
  }
  return { slots, when };
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
    } else {
      el = document.createElement('p');
      for (const part of block.p) el.append(mathml(part));
    }
    if (block.when) el.dataset.when = block.when;
    return el;
  }

  /** Writes each panel's numbers (its card's claim, cards.js) and shows the blocks that apply to it. */
  fill(panels) {
    const { state, good } = this.view;
    const byKey = new Map(); // eq65 and s41 judge the same claim: its numbers are asked once
    for (const d of panels) {
      const claim = hasClaim(d.dataset.card) ? claimParams(d.dataset.card, state, good) : null;
      let numbers = null;
      if (claim) {
        const key = JSON.stringify({ ...coreParams(claim), n: claim.n });
        if (!byKey.has(key)) byKey.set(key, claimNumbers(claim));
        numbers = byKey.get(key);
      }
      for (const el of d.querySelectorAll('[data-when]')) el.hidden = !numbers?.when[el.dataset.when];
      for (const mn of d.querySelectorAll('mn[data-slot]')) setSlot(mn, numbers?.slots[mn.dataset.slot] ?? none);
      const link = d.querySelector('.why-link');
      if (link) link.href = hashWithWhy(location.hash, d.dataset.card);
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
    mn.setAttribute('data-kind', value.kind);
    mn.removeAttribute('data-missing');
    if (value.certified === false) mn.setAttribute('data-uncertified', 'true');
    else mn.removeAttribute('data-uncertified');
  } else {
    mn.removeAttribute('data-lo');
    mn.removeAttribute('data-hi');
    mn.removeAttribute('data-kind');
    mn.setAttribute('data-missing', 'true');
  }
}
