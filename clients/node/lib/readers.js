// ReaderPool runs the concurrent workload on worker_threads: one JavaScript thread per reader, each
// with its own connection to the store, kept for the session. Every reader is readied first, then
// all are released at once through a shared counter, so wall_ns spans release to the last reader's end.

import { Worker } from 'node:worker_threads';
import { now } from './clock.js';

export class ReaderPool {
  // module is the URL of a module exporting openReader(args), which returns {scan(rows)}.
  constructor(module, args) {
    this.module = String(module);
    this.args = args;
    this.ctl = new Int32Array(new SharedArrayBuffer(4));
    this.workers = [];
  }

  async run(readers, rows) {
    while (this.workers.length < readers) {
      const w = new Worker(new URL('./reader-worker.js', import.meta.url), {
        workerData: { module: this.module, args: this.args, ctl: this.ctl.buffer },
      });
      try {
        await next(w); // opened
      } catch (err) {
        await w.terminate();
        throw err;
      }
      this.workers.push(w);
    }
    const ws = this.workers.slice(0, readers);
    const ready = ws.map(next);
    for (const w of ws) w.postMessage({ rows });
    await Promise.all(ready);
    const done = ws.map(next);
    const t0 = now();
    Atomics.add(this.ctl, 0, 1);
    Atomics.notify(this.ctl, 0);
    const results = await Promise.all(done);
    let end = t0;
    for (const r of results) if (r.end > end) end = r.end;
    return {
      wall_ns: Number(end - t0),
      readers: results.map(({ rows, checksum, elapsed_ns }) => ({ rows, checksum, elapsed_ns })),
    };
  }

  async close() {
    const ws = this.workers;
    this.workers = [];
    await Promise.all(ws.map((w) => w.terminate()));
  }
}

// next resolves with a worker's next message, or rejects with its error or exit.
function next(w) {
  return new Promise((resolve, reject) => {
    const off = () => {
      w.off('message', onMessage);
      w.off('error', onError);
      w.off('exit', onExit);
    };
    const onMessage = (m) => {
      off();
      if (m.error) reject(new Error(`reader: ${m.error}`));
      else resolve(m);
    };
    const onError = (err) => {
      off();
      reject(err);
    };
    const onExit = (code) => {
      off();
      reject(new Error(`reader thread exited with status ${code}`));
    };
    w.on('message', onMessage);
    w.on('error', onError);
    w.on('exit', onExit);
  });
}
