// The main thread's side of the lab workers: start a run, hear about it, cancel it.
//
// Each norm placement is an independent measurement, so a run spreads its placements over a small
// pool of module workers (one per core the browser reports, at most four, and at most two when a
// checkpoint's bytes are copied into each): on a 2-core machine Pre-LN and LNS run side by side.
// Every worker gets one placement at a time and the next when it is done; the page hears one stream
// of messages, each tagged with its placement's index in the run.
//
// Cancel terminates every worker (a running wasm call cannot be interrupted any other way;
// terminate() stops it at once) and the next run starts fresh ones, so the main thread never waits
// on a measurement.

const WORKER_URL = new URL('./lab-worker.js', import.meta.url);

/** How many workers a run of `count` placements gets. */
function poolSize(count, withWeights) {
  const cores = Math.max(1, Number(globalThis.navigator?.hardwareConcurrency) || 2);
  return Math.max(1, Math.min(count, cores, withWeights ? 2 : 4));
}

export class LabClient {
  /**
   * @param {object} handlers  { progress(msg), partial(msg), report(msg), error(msg), done(), cancelled() }
   */
  constructor(handlers) {
    this.handlers = handlers;
    this.workers = [];
    this.busy = new Map(); // worker -> index of the placement it runs
    this.queue = [];
    this.count = 0;
    this.payload = {};
    this.running = false;
  }

  spawn() {
    const worker = new Worker(WORKER_URL, { type: 'module' });
    worker.onmessage = (ev) => this.receive(worker, ev.data);
    worker.onerror = (ev) => {
      ev.preventDefault?.();
      if (!this.workers.includes(worker)) return;
      const was = this.running;
      this.stopAll();
      this.handlers.error?.({ norm: null, message: `the lab worker failed: ${ev.message || 'it could not start (is lab-worker.js served as JavaScript?)'}` });
      if (was) this.handlers.done?.();
    };
    return worker;
  }

  receive(worker, msg) {
    // Messages of a terminated worker that were already queued are dropped.
    if (!this.workers.includes(worker) || !msg) return;
    if (msg.type === 'done') {
      if (this.running && this.busy.has(worker)) this.next(worker);
      return;
    }
    const handler = this.handlers[msg.type];
    if (!handler) return;
    // A worker runs one placement at a time: its index in this run is the one the pool gave it.
    if (msg.type === 'progress') handler({ ...msg, index: this.busy.get(worker) ?? 0, count: this.count });
    else handler(msg);
  }

  /** Gives `worker` the next placement, or retires it; the run is done when none is busy. */
  next(worker) {
    const job = this.queue.shift();
    if (!job) {
      this.busy.delete(worker);
      if (this.busy.size === 0 && this.running) {
        this.running = false;
        this.handlers.done?.();
      }
      return;
    }
    this.busy.set(worker, job.index);
    worker.postMessage({ type: 'run', specs: [job.spec], ...this.payload });
  }

  /** Runs every spec (one per norm placement) over the pool; `weights` a Uint8Array or null. */
  start(specs, { weights = null, configJson = null } = {}) {
    if (this.running) this.cancel({ silent: true });
    this.queue = specs.map((spec, index) => ({ spec, index }));
    this.count = specs.length;
    this.payload = { weights, configJson };
    this.busy = new Map();
    const size = poolSize(specs.length, !!weights);
    while (this.workers.length < size) this.workers.push(this.spawn());
    this.running = true;
    if (!specs.length) {
      this.running = false;
      this.handlers.done?.();
      return;
    }
    for (const worker of this.workers.slice(0, size)) this.next(worker);
  }

  stopAll() {
    for (const worker of this.workers) worker.terminate();
    this.workers = [];
    this.busy = new Map();
    this.queue = [];
    this.running = false;
  }

  /** Stops the run in flight now; the next start() gets new workers. */
  cancel({ silent = false } = {}) {
    const was = this.running;
    this.stopAll();
    if (was && !silent) this.handlers.cancelled?.();
  }
}
