// The lab page's module worker: loads the lab's own wasm (../pkg/depthlab_wasm.js, never the
// explorer's) and runs one measurement per norm placement, posting as it goes. It computes
// nothing itself; `runLab` (crates/depthlab-wasm) does. Messages in: {type: 'run', specs: [spec],
// weights?: Uint8Array, configJson?: string}. Messages out: {type: 'ready'}, {type: 'progress',
// norm, index, count, stage, done, total}, {type: 'partial', norm, layer} (one finished layer, when
// the lab streams them), {type: 'report', norm, report}, {type: 'error', norm, message},
// {type: 'done'}; and {type: 'merge', norm, reports} (the reports of one placement's shares) ->
// {type: 'report', norm, report, merged: true} or {type: 'error', norm, message, merged: true},
// through `mergeLabShares`. Cancelling is the page terminating this worker (lab/client.js): the wasm runs
// synchronously here and cannot be interrupted from outside, and terminate() stops it at once.

import init, { mergeLabShares, runLab } from '../../pkg/depthlab_wasm.js';

const ready = init({ module_or_path: new URL('../../pkg/depthlab_wasm_bg.wasm', import.meta.url) });

/** The text of a thrown value (wasm-bindgen throws Error objects with the lab's message). */
function messageOf(err) {
  if (err && typeof err.message === 'string') return err.message;
  return String(err);
}

self.onmessage = async (ev) => {
  const msg = ev.data;
  if (!msg || (msg.type !== 'run' && msg.type !== 'merge')) return;
  try {
    await ready;
  } catch (err) {
    self.postMessage({ type: 'error', norm: null, message: `the lab's WebAssembly module could not be loaded: ${messageOf(err)}` });
    self.postMessage({ type: 'done' });
    return;
  }
  if (msg.type === 'merge') {
    try {
      self.postMessage({ type: 'report', norm: msg.norm, report: mergeLabShares(msg.reports), merged: true });
    } catch (err) {
      self.postMessage({ type: 'error', norm: msg.norm, message: messageOf(err), merged: true });
    }
    return;
  }
  const count = msg.specs.length;
  for (let index = 0; index < count; index++) {
    const spec = msg.specs[index];
    const norm = spec.norm;
    const onProgress = (stage, done, total) => self.postMessage({ type: 'progress', norm, index, count, stage, done, total });
    const onLayer = (layer) => self.postMessage({ type: 'partial', norm, layer });
    try {
      const report = runLab(spec, msg.weights ?? undefined, msg.configJson ?? undefined, onProgress, onLayer);
      self.postMessage({ type: 'report', norm, report });
    } catch (err) {
      self.postMessage({ type: 'error', norm, message: messageOf(err) });
    }
  }
  self.postMessage({ type: 'done' });
};

self.postMessage({ type: 'ready' });
