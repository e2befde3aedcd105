// The lab page's words, without a browser: the headline of each placement and the sentence comparing
// them (www/js/lab/answer.js), the hand-off links and their notes (lab/handoff.js), the numbers'
// digits (lab/numbers.js) and the form's checks (lab/state.js), fed with real reports of the lab's own
// wasm module (what the page's worker runs) and with the same reports carrying the report contract's
// optional fields changed (a probabilistic upper bound and its probability, a measured interval),
// and with the stream as the page's worker hears it (the headline is written from it). Also: no
// lab module computes a transcendental function (the words use the logs the lab reports).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';

const pkg = new URL('../../www/pkg/', import.meta.url);
const lab = await import(new URL('depthlab_wasm.js', pkg));
lab.initSync({ module: readFileSync(new URL('depthlab_wasm_bg.wasm', pkg)) });
const { headline, comparison, boundOf } = await import('../../www/js/lab/answer.js');
const { handoff } = await import('../../www/js/lab/handoff.js');
const { agreedDigits, fifteen, six, measuredText, probabilityText, exponentAtLeast } = await import('../../www/js/lab/numbers.js');
const { fieldProblems, specsOf, defaultState } = await import('../../www/js/lab/state.js');

const SMALL = { d: 16, heads: 2, dff: 40, tokens: 4, layers: 3, std: 0.02, seed: 7 };
const reports = Object.fromEntries(['pre', 'lns', 'post'].map((norm) => [norm, lab.runLab({ ...SMALL, norm })]));
const runOf = (report) => ({ layers: report.layers, report });
const clone = (x) => JSON.parse(JSON.stringify(x));
/** The text a reader sees of rich() notation: braces and carets gone. */
const plainText = (s) => s.replace(/[{}^]/g, '').replace(/_/g, '');

test('a headline gives the measured whole-network norm, its own certified bound and their ratio from the report', () => {
  const r = reports.pre;
  const l1 = r.layers[0];
  const text = headline('pre', runOf(r));
  assert.ok(text.startsWith(`Pre-LN (L = 3): the whole network’s Jacobian ‖∂x_{4}/∂x_1‖₂ is ${measuredText(l1.end_to_end_norm, l1.end_to_end.interval)} (measured; its residual gives the interval [`), text);
  // The bound's digits are those both ends of its certified enclosure agree on.
  const digits = text.match(/Its certified Eq\. 9 bound \(the unscaled product over the 3 layers with the measured σ_l²\) is e\^\{([\d.]+)\}/)[1];
  assert.equal(agreedDigits(l1.bound_unscaled_log.lo, l1.bound_unscaled_log.hi, 7), digits);
  assert.ok(digits.replace(/\D/g, '').length >= 6, digits);
  // The ratio is the lab's own log of bound over measured, to four digits.
  const ratio = text.match(/the Eq\. 9 bound is e\^\{([\d.]+)\} times this network’s measured Jacobian norm\.$/)[1];
  assert.equal(Number(ratio), Number(l1.looseness_unscaled_log.toPrecision(4)));
  // LNS against its own bound, Eq. 15.
  const lns = headline('lns', runOf(reports.lns));
  assert.match(lns, /Its certified Eq\. 15 bound \(the scaled product/);
  assert.match(lns, new RegExp(`the Eq\\. 15 bound is e\\^\\{${reports.lns.layers[0].looseness_scaled_log.toPrecision(4).replace('.', '\\.')}\\}`));
  // Post-LN has no bound of its own in the paper: the Eq. 9 product is a reference, said so.
  const post = headline('post', runOf(reports.post));
  assert.match(post, /The paper proves no bound for Post-LN; as a reference, not a bound Post-LN is known to obey, Pre-LN’s Eq\. 9 product/);
  assert.equal(boundOf('post').own, false);
});

test('a headline is written from layer 1’s streamed row alone, and says the bound follows with the report', () => {
  const row = { layer: 1, variance: 1e-3, end_to_end_norm: 12.25, end_to_end: { norm: 12.25 } };
  const text = headline('pre', { layers: [row, { layer: 2 }, { layer: 3 }], report: null });
  assert.equal(text, 'Pre-LN (L = 3): the whole network’s Jacobian ‖∂x_{4}/∂x_1‖₂ is 12.25 (measured: a Rayleigh quotient, so a lower bound). Its certified Eq. 9 bound comes with this placement’s report, when its run finishes.');
  assert.equal(headline('pre', { layers: [{ layer: 1, variance: 1e-3 }], report: null }), null, 'no headline before the norm');
});

/**
 * A run as lab/main.js holds it while it streams: the updates merged into rows, the report's
 * `bound` and `upper_bound` kept beside them, up to and with the first update for which `until`
 * holds.
 */
function streamedUntil(norm, until) {
  const run = { layers: [], report: null, bound: null, upperBound: null };
  let done = false;
  lab.runLab({ ...SMALL, norm }, undefined, undefined, undefined, (update) => {
    if (done) return;
    const { bound, upper_bound: upperBound, ...u } = update;
    if (bound) run.bound = bound;
    if (upperBound) run.upperBound = upperBound;
    let row = run.layers.find((l) => l.layer === u.layer);
    if (!row) run.layers.push((row = { layer: u.layer }));
    Object.assign(row, u);
    done = until(update);
  });
  run.layers.sort((a, b) => a.layer - b.layer);
  return run;
}

test('the headline written when layer 1’s end-to-end norm streams in is the finished report’s: the bound, its ratio and the upper bound’s probability come first', () => {
  const layerOne = (u) => u.layer === 1 && u.end_to_end_norm != null;
  for (const norm of ['pre', 'lns', 'post']) {
    const streamed = streamedUntil(norm, layerOne);
    // Nothing but the variances, the bounds and that one norm has arrived.
    assert.ok(streamed.layers.every((l) => l.jacobian_norm == null && (l.layer === 1 || l.end_to_end_norm == null)), norm);
    assert.ok(streamed.bound && streamed.upperBound, norm);
    const text = headline(norm, streamed);
    assert.equal(text, headline(norm, runOf(reports[norm])), norm);
    assert.match(text, /with probability at least 0\.999 \(for this l; an upper bound from \d+ Gaussian probes, not certified\)\./, norm);
    assert.match(text, /Eq\. (9|15) (bound|product) \(the (un)?scaled product over the 3 layers/, norm);
  }
  const runs = { pre: streamedUntil('pre', layerOne), lns: streamedUntil('lns', layerOne) };
  assert.equal(comparison(runs), comparison({ pre: runOf(reports.pre), lns: runOf(reports.lns) }));
  assert.match(comparison(runs), /or more below their own bounds \(Eq\. 9 for Pre-LN, Eq\. 15 for LNS\)\.$/);
});

test('the report contract’s upper bound, probability and measured interval are used when present, and labelled', () => {
  const r = clone(reports.pre);
  const n = r.layers[0].end_to_end_norm;
  r.layers[0].end_to_end_upper = n * 1.37;
  r.layers[0].end_to_end.interval = [n * (1 - 1e-9), n * (1 + 1e-9)];
  // Without the report's probability the upper bound is not shown (it would be an unlabelled claim).
  r.upper_bound = null;
  assert.doesNotMatch(headline('pre', runOf(r)), /at most/);
  r.upper_bound = { probes: 16, probability: 0.9990000000000001, simultaneous: true };
  const text = headline('pre', runOf(r));
  assert.match(text, new RegExp(`is ${measuredText(n, r.layers[0].end_to_end.interval).replace('.', '\\.')} \\(measured; its residual gives the interval \\[[\\d.]+, [\\d.]+\\], a measurement, not certified\\) and at most [\\d.]+ with probability at least 0\\.999 \\(for every l at once; an upper bound from 16 Gaussian probes, not certified\\)\\.`));
  const upper = Number(text.match(/and at most ([\d.]+) with/)[1]);
  assert.ok(upper >= n * 1.37 && upper <= n * 1.37 * 1.001, `${upper} rounds the upper bound ${n * 1.37} up`);
  r.upper_bound.simultaneous = false;
  assert.match(headline('pre', runOf(r)), /\(for this l; an upper bound from 16 Gaussian probes/);
  // A probability is rounded down, so "at least" stays true.
  assert.ok(Number(probabilityText(0.99999999)) <= 0.99999999 && Number(probabilityText(0.99999999)) >= 0.99999, probabilityText(0.99999999));
  assert.equal(probabilityText(0.999), '0.999');
});

test('a norm whose iteration stopped short of its tolerance says so', () => {
  const r = clone(reports.pre);
  r.layers[0].end_to_end.converged = false;
  assert.match(headline('pre', runOf(r)), /, a measurement, not certified; the iteration stopped before reaching its tolerance\) and at most/);
  // Without an interval: the norm is still a lower bound.
  r.layers[0].end_to_end.interval = null;
  assert.match(headline('pre', runOf(r)), /\(measured: a Rayleigh quotient, so a lower bound; the iteration stopped before reaching its tolerance\) and at most/);
});

test('a measured norm above its own bound is said to break the bound, not called a ratio', () => {
  const r = clone(reports.pre);
  r.layers[0].looseness_unscaled_log = -2.5;
  assert.match(headline('pre', runOf(r)), /and the measured norm is e\^\{2\.5\} times above it: the bound does not hold for this network/);
});

test('the comparison: the ratio of the measured norms and how far below their own bounds both are', () => {
  const runs = { pre: runOf(reports.pre), lns: runOf(reports.lns) };
  const text = comparison(runs);
  const [pre, lns] = [reports.pre.layers[0], reports.lns.layers[0]];
  const [small, large, smallName, largeName] = pre.end_to_end_norm < lns.end_to_end_norm ? [pre, lns, 'Pre-LN', 'LNS'] : [lns, pre, 'LNS', 'Pre-LN'];
  const ratio = Number((large.end_to_end_norm / small.end_to_end_norm).toPrecision(2));
  assert.ok(text.startsWith(`${smallName}’s whole-network Jacobian is ${ratio}× smaller than ${largeName}’s (${measuredText(small.end_to_end_norm)} against ${measuredText(large.end_to_end_norm)}, both measured)`), text);
  const least = Math.min(pre.looseness_unscaled_log, lns.looseness_scaled_log);
  assert.ok(text.endsWith(`; both measured norms are e^{${exponentAtLeast(least)}} or more below their own bounds (Eq. 9 for Pre-LN, Eq. 15 for LNS).`), text);
  assert.ok(Number(exponentAtLeast(least)) <= least, 'rounded down');
  // Before the bounds are known (a stream without them): the ratio only, and what follows.
  const unbounded = (r) => r.layers.map(({ looseness_unscaled_log, looseness_scaled_log, ...row }) => row);
  const streaming = { pre: { layers: unbounded(reports.pre), report: null }, lns: { layers: unbounded(reports.lns), report: null } };
  assert.match(comparison(streaming), /; how far below Pre-LN’s Eq\. 9 and LNS’s Eq\. 15 bounds they are follows with their reports\.$/);
  // One placement: no comparison. Three: the smallest and the largest, and who has no bound.
  assert.equal(comparison({ pre: runs.pre }), null);
  assert.match(comparison({ ...runs, post: runOf(reports.post) }), /^Of the 3 placements, .* The paper proves no bound for Post-LN\.$/);
});

test('the hand-off: Pre-LN’s list to the unscaled product, LNS’s to the scaled one, N = L, the doubles exactly', () => {
  const h = handoff({ reports: { pre: reports.pre, lns: reports.lns }, measured: ['pre', 'lns'], labFragment: 'norms=pre,lns&d=16', judge: () => null });
  const url = new URL(h.list.href, 'http://x/');
  assert.equal(url.pathname, '/index.html');
  const params = new URLSearchParams(url.hash.slice(1));
  assert.equal(params.get('families'), 'unscaled,scaled');
  assert.ok(Object.is(Number(params.get('a')), reports.pre.bound.a) && Object.is(Number(params.get('b')), reports.pre.bound.b));
  assert.deepEqual(params.get('unscaled.list').split(',').map(Number), reports.pre.layers.map((l) => l.variance));
  assert.deepEqual(params.get('scaled.list').split(',').map(Number), reports.lns.layers.map((l) => l.variance));
  assert.equal(params.get('n'), '3');
  assert.equal(params.get('lab'), 'norms=pre,lns&d=16');
  assert.equal(params.get('variance'), null);
  assert.match(h.list.note, /^Carries Pre-LN’s 3 measured σ_l² to the unscaled product \(Eq\. 9\) and LNS’s 3 to the scaled product \(Eq\. 15\), with A = [\d.]+ and B = [\d.e-]+ .* N = 3: one factor per layer, from the variances of the layer inputs x_1 … x_\{3\}\./);
  assert.ok(h.list.note.includes(`A = ${fifteen(reports.pre.bound.a)} and B = ${fifteen(reports.pre.bound.b)}`));
  // The fitted power laws, each to its placement's product, six digits.
  const fit = new URLSearchParams(new URL(h.fit.href, 'http://x/').hash.slice(1));
  assert.equal(fit.get('unscaled.c'), six(reports.pre.fit_power.c));
  assert.equal(fit.get('unscaled.q'), six(reports.pre.fit_power.rate));
  assert.equal(fit.get('scaled.c'), six(reports.lns.fit_power.c));
  assert.equal(fit.get('scaled.q'), six(reports.lns.fit_power.rate));
  assert.equal(fit.get('n'), '3');
});

test('the hand-off of one placement is the shared list; a refused power law is said, and its product left out', () => {
  const one = handoff({ reports: { post: reports.post }, measured: ['post'], judge: () => null });
  const params = new URLSearchParams(new URL(one.list.href, 'http://x/').hash.slice(1));
  assert.equal(params.get('variance'), 'list');
  assert.deepEqual(params.get('list').split(',').map(Number), reports.post.layers.map((l) => l.variance));
  assert.equal(params.get('n'), '3');
  assert.match(one.list.note, /^Carries Post-LN’s 3 measured σ_l² as the list both products use/);
  // The explorer's core refuses LNS's law only: the fit link carries Pre-LN's, for the unscaled product alone.
  const judge = (family, { c }) => (family === 'scaled' ? `c = ${c} is outside the supported range` : null);
  const h = handoff({ reports: { pre: reports.pre, lns: reports.lns }, measured: ['pre', 'lns'], judge });
  const fit = new URLSearchParams(new URL(h.fit.href, 'http://x/').hash.slice(1));
  assert.equal(fit.get('families'), 'unscaled');
  assert.equal(fit.get('scaled.c'), null);
  assert.match(h.fit.note, new RegExp(`LNS’s fitted power law stays here: c = ${six(reports.lns.fit_power.c)} is outside the supported range`));
  // Both refused: no fit link, the reasons instead.
  const none = handoff({ reports: { pre: reports.pre }, measured: ['pre'], judge: () => 'refused' });
  assert.equal(none.fit, null);
  assert.equal(none.note, 'Pre-LN’s fitted power law stays here: refused.');
});

test('after a cancel, the hand-off offers what finished and says what did not', () => {
  const h = handoff({ reports: { pre: reports.pre }, measured: ['pre', 'lns'], judge: () => null });
  assert.match(h.list.note, /^Carries Pre-LN’s 3 measured σ_l² as the list both products use.* Not carried: LNS \(a placement without a finished report has no A, B or bound to hand over; the link carries one list\)\.$/);
  const nothing = handoff({ reports: {}, measured: ['pre', 'lns'] });
  assert.equal(nothing.list, null);
  assert.match(nothing.note, /^No placement finished: A and B .* come with a placement’s report/);
});

test('numbers: the digits an interval supports, no floating-point noise', () => {
  // Ends that agree at 8 digits can round apart at 6: fewer digits are then shown.
  assert.equal(agreedDigits(1.2345649999, 1.2345650001, 6), '1.2346');
  assert.equal(agreedDigits(144.70675620739104, 144.70675620739178, 7), '144.7068');
  assert.equal(agreedDigits(1, 2, 6), null);
  assert.equal(fifteen(0.016384000000000003), '0.016384');
  assert.equal(fifteen(6.098979102761133), '6.09897910276113');
  assert.equal(six(0.0004926735349444931), '0.000492674');
  assert.equal(measuredText(352.4082769129284), '352.408');
  assert.equal(measuredText(352.4082769129284, [352.40827, 352.40828]), '352.408');
});

test('the form: whole numbers, the lab’s ranges and heads dividing d, at the field', () => {
  const state = defaultState();
  assert.deepEqual(fieldProblems(state), {});
  const bad = { ...state, text: { ...state.text, d: '16x', layers: '0', std: '11', seed: '9007199254740993' } };
  assert.deepEqual(fieldProblems(bad), {
    d: 'd: “16x” is not a whole number; expected a whole number in [2, 8192]',
    layers: 'layers = 0 is out of range: expected a whole number in [1, 1024]',
    std: 'init_std = 11 is out of range: expected a number in [0, 10]',
    seed: 'seed = 9007199254740993 is out of range: expected a whole number in [0, 2^53]',
  });
  assert.equal(fieldProblems({ ...state, text: { ...state.text, heads: '3' } }).heads, 'heads = 3 must divide d = 128');
  assert.equal(fieldProblems({ ...state, text: { ...state.text, heads: '128' } }).heads, 'd / heads = 1 must be even (rotary embeddings rotate pairs)');
  assert.equal(fieldProblems({ ...state, text: { ...state.text, tokens: '4096', d: '512' } }).tokens, 'tokens x d = 2097152 is out of range: expected at most 1048576');
  assert.equal(fieldProblems({ ...state, norms: [] }).norms, 'norms: choose at least one placement');
  // With a checkpoint d and d_ff are the file's, an empty L all its layers.
  assert.deepEqual(fieldProblems({ ...state, text: { ...state.text, d: '', dff: 'x', layers: '' } }, { checkpoint: true }), {});
  assert.deepEqual(specsOf(bad).errors.length, 4);
});

test('no lab module computes a transcendental function: the words use the logs the lab reports', () => {
  const dir = new URL('../../www/js/lab/', import.meta.url);
  const found = [];
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.js'))) {
    const code = readFileSync(new URL(f, dir), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
    code.split('\n').forEach((line, i) => {
      if (/\bMath\.(exp|expm1|log|log1p|log2|log10|pow|sqrt|cbrt|sin|cos|tan|atan2?|hypot)\s*\(|\*\*/.test(line)) found.push(`lab/${f}:${i + 1}: ${line.trim()}`);
    });
  }
  assert.deepEqual(found, []);
});
