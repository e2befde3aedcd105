// The lab page: wires the fragment, the controls, the worker client, the tables and the figures.
// Every measurement runs in the worker (lab/worker.js); this thread only draws what arrives.

import { NORMS, NORM_NAMES, FIELDS, PRESETS, parseFragment, toFragment, specsOf, fieldProblems } from './state.js';
import { LabClient } from './client.js';
import { renderTable, clearTables, summaryItem, words } from './view.js';
import { LabFigures } from './plots.js';
import { headline, comparison } from './answer.js';
import { handoff } from './handoff.js';
import { sortFiles, sizeText, MAX_CHECKPOINT_BYTES } from './checkpoint.js';
import * as core from '../common/core.js';
import { rich } from '../common/rich.js';

/** Largest checkpoint the tab takes (lab/checkpoint.js says why). */
export { MAX_CHECKPOINT_BYTES };

const $ = (id) => document.getElementById(id);
const statusEl = $('lab-status');
const errorEl = $('lab-error');
const progressEl = $('lab-progress');
const stageEl = $('lab-stage');
const runBtn = $('lab-run');
const cancelBtn = $('lab-cancel');
const tablesEl = $('lab-tables');
const summaryEl = $('lab-summary');
const handoff_ = $('lab-to-explorer');
const fileInput = $('lab-file');
const fileInfo = $('lab-file-info');
const fileError = $('lab-file-error');
const runReason = $('lab-run-reason');
const headlinesEl = $('lab-headlines');
const handoffNote = $('lab-handoff-note');
const fitLink = $('lab-to-explorer-fit');
const fitNote = $('lab-fit-note');
const fileClear = $('lab-file-clear');
const drop = $('lab-drop');

const parsed = parseFragment(location.hash);
let state = parsed.state;
let checkpoint = null; // { name, bytes: Uint8Array, configJson: string | null, configName }
let runs = {}; // norm → { layers, totalLayers, fit, angular, report, bound, upperBound } (the last two as streamed)
let startedAt = 0;
let generation = 0; // one per run: an answer that arrives for an earlier run is dropped
let runFragment = ''; // the lab view the run was started from (the explorer's link back), whatever is typed since
let isRunning = false;
let runErrors = []; // [{ message, norms }] of the run in flight
// What the link's fragment got wrong (unknown keys or placements): shown until the reader starts a
// run themselves, so a link with run=1 does not wipe them before they are read.
let linkNotes = parsed.problems;
let drawPending = false;
const dirtyTables = new Set(); // placements whose streamed rows changed since the last frame
let coreReady = null;

const figures = new LabFigures($('lab-figures'));

function setStatus(text, isError = false) {
  if (statusEl.textContent !== text) statusEl.textContent = text;
  statusEl.classList.toggle('is-error', isError);
}

function showErrors(lines) {
  errorEl.textContent = lines.join(' · ');
}

// ───────────── controls ⇄ state ⇄ fragment ─────────────

function fillControls() {
  for (const n of NORMS) document.querySelector(`[data-testid="lab-norm-${n}"]`).checked = state.norms.includes(n);
  for (const k of FIELDS) $(`lab-${k}`).value = state.text[k];
  $('lab-input').value = state.input;
}

function readControls() {
  state = {
    norms: NORMS.filter((n) => document.querySelector(`[data-testid="lab-norm-${n}"]`).checked),
    text: Object.fromEntries(FIELDS.map((k) => [k, $(`lab-${k}`).value])),
    input: $('lab-input').value,
  };
  history.replaceState(null, '', toFragment(state));
  checkControls();
}

// The form's problems, as typed (lab/state.js fieldProblems): each at its field with aria-invalid,
// and Run disabled with the reasons beside it; each message goes when its field is fixed.
let formProblems = {};
function checkControls() {
  formProblems = fieldProblems(state, { checkpoint: !!checkpoint, config: !!checkpoint?.configJson });
  for (const k of [...FIELDS, 'norms']) {
    const msg = formProblems[k] ?? '';
    const out = $(`lab-${k}-error`);
    if (out.textContent !== msg) out.textContent = msg;
    if (k === 'norms') continue;
    const input = $(`lab-${k}`);
    if (msg) input.setAttribute('aria-invalid', 'true');
    else input.removeAttribute('aria-invalid');
  }
  updateRunButton();
}

function updateRunButton() {
  const reasons = [...FIELDS, 'norms'].filter((k) => formProblems[k]).map((k) => formProblems[k]);
  runBtn.disabled = isRunning || reasons.length > 0;
  runReason.textContent = !isRunning && reasons.length ? `Run is off until the form is fixed: ${reasons.join('; ')}.` : '';
}

document.querySelector('.lab-controls').addEventListener('change', (ev) => {
  if (ev.target === fileInput) return;
  readControls();
});
document.querySelector('.lab-controls').addEventListener('input', (ev) => {
  if (ev.target.matches('input[type="text"], input[type="checkbox"]')) readControls();
});
for (const b of document.querySelectorAll('[data-preset]')) {
  b.addEventListener('click', () => {
    Object.assign(state.text, PRESETS[b.dataset.preset]);
    fillControls();
    readControls();
  });
}

// ───────────── checkpoint ─────────────

/**
 * Takes the files of a drop or a choice. What is not a checkpoint is refused here, with the reason
 * at the drop zone, and changes nothing (a refused notes.txt neither replaces the file already
 * chosen nor locks d and d_ff).
 */
async function takeFiles(files) {
  const list = Array.from(files || []);
  if (!list.length) return;
  const { weights, config, refused } = await sortFiles(list);
  // The file input shows only what was taken.
  if (!weights && refused.length) fileInput.value = '';
  fileError.textContent = refused.length ? `${refused.join('. ')}.${checkpoint && !weights ? ` ${checkpoint.name} stays chosen.` : ''}` : '';
  drop.classList.toggle('has-bad-file', refused.length > 0);
  if (!weights) {
    if (config && checkpoint) {
      checkpoint.configJson = await config.text();
      checkpoint.configName = config.name;
      readControls();
      describeCheckpoint();
    } else if (config) {
      fileError.textContent = `${fileError.textContent ? `${fileError.textContent} ` : ''}${config.name} alone is not a model: add the .safetensors checkpoint it describes.`;
      drop.classList.add('has-bad-file');
    }
    return;
  }
  checkpoint = {
    name: weights.name,
    size: weights.size,
    bytes: new Uint8Array(await weights.arrayBuffer()),
    configJson: config ? await config.text() : null,
    configName: config?.name ?? null,
  };
  // The file's own depth unless the reader asks for a prefix.
  $('lab-layers').value = '';
  readControls();
  describeCheckpoint();
}

function describeCheckpoint() {
  // The file's tensors give d and d_ff; the number of heads only its config.json does, so without
  // one the heads field stays open (and is sent, as the CLI's --heads).
  for (const k of ['d', 'dff']) $(`lab-${k}`).disabled = !!checkpoint;
  $('lab-heads').disabled = !!checkpoint?.configJson;
  $('lab-layers').placeholder = checkpoint ? 'all' : '';
  checkControls();
  if (!checkpoint) {
    fileInfo.textContent = 'No file: the weights are drawn from the seed.';
    fileClear.hidden = true;
    drop.classList.remove('has-file');
    return;
  }
  fileInfo.textContent = checkpoint.configName
    ? `${checkpoint.name} (${sizeText(checkpoint.size)}) with ${checkpoint.configName}: d, heads and d_ff come from the files; L (empty: all) takes a prefix of its layers; T, σ (for A and B) and the seed (token ids) from the fields.`
    : `${checkpoint.name} (${sizeText(checkpoint.size)}), no config.json: d and d_ff come from the file’s shapes, heads from the field (add the config.json to take the file’s own); L (empty: all) takes a prefix of its layers; T, σ (for A and B) and the seed (token ids) from the fields.`;
  fileClear.hidden = false;
  drop.classList.add('has-file');
}

fileInput.addEventListener('change', () => takeFiles(fileInput.files));
fileClear.addEventListener('click', () => {
  checkpoint = null;
  fileInput.value = '';
  fileError.textContent = '';
  drop.classList.remove('has-bad-file');
  if ($('lab-layers').value === '') $('lab-layers').value = PRESETS.small130m.layers;
  readControls();
  describeCheckpoint();
});
drop.addEventListener('dragover', (ev) => {
  ev.preventDefault();
  drop.classList.add('is-over');
});
drop.addEventListener('dragleave', () => drop.classList.remove('is-over'));
drop.addEventListener('drop', (ev) => {
  ev.preventDefault();
  drop.classList.remove('is-over');
  takeFiles(ev.dataTransfer?.files);
});

// ───────────── the run ─────────────

// Each stage's share of the bar, in the order a run goes through them: the share of a one-worker
// run's time each took in the default preset (the wasm module in node, Pre-LN and LNS: forward
// with the model's build 3-7 %, the end-to-end norms 76-80 %, the layer norms 16 %, the gradients
// 0.5 %).
const STAGES = { forward: [0, 0.05], 'end-to-end Jacobians': [0.05, 0.83], 'layer Jacobians': [0.83, 0.995], gradients: [0.995, 1] };

// The fraction of a stage's work done after `done` of `total` steps. The end-to-end stage finishes
// its suffixes longest first (lengths L, L − 1, ... 1), and a suffix costs about its length in layer
// passes: after m suffixes the done share is their lengths over all of them. Measured in the default
// preset, at 16 of 32 suffixes 72 % (Pre-LN) and 66 % (LNS) of the stage's time had passed (this
// weighting: 74 %); counting suffixes alone said 50 %.
function workDone(stage, done, total) {
  if (stage !== 'end-to-end Jacobians') return done / total;
  const work = (m) => (m * (2 * total - m + 1)) / 2;
  return work(done) / work(total);
}

function running(on) {
  isRunning = on;
  cancelBtn.disabled = !on;
  document.body.classList.toggle('lab-running', on);
  updateRunButton();
}

// A redraw is a pass spread over frames, one part per frame (the tables, then each figure), so
// streamed layers never cost the main thread a long frame. While layers stream in, a pass starts
// at most every PASS_INTERVAL_MS: a layer's update arriving during a pass waits for the next one
// instead of restarting it (a restart on every update redrew the tables each frame and left the
// figures behind), and each pass's frames are the only ones that change the canvases, which the
// compositor must commit (measured: commits were a third of a streamed run's main-thread time in
// software rendering). A finished placement's pass (`soon`) starts at the next frame.
const PASS_INTERVAL_MS = 400;
let drawPart = -1; // the next part to draw, -1 for the tables (body[data-lab-drawing] while a pass is due or runs)
let drawTexts = {};
let drawAgain = false; // an update arrived after the current pass began
let passTimer = 0;
let lastPassAt = -Infinity;
function scheduleDraw({ soon = false } = {}) {
  document.body.dataset.labDrawing = 'true';
  if (drawPending) {
    drawAgain = true;
    return;
  }
  const wait = soon ? 0 : Math.max(0, lastPassAt + PASS_INTERVAL_MS - performance.now());
  drawPending = true;
  clearTimeout(passTimer);
  if (wait > 0) passTimer = setTimeout(() => requestAnimationFrame(drawStep), wait);
  else requestAnimationFrame(drawStep);
}
function drawStep() {
  if (drawPart === -1) {
    lastPassAt = performance.now();
    drawAgain = false;
    for (const norm of dirtyTables) if (runs[norm] && !runs[norm].report) renderTable(tablesEl, norm, runs[norm].layers, { partial: true });
    dirtyTables.clear();
    const finished = Object.fromEntries(Object.entries(runs).filter(([, r]) => r.report).map(([n, r]) => [n, r.report]));
    drawTexts = words(finished);
  } else figures.setPart(runs, drawTexts, drawPart);
  drawPart++;
  if (drawPart < figures.parts()) {
    requestAnimationFrame(drawStep);
    return;
  }
  drawPending = false;
  drawPart = -1;
  if (drawAgain) scheduleDraw({ soon: drawSoon });
  else delete document.body.dataset.labDrawing;
  drawSoon = false;
}
let drawSoon = false; // a placement finished during the pass: the next pass starts at once

// Placements run side by side (lab/client.js): each one's share of the bar and its own stage line.
let progressOf = {};
let shareProgressOf = {};
let stageOf = {};

const client = new LabClient({
  progress(msg) {
    const [a, b] = STAGES[msg.stage] ?? [0, 1];
    const within = msg.total ? workDone(msg.stage, msg.done, msg.total) : 0;
    // A placement split into shares (lab/client.js) is as far as the mean of its shares.
    const shares = msg.shares ?? 1;
    const parts = (shareProgressOf[msg.norm] ??= new Array(shares).fill(0));
    parts[msg.share ?? 0] = a + (b - a) * within;
    progressOf[msg.norm] = parts.reduce((sum, f) => sum + f, 0) / shares;
    // The end-to-end stage counts suffixes (x_l to the top), finished longest first.
    const unit = msg.stage === 'end-to-end Jacobians' ? 'suffix' : 'layer';
    const layer = msg.stage === 'forward' || msg.stage === 'gradients' ? '' : `, ${unit} ${msg.done} of ${msg.total}`;
    const part = shares > 1 ? `, part ${(msg.share ?? 0) + 1} of ${shares}` : '';
    stageOf[`${msg.norm}/${msg.share ?? 0}`] = `${NORM_NAMES[msg.norm]} (${msg.index + 1} of ${msg.count}${part}): ${msg.stage}${layer}`;
    showProgress(msg.count);
  },
  partial(msg) {
    // An update carries only the fields just measured: merge it into its layer's row.
    const r = runs[msg.norm];
    if (!r || r.report) return;
    // The run's bound (A, B, the products; with layer 1's variance) and what the upper bounds rest
    // on (with each end-to-end norm) are the report's, not a row's: kept beside the rows.
    const { bound, upper_bound: upperBound, ...u } = msg.layer;
    if (bound) r.bound = bound;
    if (upperBound) r.upperBound = upperBound;
    let row = r.layers.find((l) => l.layer === u.layer);
    if (!row) {
      row = { layer: u.layer };
      r.layers.push(row);
      r.layers.sort((a, b) => a.layer - b.layer);
    }
    Object.assign(row, u);
    // The whole network's norm is the answer: its headline is written at once, not with the next
    // redraw of the tables and figures.
    if (u.layer === 1 && u.end_to_end_norm != null) renderAnswer();
    // The table is rebuilt with the plots, once per frame, however many updates arrived.
    dirtyTables.add(msg.norm);
    scheduleDraw();
  },
  async report(msg) {
    const report = msg.report;
    const gen = generation;
    const values = report.layers.map((l) => l.variance);
    let fit = null;
    const ready = await coreReady;
    if (gen !== generation) return; // a new run started meanwhile
    if (ready) {
      const r = core.fitPowerLaw(Float64Array.from(values));
      if (r.ok) fit = r.value;
    }
    runs[msg.norm] = { layers: report.layers, totalLayers: report.layers.length, fit, angular: report.angular_distance, report };
    progressOf[msg.norm] = 1;
    for (const key of Object.keys(stageOf)) if (key.startsWith(`${msg.norm}/`)) delete stageOf[key];
    showProgress(Object.keys(runs).length);
    renderTable(tablesEl, msg.norm, report.layers);
    renderAnswer();
    drawSoon = true;
    scheduleDraw({ soon: true });
  },
  error(msg) {
    // One line per distinct message, naming every placement it came from (a bad checkpoint fails
    // each placement with the same words), in the order of the controls whichever worker spoke
    // first.
    let entry = runErrors.find((x) => x.message === msg.message);
    if (!entry) runErrors.push((entry = { message: msg.message, norms: [] }));
    if (msg.norm && !entry.norms.includes(msg.norm)) entry.norms.push(msg.norm);
    const names = (norms) => NORMS.filter((n) => norms.includes(n)).map((n) => NORM_NAMES[n]);
    showErrors([...linkNotes, ...runErrors.map((x) => (x.norms.length ? `${names(x.norms).join(', ')}: ${x.message}` : x.message))]);
    if (checkpoint && /^(weights|config\.json|heads)\b/.test(msg.message)) drop.classList.replace('has-file', 'has-bad-file');
  },
  done() {
    running(false);
    const seconds = ((performance.now() - startedAt) / 1000).toFixed(1);
    const failed = runErrors.length > 0;
    progressEl.value = failed ? progressEl.value : 1;
    progressEl.setAttribute('aria-valuenow', String(progressEl.value));
    stageEl.textContent = '';
    const split = document.body.dataset.labShares === '2' ? ' Each placement was measured in two halves by two workers side by side, and the halves joined.' : '';
    setStatus(failed ? `Finished with an error after ${seconds} s (the message is below).` : `Finished in ${seconds} s.${split}`, failed);
    document.body.dataset.labState = failed ? 'error' : 'done';
    renderAnswer();
  },
  cancelled() {
    running(false);
    stageEl.textContent = '';
    setStatus(`Cancelled after ${((performance.now() - startedAt) / 1000).toFixed(1)} s; what this run measured stays on screen.`);
    document.body.dataset.labState = 'cancelled';
    renderAnswer();
    scheduleDraw({ soon: true });
  },
});

function showProgress(count) {
  const total = Object.values(progressOf).reduce((sum, f) => sum + f, 0);
  progressEl.value = count ? total / count : 0;
  progressEl.setAttribute('aria-valuenow', String(progressEl.value));
  const stage = Object.values(stageOf).join(' · ');
  if (stageEl.textContent !== stage) stageEl.textContent = stage;
  // The elapsed time too: a default run takes a while, and a reader should see it moving.
  if (stage) setStatus(`Running, ${Math.floor((performance.now() - startedAt) / 1000)} s so far, ${Math.round(progressEl.value * 100)} % done.`);
}

/**
 * Whether the explorer's core takes the power law σ_l² = c·l^q (decimals as carried) for `family`
 * with this run's A and B at depth N: null when it does, else the core's reason.
 */
function explorerJudge(ready) {
  return (family, { a, b, c, q, n }) => {
    if (!ready) return 'the explorer’s core did not load here to judge it';
    const r = core.evaluate({ family, a, b, variance: { kind: 'power', c, q }, n });
    return r.ok ? null : String(r.error);
  };
}

/**
 * The answer panel, from this run only: one headline per placement whose whole-network norm is in,
 * the sentence comparing them, the summary of each finished placement and the hand-off of what
 * was measured. Called when layer 1's end-to-end norm or a report arrives, and when the run ends.
 */
async function renderAnswer() {
  const gen = generation;
  const order = NORMS.filter((n) => runs[n]);
  const items = [];
  const stopped = ['cancelled', 'error'].includes(document.body.dataset.labState);
  for (const n of order) {
    const text = headline(n, runs[n], { stopped });
    if (!text) continue;
    const p = document.createElement('p');
    p.className = 'lab-headline';
    p.dataset.norm = n;
    p.dataset.testid = `lab-headline-${n}`;
    rich(p, text);
    items.push(p);
  }
  const compare = comparison(runs, { stopped });
  if (compare) {
    const p = document.createElement('p');
    p.className = 'lab-headline-compare';
    p.dataset.testid = 'lab-headline-compare';
    rich(p, compare);
    items.push(p);
  }
  if (!items.length) {
    const p = document.createElement('p');
    p.className = 'hint';
    const state = document.body.dataset.labState;
    rich(p, state === 'cancelled'
      ? 'Cancelled before any placement’s whole-network norm ‖∂x_{L+1}/∂x_1‖₂ was measured; what was measured is in the tables and figures below.'
      : state === 'error'
        ? 'No whole-network norm was measured: see the message at the top.'
        : MEASURING);
    items.push(p);
  }
  headlinesEl.replaceChildren(...items);
  // The summary of each finished placement, in the order of the controls.
  const done = order.filter((n) => runs[n].report);
  let ul = summaryEl.querySelector('ul');
  if (!ul) {
    ul = document.createElement('ul');
    ul.className = 'lab-summary-list';
    summaryEl.replaceChildren(ul);
  }
  ul.replaceChildren(...done.map((n) => summaryItem(n, runs[n].report)));
  // The hand-off: what this run finished, judged by the explorer's own core.
  const ready = await coreReady;
  if (gen !== generation) return;
  const h = handoff({
    reports: Object.fromEntries(done.map((n) => [n, runs[n].report])),
    measured: order,
    labFragment: runFragment,
    judge: explorerJudge(ready),
  });
  setHandoff(h);
}

/** Shows the hand-off links (or why there is none) as `handoff` (lab/handoff.js) gives them. */
function setHandoff(h) {
  if (h.list) {
    handoff_.href = h.list.href;
    handoff_.removeAttribute('aria-disabled');
    rich(handoffNote, h.list.note);
  } else {
    handoff_.href = 'index.html';
    handoff_.setAttribute('aria-disabled', 'true');
    rich(handoffNote, h.note ?? '');
  }
  $('lab-fit-handoff').hidden = !h.fit && !(h.list && h.note);
  if (h.fit) {
    fitLink.hidden = false;
    fitLink.href = h.fit.href;
    rich(fitNote, h.fit.note);
  } else {
    fitLink.hidden = true;
    fitLink.href = 'index.html';
    rich(fitNote, h.list && h.note ? h.note : '');
  }
}

/** The answer panel before a run's first number: no sentence of an earlier run stays. */
function resetAnswer() {
  renderAnswerIdle();
  summaryEl.replaceChildren();
  setHandoff({ list: null, fit: null, note: 'After a run: the measured σ_l² of each placement, with A and B.' });
}
function renderAnswerIdle() {
  const p = document.createElement('p');
  p.className = 'hint';
  rich(p, MEASURING);
  headlinesEl.replaceChildren(p);
}
const MEASURING = 'Measuring… each placement’s whole-network norm ‖∂x_{L+1}/∂x_1‖₂ appears here as soon as it is measured, then beside its own certified bound.';

function run() {
  readControls();
  runErrors = [];
  showErrors(linkNotes);
  const r = specsOf(state, { checkpoint: !!checkpoint, config: !!checkpoint?.configJson });
  if (r.errors) {
    // The fields say what is wrong (checkControls); a link with run=1 lands here too.
    setStatus('Not started: the form has a problem (see the message at its field).', true);
    document.body.dataset.labState = 'error';
    return;
  }
  generation++;
  runFragment = toFragment(state).slice(1);
  runs = Object.fromEntries(state.norms.map((n) => [n, { layers: [], totalLayers: null, fit: null, angular: null, report: null, bound: null, upperBound: null }]));
  clearTables(tablesEl);
  resetAnswer();
  progressEl.value = 0;
  progressEl.setAttribute('aria-valuenow', '0');
  progressOf = {};
  shareProgressOf = {};
  stageOf = {};
  stageEl.textContent = '';
  scheduleDraw();
  startedAt = performance.now();
  running(true);
  document.body.dataset.labState = 'running';
  setStatus('Running…');
  const spread = client.start(r.specs, checkpoint ? { weights: checkpoint.bytes, configJson: checkpoint.configJson } : {});
  // How the run is spread over workers (lab/client.js), for the finished status and the tests.
  document.body.dataset.labWorkers = String(spread.size);
  document.body.dataset.labShares = String(spread.shares);
}

runBtn.addEventListener('click', () => {
  linkNotes = [];
  run();
});
cancelBtn.addEventListener('click', () => client.cancel());

// ───────────── start ─────────────

fillControls();
describeCheckpoint();
running(false);
if (parsed.problems.length) showErrors(parsed.problems);
setStatus('Ready: choose a network and press Run.');
document.body.dataset.labState = 'ready';
// The explorer's core draws the fitted power law (its own least-squares fit); the lab runs without it.
coreReady = core.initCore().then((err) => err === null);
if (parsed.run) run();
