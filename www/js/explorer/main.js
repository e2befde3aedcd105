// Wiring: state ⇄ URL fragment ⇄ controls ⇄ core ⇄ plots, readouts, cards, rotation panel.
// Input events are coalesced to one update per animation frame.

import * as core from '../common/core.js';
import { initCore, coreNotice, coreReady } from '../common/core.js';
import { parseFragment, serialize, validate, initialGood, parsedList, parsedOwnList, listFitsLink, LINK_LIST_MAX, FIELDS, paramsFor, EXAMPLE_LIST, FAMILIES, ownList } from './state.js';
import { Controls } from './controls.js';
import { Plot, refreshTheme } from '../common/plot.js';
import { compute, POINTS, COARSE_POINTS, FAMILY_STYLE } from './series.js';
import { Readouts, readoutItems, setText } from './readouts.js';
import { Cards } from './cards.js';
import { RotationPanel } from './rotation.js';
import { PRESETS, MODEL_DEPTHS } from './presets.js';
import { depthLabel, paramToken, grouped } from '../common/format.js';
import { ListPanel } from './listplot.js';
import { rich } from '../common/rich.js';
import { labSource } from './handoff.js';
import { Share } from './share.js';
import { Access } from './access.js';
import { embedded, initEmbed, stripEmbed, syncEmbed } from './embed.js';
import { Answer } from './answer.js';
import { expansionNote } from './expansion.js';
import { Proofs } from './proofs.js'; // the cards' "Why" derivations (proofs owns it)

const statusEl = document.getElementById('status');
let state;
let good = initialGood();
let errors = {};
let fragmentMessages = [];
let lastWritten = null; // the fragment this page last wrote, to ignore its own echoes
let queued = false;
let pendingCommit = false;
let everDrawn = false;
const stats = { updates: 0, last: 0, times: [] };
window.depthprodStats = stats;
// For tests and outside checks: the core parameters a product shown is evaluated with.
stats.paramsOf = (family) => paramsFor(family, state, good);
// For tests and outside checks: the ranges each plot last drew (read live: a plot redraws on resize too).
Object.defineProperty(stats, 'axes', {
  get: () => Object.fromEntries(Object.entries(plots).map(([k, p]) => [k, { yMin: p.yMin, yMax: p.yMax, xMin: p.xMin, xMax: p.xMax, xLog: p.xLog, message: p.message, drawn: p.cssW > 0, onScreen: p.onScreen }])),
});

const plots = {
  main: new Plot(document.querySelector('[data-plot="main"]'), {
    yLabel: 'log of the product',
    legend: document.getElementById('legend-main'),
    compactLegend: embedded,
    offscreen: 'skip',
    marks: MODEL_DEPTHS.map((m) => ({ x: m.n, label: m.name })),
    // A drag picks a depth range (whole depths; the URL keeps it).
    onZoom: (from, to) => {
      state.zoom = [Math.max(1, Math.round(from)), Math.max(2, Math.round(to))];
      fragmentMessages = [];
      schedule(true);
    },
  }),
  remainder: new Plot(document.querySelector('[data-plot="remainder"]'), { yLabel: 'remainder', legend: document.getElementById('legend-remainder'), offscreen: 'skip' }),
  tail: new Plot(document.querySelector('[data-plot="tail"]'), { yLabel: 'tail bound', yLog: true, snapDecades: true, legend: document.getElementById('legend-tail'), offscreen: 'skip' }),
};
const readouts = new Readouts(document.getElementById('readouts'));
// "Use the fitted power law": one click from a measured list to the power law c · l^q the core fitted.
const listPanel = new ListPanel(({ c, q }) => {
  state.variance = 'power';
  state.lns = false;
  state.text.c = paramToken(c);
  state.text.q = paramToken(q);
  controls.render(state);
  fragmentMessages = [];
  schedule(true);
});
const cards = new Cards(document.getElementById('cards'));
const rotation = new RotationPanel(document.querySelector('.rotation-panel'));
// Share / export toolbar (absent in pages without it) and the settled announcements + plot tables.
const shareBar = document.querySelector('[data-share-bar]');
const share = shareBar ? new Share(shareBar, plots.main) : null;
const access = new Access(plots);
const proofs = new Proofs(); // the cards' "Why" derivations
const answer = new Answer(document.querySelector('[data-testid="answer"]'), document.querySelector('[data-testid="pin-numbers"]'));

function setStatus(text, isError) {
  // A core loaded the slow way (wasm served with the wrong MIME type) keeps saying how to fix it.
  const notice = isError ? null : coreNotice();
  if (notice) text = `${notice} ${text}`;
  if (statusEl.textContent !== text) statusEl.textContent = text;
  statusEl.classList.toggle('is-error', !!isError);
}

/**
 * Applies a fragment (load, back/forward, hand-edited URL). `now`: update at once instead of in
 * the next animation frame (page load: nothing to coalesce, and the first number shows a frame sooner).
 */
function applyFragment(hash, { now = false } = {}) {
  const parsed = parseFragment(stripEmbed(hash)); // embed=1 is the layout's, not the state's
  state = parsed.state;
  const present = new URLSearchParams(String(hash).replace(/^#/, ''));
  // A hand-off from the lab names the lab's view (its own fragment): the link back reopens it.
  document.querySelector('[data-testid="to-lab"]')?.setAttribute('href', state.lab ? `lab.html#${state.lab}` : 'lab.html');
  if (!present.has('n')) {
    // A link with lists but no depth shows the shortest list's full depth, as pasting it does.
    const n = listDepth();
    if (n) state.text.n = String(n);
  }
  good = initialGood();
  controls.render(state);
  const v = validate(state, good);
  // Messages for the link itself: shape problems, plus every field of the link the core refused.
  fragmentMessages = parsed.problems.map((p) => p.message);
  for (const f of FIELDS) {
    const key = f;
    if (v.errors[f] && present.has(key)) fragmentMessages.push(v.errors[f]);
  }
  lastWritten = location.hash;
  inGesture = false;
  clearTimeout(replaceTimer);
  replaceTimer = 0;
  if (now) update(false, false);
  else schedule(false, false);
}

let pendingWrite = false; // only user changes write the URL (never a load or back/forward)
// A drag or typing (inputs before their commit) asks the core for COARSE_POINTS depths per curve:
// at large N each 1000-point curve costs 1-2 ms of certified evaluation, and an N-slider move
// recomputes every curve (issue 11: such moves were the update's p95). The full grid follows when
// the input rests for REST_MS or commits; the readouts and cards never depend on the grid.
const REST_MS = 150;
let pendingCoarse = false;
let restTimer = 0;
function schedule(commit, write = true, { coarse = false } = {}) {
  pendingCommit = pendingCommit || commit;
  pendingWrite = pendingWrite || write;
  pendingCoarse = pendingCoarse || coarse;
  if (queued) return;
  queued = true;
  requestAnimationFrame(() => {
    queued = false;
    const c = pendingCommit;
    const w = pendingWrite;
    const coarse = pendingCoarse && !c;
    pendingCommit = false;
    pendingWrite = false;
    pendingCoarse = false;
    clearTimeout(restTimer);
    restTimer = coarse ? setTimeout(() => schedule(false, false), REST_MS) : 0;
    update(c, w, { coarse });
  });
}

function onChange({ kind, field }) {
  if (kind === 'commit') fragmentMessages = [];
  if (((field === 'variance' || field === 'list') && state.variance === 'list') || /^own-.*-list$/.test(field ?? '')) {
    // N follows the lists: a new or edited list shows its full depth (the reader can then lower N).
    const n = listDepth();
    if (n) {
      state.text.n = String(n);
      controls.render(state);
    }
  }
  schedule(kind === 'commit', true, { coarse: kind !== 'commit' });
}

/** The length of the shortest list in use (the shared one, each product's own), or 0 when none can be read. */
function listDepth() {
  const parsed = [];
  if (state.variance === 'list') parsed.push(() => parsedList(state.text.list));
  for (const f of FAMILIES) if (ownList(state.own?.[f])) parsed.push(() => parsedOwnList(f, state.own[f].list));
  let n = 0;
  for (const parse of parsed) {
    const r = parse();
    if (!r.ok) return 0;
    n = n ? Math.min(n, r.value.length) : r.value.length;
  }
  return n;
}

function onPreset(name) {
  const make = PRESETS[name];
  if (!make) return;
  state = make();
  controls.render(state);
  controls.state = state;
  fragmentMessages = [];
  schedule(true);
}

// History: the first input of a gesture (drag, typing) pushes a new entry, later inputs replace it
// (throttled: browsers warn past ~100 history calls in 10 s), and the commit ends the gesture.
// Discrete changes (toggles, presets, Enter) push one entry each.
let replaceTimer = 0;
let inGesture = false;
function writeUrl(commit) {
  if (!coreReady() || embedded) return; // an iframe's history would land in its embedder's
  const frag = serialize(good, state);
  if (frag === location.hash) {
    if (commit) inGesture = false;
    return;
  }
  if (!inGesture) {
    historyWrite(true, frag);
    inGesture = !commit;
    return;
  }
  if (commit) {
    clearTimeout(replaceTimer);
    replaceTimer = 0;
    historyWrite(false, frag);
    inGesture = false;
  } else if (!replaceTimer) {
    replaceTimer = setTimeout(() => {
      replaceTimer = 0;
      const latest = serialize(good, state);
      if (latest !== location.hash) historyWrite(false, latest);
    }, 250);
  }
}

function historyWrite(push, frag) {
  lastWritten = frag;
  const url = `${location.pathname}${location.search}${frag}`;
  try {
    if (push) history.pushState(null, '', url);
    else history.replaceState(null, '', url);
  } catch {
    // Some embedders forbid history changes; the page still works.
  }
}

function update(commit, write, { coarse = false } = {}) {
  const t0 = performance.now();
  try {
    const v = validate(state, good);
    const t1 = performance.now();
    good = v.good;
    errors = v.errors;
    controls.showErrors(errors, fragmentMessages);
    showLists();
    if (state.variance === 'list') {
      const linkNote = good.list && !listFitsLink(good.listText) ? ` This list is too long for the page’s link (over ${grouped(LINK_LIST_MAX)} characters): the link keeps every other setting and says that the list must be pasted again.` : '';
      const example = state.text.list === EXAMPLE_LIST ? ' (the example list: paste or type your own over it)' : '';
      controls.setListInfo(good.list ? `Read ${grouped(good.list.length)} value${good.list.length === 1 ? '' : 's'}${example}: N follows the list (N = ${good.list.length}; any N from 1 to ${good.list.length} can be typed). N counts the layers a Jacobian crosses, one factor per layer: a model with L layers gives L values (the variances of its layer inputs x_1 … x_L), N = L.${linkNote}` : '');
    }
    if (v.coreDown) {
      setStatus(`The core cannot evaluate yet: ${v.coreDown}`, true);
    }
    const t2 = performance.now();
    const res = compute(state, good, { tail: true, remainder: true, points: coarse ? COARSE_POINTS : POINTS });
    const t3 = performance.now();
    stats.phase = { validate: t1 - t0, compute: t3 - t2, points: coarse ? COARSE_POINTS : POINTS };
    if (!res.ok) {
      setStatus(`Could not compute: ${res.problems.join('; ')}`, true);
      return;
    }
    const anyCurve = res.main.length > 0 || state.families.length === 0;
    if (!anyCurve && everDrawn) {
      setStatus(`Kept the last good plot: ${res.problems.join('; ')}`, true);
    } else {
      const t4 = performance.now();
      draw(res);
      stats.phase.draw = performance.now() - t4;
      everDrawn = everDrawn || anyCurve;
      if (res.problems.length) setStatus(res.problems.join('; '), true);
      else if (!v.coreDown) setStatus(`N = ${depthLabel(good.n)} · ${state.families.length} product${state.families.length === 1 ? '' : 's'} shown`, false);
    }
    rotation.setMainN(good.n);
    if (coreReady()) syncEmbed(serialize(good, state));
    if (write) writeUrl(commit);
  } catch (e) {
    // Never let an exception escape into the console or freeze the page.
    setStatus(`Unexpected problem: ${e && e.message ? e.message : String(e)}`, true);
  } finally {
    const dt = performance.now() - t0;
    if (!stats.updates) stats.first = { start: t0, work: dt, phase: stats.phase, drawPhases: stats.drawPhases };
    stats.updates++;
    stats.last = dt;
    stats.times.push(dt);
    if (stats.times.length > 200) stats.times.shift();
  }
}

/**
 * The list figure: every measured list in use (the shared one, each product's own), where it came
 * from when the lab handed it over, and a link back to that lab run.
 */
function showLists() {
  const entries = [];
  if (state.variance === 'list' && good.list) entries.push({ key: 'shared', label: 'measured σ_l²', color: '--c-scaled', values: good.list, fit: true });
  for (const f of FAMILIES) {
    if (ownList(state.own?.[f]) && good.own?.[f]?.list) entries.push({ key: f, label: `${f}: its own σ_l²`, short: `${f} σ_l²`, color: FAMILY_STYLE[f].color, values: good.own[f].list });
  }
  const field = document.getElementById('list-plot-field');
  const show = entries.length > 0 || state.variance === 'list';
  if (field && field.hidden !== !show) field.hidden = !show;
  if (show) listPanel.set(entries);
  const src = document.getElementById('list-source');
  if (!src) return;
  const from = show ? labSource(state, good) : null;
  const key = from ? `${from.lead}|${from.href}` : '';
  if (src.dataset.key !== key) {
    src.dataset.key = key;
    if (from) {
      const a = document.createElement('a');
      a.href = from.href;
      a.dataset.testid = 'list-source-link';
      a.textContent = 'open that lab run';
      const lead = document.createElement('span');
      rich(lead, `${from.lead}: `);
      src.replaceChildren(lead, a, '.');
    } else src.replaceChildren();
    src.hidden = !from;
  }
}

/**
 * Whether a field the current view uses holds a value the core refused: then every number shown is
 * the last good one and is marked as not updated.
 */
function staleInputs() {
  const used = ['a', 'b', 'n'];
  if (state.variance !== 'list') used.push('c');
  if (state.variance === 'power') used.push(state.lns ? 'eps' : 'q');
  if (state.variance === 'exp') used.push('lambda');
  if (state.variance === 'list') used.push('list');
  for (const f of Object.keys(state.own || {})) used.push(`${f}.c`, `${f}.q`, `${f}.eps`, `${f}.list`);
  return used.some((k) => errors[k]);
}

/** The main plot's depth range: the dragged zoom inside [1, xMax], or all of it; and whether it is linear. */
function depthView(xMax) {
  let [from, to] = state.zoom || [1, xMax];
  from = Math.max(1, from);
  to = Math.min(xMax, to);
  const zoomed = !!state.zoom && to > from;
  if (!zoomed) [from, to] = [1, xMax];
  return { from, to, zoomed, linear: !!state.linx && to <= 1000 };
}

function showDepthView(view) {
  const range = document.getElementById('zoom-range');
  const reset = document.getElementById('zoom-reset');
  const linNote = state.linx && !view.linear ? ' The linear N axis is offered for depths up to 1000: zoom in to use it.' : '';
  const text = view.zoomed ? `Depths ${depthLabel(view.from)} … ${depthLabel(view.to)} (zoomed).${linNote}` : linNote.trim();
  if (range && range.textContent !== text) range.textContent = text;
  if (reset && reset.hidden !== !view.zoomed) reset.hidden = !view.zoomed;
  const marks = document.getElementById('model-depths');
  if (marks) {
    const list = MODEL_DEPTHS.map((m) => `${m.name} ${m.layers} layers`).join(', ');
    const t = `Marked on the depth axis (ticks and band): real models, at N = L for L layers: ${list}.`;
    if (marks.textContent !== t) marks.textContent = t;
  }
}

function draw(res) {
  const xMax = Math.max(res.nMax, 10);
  const empty = state.families.length === 0 ? 'Choose a product to show.' : '';
  const T = [performance.now()];
  const view = depthView(xMax);
  // Every canvas is painted before any DOM of this update is written: a canvas paint sets fonts,
  // and a font set after a DOM write makes the browser recalculate the page's style right there.
  plots.main.yLog = state.logy;
  plots.main.xLog = !view.linear;
  plots.main.set({ xMin: view.from, xMax: view.to, series: res.main, message: empty || (res.main.length ? '' : res.problems.join('; ')) }, { legend: false });
  // The second row of plots and the cards: one pass with the main plot, so a frame shows one state.
  const notes = res.remainderNotes || [];
  const remainderMessage = res.remainder.length ? '' : notes.length ? notes.join('. ') : 'No divergent product among those shown.';
  plots.remainder.set({ xMin: 1, xMax, series: res.remainder, message: remainderMessage }, { legend: false });
  // No empty frame: with nothing to draw, the figure says why in words instead.
  const remWrap = document.querySelector('[data-plot="remainder"]');
  if (remWrap && remWrap.hidden !== !res.remainder.length) remWrap.hidden = !res.remainder.length;
  plots.tail.set({ xMin: 1, xMax, series: res.tail, message: res.tail.length ? '' : 'No convergent product among those shown.' }, { legend: false });
  T.push(performance.now());
  showDepthView(view);
  for (const p of Object.values(plots)) p.renderLegend();
  const remainderNote = document.getElementById('remainder-note');
  if (remainderNote) setText(remainderNote, res.remainder.length && notes.length ? `(${notes.join('; ')})` : '');
  const remEmpty = document.getElementById('remainder-empty');
  if (remEmpty) {
    const why = res.remainder.length ? '' : [`${remainderMessage.replace(/\.$/, '')}.`, ...(res.unsettled || []).map((f) => expansionNote(f, res.expansions?.[f]))].filter(Boolean).join(' ');
    rich(remEmpty, why);
    if (remEmpty.hidden !== !why) remEmpty.hidden = !why;
  }
  showWidthNote('width-note', res.widthNotes);
  showWidthNote('tail-width-note', res.tailWidthNotes);
  T.push(performance.now());
  const stale = staleInputs();
  readouts.render(readoutItems(state, good, res), { stale });
  T.push(performance.now());
  cards.update(state, good, res);
  cards.setStale(stale);
  T.push(performance.now());
  share?.set(state, good, res);
  access.set(state, good, res);
  T.push(performance.now());
  proofs.update(state, good); // the cards' "Why" derivations
  T.push(performance.now());
  answer.update(state, good, res);
  T.push(performance.now());
  const names = ['canvases', 'legends and notes', 'readouts', 'cards', 'share and access', 'proofs', 'answer'];
  stats.drawPhases = Object.fromEntries(names.map((k, i) => [k, +(T[i + 1] - T[i]).toFixed(2)]));
}

document.getElementById('zoom-reset')?.addEventListener('click', () => {
  state.zoom = null;
  schedule(true);
});

// ───────────── start ─────────────
performance.mark('depthprod:modules-evaluated');
initEmbed();
state = parseFragment('').state;
const controls = new Controls(state, onChange, onPreset);
controls.render(state);
refreshTheme();
setStatus('Loading the WebAssembly core…', false);

window.addEventListener('hashchange', () => {
  if (location.hash !== lastWritten) applyFragment(location.hash);
});
window.addEventListener('popstate', () => {
  if (location.hash !== lastWritten) applyFragment(location.hash);
});
// Theme changes, and printing (whose stylesheet sets a light palette), repaint the canvases.
for (const query of ['(prefers-color-scheme: dark)', 'print']) {
  matchMedia(query).addEventListener('change', () => {
    refreshTheme();
    for (const p of Object.values(plots)) p.recolour();
    rotation.draw();
  });
}
window.addEventListener('error', (ev) => {
  setStatus(`Unexpected problem: ${ev.message}`, true);
  ev.preventDefault();
});
window.addEventListener('unhandledrejection', (ev) => {
  setStatus(`Unexpected problem: ${ev.reason && ev.reason.message ? ev.reason.message : String(ev.reason)}`, true);
  ev.preventDefault();
});

initCore().then((err) => {
  performance.mark('depthprod:core-ready');
  if (err) {
    setStatus(err, true);
    answer.fail(`No numbers: ${err}`);
  }
  applyFragment(location.hash, { now: true });
  rotation.update();
});


/** Words under a plot for curve points wider than the goal (hidden when every point meets it). */
function showWidthNote(id, notes) {
  const el = document.getElementById(id);
  if (!el) return;
  const text = notes && notes.length ? `Wider than the 1e-12 goal (the shaded band around the curve is the certified enclosure): ${notes.join('; ')}.` : '';
  if (el.textContent !== text) el.textContent = text;
  if (el.hidden !== !text) el.hidden = !text;
}
