// One reader of ReaderPool: open the store, then per request say ready, wait for the release and
// scan. Messages: {opened} once, then {ready} and {rows, checksum, elapsed_ns, end} per request.

import { parentPort, workerData } from 'node:worker_threads';
import { now } from './clock.js';

const ctl = new Int32Array(workerData.ctl);
let reader;
try {
  reader = await (await import(workerData.module)).openReader(workerData.args);
  parentPort.postMessage({ opened: true });
} catch (err) {
  parentPort.postMessage({ error: err.message });
}

parentPort.on('message', ({ rows }) => {
  try {
    const gen = Atomics.load(ctl, 0);
    parentPort.postMessage({ ready: true });
    Atomics.wait(ctl, 0, gen);
    const r = reader.scan(rows);
    parentPort.postMessage({ ...r, end: now() });
  } catch (err) {
    parentPort.postMessage({ error: err.message });
  }
});
