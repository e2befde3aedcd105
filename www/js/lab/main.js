// The lab page: wires the fragment, the controls, the worker client, the tables and the figures.
// Every measurement runs in the worker (lab/worker.js); this thread only draws what arrives.

import { NORMS, NORM_NAMES, FIELDS, PRESETS, parseFragment, toFragment, specsOf } from './state.js';
import { LabClient } from './client.js';
import { renderTable, clearTables, summaryItem, words } from './view.js';
import { LabFigures } from './plots.js';
import * as core from '../common/core.js';
import { plain } from '../common/format.js';
import { rich } from '../common/rich.js';

/**
 * Largest checkpoint the tab takes. wasm32 memory ends at 4 GiB; the file's bytes are copied into it
 * and its weights widened to f64 (4x for f16/bf16), so 128 MiB of file is up to ~0.6 GiB before the
 * run's own buffers. Larger files go to the CLI (the message names the command).
 */
export const MAX_CHECKPOINT_BYTES = 128 * 1024 * 1024;

const $ = (id) => document.getElementById(id);
const statusEl = $('lab-status');
const errorEl = $('lab-error');
const progressEl = $('lab-progress');
const stageEl = $('lab-stage');
const runBtn = $('lab-run');
const cancelBtn = $('lab-cancel');
const tablesEl = $('lab-tables');
const summaryEl = $('lab-summary');
const handoff = $('lab-to-explorer');
const fileInput = $('lab-file');
const fileInfo = $('lab-file-info');
const fileClear = $('lab-file-clear');
const drop = $('lab-drop');

const parsed = parseFragment(location.hash);
let state = parsed.state;
let checkpoint = null; // { name, bytes: Uint8Array, configJson: string | null, configName }
let runs = {}; // norm → { layers, totalLayers, fit, angular, report }
let startedAt = 0;
let runErrors = []; // [{ message, norms }] of the run in flight
// What the link's fragment got wrong (unknown keys or placements): shown until the reader starts a
// run themselves, so a link with run=1 does not wipe them before they are read.
let linkNotes = parsed.problems;
let drawPending = false;
const dirtyTables = new Set(); // placements whose streamed rows changed since the last frame
let coreReady = null;

const figures = new LabFigures($('lab-figures'));

function setStatus(text, isError = false) {
  statusEl.textContent = text;
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
}

document.querySelector('.lab-controls').addEventListener('change', (ev) => {
  if (ev.target === fileInput) return;
  readControls();
});
document.querySelector('.lab-controls').addEventListener('input', (ev) => {
  if (ev.target.matches('input[type="text"]')) readControls();
});
for (const b of document.querySelectorAll('[data-preset]')) {
  b.addEventListener('click', () => {
    Object.assign(state.text, PRESETS[b.dataset.preset]);
    fillControls();
    readControls();
  });
}

// ───────────── checkpoint ─────────────

function mib(n) {
  if (n < 1048576) return `${Math.max(1, Math.round(n / 1024))} KiB`;
  return `${(n / 1048576).toFixed(1)} MiB`;
}

async function takeFiles(files) {
  errorEl.textContent = '';
  const list = Array.from(files || []);
  const weights = list.find((f) => /\.safetensors$/i.test(f.name)) || list.find((f) => !/\.json$/i.test(f.name));
  const config = list.find((f) => /\.json$/i.test(f.name));
  if (!weights) {
    if (config && checkpoint) {
      checkpoint.configJson = await config.text();
      checkpoint.configName = config.name;
      describeCheckpoint();
    } else showErrors([`checkpoint: choose a .safetensors file${config ? ' (a config.json alone is not a model)' : ''}`]);
    return;
  }
  if (weights.size > MAX_CHECKPOINT_BYTES) {
    showErrors([`checkpoint: ${weights.name} is ${mib(weights.size)}; this tab takes files up to ${mib(MAX_CHECKPOINT_BYTES)}. For larger checkpoints use the command line: depthprod lab --weights ${weights.name}`]);
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
  if (!checkpoint) {
    fileInfo.textContent = 'No file: the weights are drawn from the seed.';
    fileClear.hidden = true;
    drop.classList.remove('has-file', 'has-bad-file');
    return;
  }
  fileInfo.textContent = checkpoint.configName
    ? `${checkpoint.name} (${mib(checkpoint.size)}) with ${checkpoint.configName}: d, heads and d_ff come from the files; L (empty: all) takes a prefix of its layers; T, σ (for A and B) and the seed (token ids) from the fields.`
    : `${checkpoint.name} (${mib(checkpoint.size)}), no config.json: d and d_ff come from the file’s shapes, heads from the field (add the config.json to take the file’s own); L (empty: all) takes a prefix of its layers; T, σ (for A and B) and the seed (token ids) from the fields.`;
  fileClear.hidden = false;
  drop.classList.remove('has-bad-file');
  drop.classList.add('has-file');
}

fileInput.addEventListener('change', () => takeFiles(fileInput.files));
fileClear.addEventListener('click', () => {
  checkpoint = null;
  fileInput.value = '';
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

const STAGES = { forward: [0, 0.04], 'layer Jacobians': [0.04, 0.3], 'end-to-end Jacobians': [0.3, 0.96], gradients: [0.96, 1] };

// The fraction of a stage's work done after `done` of `total` steps. The end-to-end stage finishes
// its suffixes shortest first (lengths 1, 2, ... L), and a suffix costs its checks times its length:
// in the default preset its cost grows about as length + 4 (fewer checks on longer suffixes).
// Counting suffixes alone showed half the stage done at 16 of 32 suffixes, when 32 % of its layer
// passes were (this weighting: 30 %). A second share (lab/client.js) holds only the longest
// suffixes, of about equal cost: counted as they are.
function workDone(stage, done, total, share = 0) {
  if (stage !== 'end-to-end Jacobians' || share > 0) return done / total;
  const work = (m) => (m * (m + 1)) / 2 + 4 * m;
  return work(done) / work(total);
}

function running(on) {
  runBtn.disabled = on;
  cancelBtn.disabled = !on;
  document.body.classList.toggle('lab-running', on);
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
    const within = msg.total ? workDone(msg.stage, msg.done, msg.total, msg.share) : 0;
    // A placement split into shares (lab/client.js) is as far as the mean of its shares.
    const shares = msg.shares ?? 1;
    const parts = (shareProgressOf[msg.norm] ??= new Array(shares).fill(0));
    parts[msg.share ?? 0] = a + (b - a) * within;
    progressOf[msg.norm] = parts.reduce((sum, f) => sum + f, 0) / shares;
    // The end-to-end stage counts suffixes (x_l to the top), finished shortest first.
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
    const u = msg.layer;
    let row = r.layers.find((l) => l.layer === u.layer);
    if (!row) {
      row = { layer: u.layer };
      r.layers.push(row);
      r.layers.sort((a, b) => a.layer - b.layer);
    }
    Object.assign(row, u);
    // The table is rebuilt with the plots, once per frame, however many updates arrived.
    dirtyTables.add(msg.norm);
    scheduleDraw();
  },
  async report(msg) {
    const report = msg.report;
    const values = report.layers.map((l) => l.variance);
    let fit = null;
    if (await coreReady) {
      const r = core.fitPowerLaw(Float64Array.from(values));
      if (r.ok) fit = r.value;
    }
    runs[msg.norm] = { layers: report.layers, totalLayers: report.layers.length, fit, angular: report.angular_distance, report };
    progressOf[msg.norm] = 1;
    for (const key of Object.keys(stageOf)) if (key.startsWith(`${msg.norm}/`)) delete stageOf[key];
    showProgress(Object.keys(runs).length);
    renderTable(tablesEl, msg.norm, report.layers);
    // Placements finish in any order: the summary and the hand-off follow the order chosen.
    const ul = summaryEl.querySelector('ul');
    ul?.replaceChildren(...Object.keys(runs).filter((n) => runs[n].report).map((n) => summaryItem(n, runs[n].report)));
    const first = Object.keys(runs).find((n) => runs[n].report);
    if (first === msg.norm) setHandoff(report, await coreReady);
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
    setStatus(failed ? `Finished with an error after ${seconds} s (see below the Run button).` : `Finished in ${seconds} s.${split}`, failed);
    document.body.dataset.labState = failed ? 'error' : 'done';
  },
  cancelled() {
    running(false);
    stageEl.textContent = '';
    setStatus(`Cancelled after ${((performance.now() - startedAt) / 1000).toFixed(1)} s; layers already measured stay on screen.`);
    document.body.dataset.labState = 'cancelled';
  },
});

function showProgress(count) {
  const total = Object.values(progressOf).reduce((sum, f) => sum + f, 0);
  progressEl.value = count ? total / count : 0;
  progressEl.setAttribute('aria-valuenow', String(progressEl.value));
  stageEl.textContent = Object.values(stageOf).join(' · ');
  // The elapsed time too: a default run takes a while, and a reader should see it moving.
  if (stageEl.textContent) setStatus(`Running, ${Math.floor((performance.now() - startedAt) / 1000)} s so far… ${stageEl.textContent}`);
}

/**
 * Whether the explorer can take the fitted power law: its core judges c and q (its supported range;
 * the lab's fit at σ = 0.02 gives c ≈ 4e-4, below it). Returns null when it can, else the core's
 * reason.
 */
function explorerRefuses(fit, ready) {
  if (!ready) return 'the explorer’s core did not load here to judge it';
  const r = core.evaluate({ family: 'scaled', a: 1, b: 1, variance: { kind: 'power', c: String(fit.c), q: String(fit.rate) }, n: 1 });
  return r.ok ? null : String(r.error);
}

function setHandoff(report, ready) {
  const list = report.layers.map((l) => String(l.variance)).join(',');
  const b = report.bound;
  const fit = report.fit_power;
  const refused = fit ? explorerRefuses(fit, ready) : null;
  // c and q fill the explorer's power-law fields (used when the reader switches from the list to
  // the power law); the list itself is what the list view evaluates.
  const cq = fit && !refused ? `&c=${String(fit.c)}&q=${String(fit.rate)}` : '';
  // lab=: this view's own fragment, so the explorer's link back reopens it (without run=1).
  const back = `&lab=${encodeURIComponent(toFragment(state).slice(1))}`;
  handoff.href = `index.html#families=unscaled,scaled&a=${String(b.a)}&b=${String(b.b)}${cq}&variance=list&list=${list}${back}`;
  handoff.removeAttribute('aria-disabled');
  const who = `${NORM_NAMES[report.config.placement] ?? 'the first placement'}’s ${report.layers.length} measured variances, A = ${String(b.a)}, B = ${String(b.b)}`;
  const fitNote = !fit
    ? ''
    : refused
      ? `; the fitted power law (c = ${plain(fit.c, 4)}, q = ${plain(fit.rate, 4)}) stays here, as ${refused}; the explorer fits its own to the list`
      : `, and the fitted power law c = ${String(fit.c)}, q = ${String(fit.rate)}`;
  rich($('lab-handoff-note'), `(${who}${fitNote})`);
}

function run() {
  readControls();
  runErrors = [];
  showErrors(linkNotes);
  const r = specsOf(state, { checkpoint: !!checkpoint, config: !!checkpoint?.configJson });
  if (r.errors) {
    showErrors(r.errors);
    setStatus('Not started: see the message below the Run button.', true);
    document.body.dataset.labState = 'error';
    return;
  }
  runs = Object.fromEntries(state.norms.map((n) => [n, { layers: [], totalLayers: null, fit: null, angular: null, report: null }]));
  clearTables(tablesEl);
  const ul = document.createElement('ul');
  ul.className = 'lab-summary-list';
  summaryEl.replaceChildren(ul);
  handoff.href = 'index.html';
  handoff.setAttribute('aria-disabled', 'true');
  progressEl.value = 0;
  progressEl.setAttribute('aria-valuenow', '0');
  progressOf = {};
  shareProgressOf = {};
  stageOf = {};
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
