// The main thread's side of the lab worker: start a run, hear about it, cancel it. Cancel
// terminates the worker (a running wasm call cannot be interrupted any other way; terminate()
// stops it at once) and the next run starts a fresh one, so the main thread never waits on a
// measurement.

const WORKER_URL = new URL('./lab-worker.js', import.meta.url);

export class LabClient {
  /**
   * @param {object} handlers  { progress(msg), partial(msg), report(msg), error(msg), done(), cancelled() }
   */
  constructor(handlers) {
    this.handlers = handlers;
    this.worker = null;
    this.running = false;
  }

  /** A fresh worker (the previous one is gone after a cancel). */
  spawn() {
    const worker = new Worker(WORKER_URL, { type: 'module' });
    worker.onmessage = (ev) => this.receive(worker, ev.data);
    worker.onerror = (ev) => {
      ev.preventDefault?.();
      if (worker !== this.worker) return;
      this.running = false;
      this.handlers.error?.({ norm: null, message: `the lab worker failed: ${ev.message || 'it could not start (is lab-worker.js served as JavaScript?)'}` });
      this.handlers.done?.();
    };
    return worker;
  }

  receive(worker, msg) {
    // Messages of a terminated worker that were already queued are dropped.
    if (worker !== this.worker || !msg) return;
    if (msg.type === 'done') this.running = false;
    const handler = this.handlers[msg.type];
    if (handler) handler(msg);
  }

  /** Runs every spec in turn (one per norm placement); `weights` a Uint8Array or null. */
  start(specs, { weights = null, configJson = null } = {}) {
    if (this.running) this.cancel({ silent: true });
    if (!this.worker) this.worker = this.spawn();
    this.running = true;
    this.worker.postMessage({ type: 'run', specs, weights, configJson });
  }

  /** Stops the run in flight now; the next start() gets a new worker. */
  cancel({ silent = false } = {}) {
    if (!this.worker) return;
    this.worker.terminate();
    this.worker = null;
    const was = this.running;
    this.running = false;
    if (was && !silent) this.handlers.cancelled?.();
  }
}
