// The main thread's side of the lab workers: start a run, hear about it, cancel it.
//
// Each norm placement is an independent measurement, so a run spreads its placements over a small
// pool of module workers (one per core the browser reports, at most four, and at most two when a
// checkpoint's bytes are copied into each): on a 2-core machine Pre-LN and LNS run side by side.
// When there are at least twice as many workers as placements (one placement on two cores, two on
// four), each placement is split into two shares (`shareIndex`/`shareCount` in the spec,
// `depthlab::Share`: the end-to-end norms in one, the per-layer norms and the gradients in the
// other), run by
// two workers at once; when both shares' reports are in, one of those workers joins them
// (`mergeLabShares`, bit for bit the whole run's report) and only the joined report reaches the
// page. Every worker gets one job at a time and the next when it is done; the page hears one
// stream of messages, each tagged with its placement's index in the run (and its share).
//
// Cancel terminates every worker (a running wasm call cannot be interrupted any other way;
// terminate() stops it at once) and the next run starts fresh ones, so the main thread never waits
// on a measurement.

const WORKER_URL = new URL('./worker.js', import.meta.url);

/**
 * How a run of `count` placements is spread: `size` workers, each placement in `shares` parts.
 * Two shares at most: the end-to-end norms, most of a run's work, are one chain of suffixes.
 */
export function plan(count, withWeights, cores = Number(globalThis.navigator?.hardwareConcurrency) || 2) {
  const pool = Math.max(1, Math.min(Math.max(1, cores), withWeights ? 2 : 4));
  const shares = count > 0 ? Math.max(1, Math.min(2, Math.floor(pool / count))) : 1;
  return { size: Math.max(1, Math.min(pool, count * shares)), shares };
}

export class LabClient {
  /**
   * @param {object} handlers  { progress(msg), partial(msg), report(msg), error(msg), done(), cancelled() }
   */
  constructor(handlers) {
    this.handlers = handlers;
    this.workers = [];
    this.busy = new Map(); // worker -> the job it runs: { spec, index, share, shares }
    this.queue = [];
    this.count = 0;
    this.payload = {};
    this.running = false;
    this.parts = new Map(); // placement index -> the shares' reports received so far
    this.failed = new Set(); // placement indices with an error: their shares' reports are dropped
    this.merging = 0; // merges asked of workers and not yet answered
  }

  spawn() {
    const worker = new Worker(WORKER_URL, { type: 'module' });
    worker.onmessage = (ev) => this.receive(worker, ev.data);
    worker.onerror = (ev) => {
      ev.preventDefault?.();
      if (!this.workers.includes(worker)) return;
      const was = this.running;
      this.stopAll();
      this.handlers.error?.({ norm: null, message: `the lab worker failed: ${ev.message || 'it could not start (is lab/worker.js served as JavaScript?)'}` });
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
    if (msg.merged) {
      // The answer to a merge (below): the whole placement's report, or why it failed.
      this.merging--;
      this.handlers[msg.type]?.(msg);
      this.finishIfIdle();
      return;
    }
    // A worker runs one job at a time: its placement's index and share are the ones the pool gave.
    const job = this.busy.get(worker) ?? { index: 0, share: 0, shares: 1 };
    if (msg.type === 'report' && job.shares > 1) {
      if (this.failed.has(job.index)) return;
      const parts = this.parts.get(job.index) ?? [];
      parts.push(msg.report);
      this.parts.set(job.index, parts);
      if (parts.length === job.shares) {
        // This worker is done with its run; the merge is the next message it reads.
        this.parts.delete(job.index);
        this.merging++;
        worker.postMessage({ type: 'merge', norm: msg.norm, reports: parts });
      }
      return;
    }
    if (msg.type === 'error' && job.shares > 1) {
      // The shares of one placement fail alike (the same spec): one message is enough.
      if (this.failed.has(job.index)) return;
      this.failed.add(job.index);
      this.parts.delete(job.index);
    }
    const handler = this.handlers[msg.type];
    if (!handler) return;
    if (msg.type === 'progress') handler({ ...msg, index: job.index, count: this.count, share: job.share, shares: job.shares });
    else handler(msg);
  }

  /** The run is done when no worker runs a job and no merge is pending. */
  finishIfIdle() {
    if (this.running && this.busy.size === 0 && this.merging === 0 && this.queue.length === 0) {
      this.running = false;
      this.handlers.done?.();
    }
  }

  /** Gives `worker` the next placement, or retires it; the run is done when none is busy. */
  next(worker) {
    const job = this.queue.shift();
    if (!job) {
      this.busy.delete(worker);
      this.finishIfIdle();
      return;
    }
    this.busy.set(worker, job);
    worker.postMessage({ type: 'run', specs: [job.spec], ...this.payload });
  }

  /**
   * Runs every spec (one per norm placement) over the pool; `weights` a Uint8Array or null.
   * Returns the spread, `plan`'s { size, shares }.
   */
  start(specs, { weights = null, configJson = null } = {}) {
    if (this.running) this.cancel({ silent: true });
    const { size, shares } = plan(specs.length, !!weights);
    this.queue = specs.flatMap((spec, index) =>
      Array.from({ length: shares }, (_, share) => ({
        spec: shares > 1 ? { ...spec, shareIndex: share, shareCount: shares } : spec,
        index,
        share,
        shares,
      })),
    );
    this.count = specs.length;
    this.payload = { weights, configJson };
    this.busy = new Map();
    this.parts = new Map();
    this.failed = new Set();
    this.merging = 0;
    while (this.workers.length < size) this.workers.push(this.spawn());
    this.running = true;
    if (!specs.length) {
      this.running = false;
      this.handlers.done?.();
      return { size, shares };
    }
    for (const worker of this.workers.slice(0, size)) this.next(worker);
    return { size, shares };
  }

  stopAll() {
    for (const worker of this.workers) worker.terminate();
    this.workers = [];
    this.busy = new Map();
    this.queue = [];
    this.parts = new Map();
    this.merging = 0;
    this.running = false;
  }

  /** Stops the run in flight now; the next start() gets new workers. */
  cancel({ silent = false } = {}) {
    const was = this.running;
    this.stopAll();
    if (was && !silent) this.handlers.cancelled?.();
  }
}
