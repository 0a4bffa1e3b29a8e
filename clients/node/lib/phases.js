// Phases of the timed regions (capability phases), timed only when open asked for profile: each
// backend's scanProfiled and lookupProfiled are its scan and lookup with one clock read at every
// boundary between phases, so that the phases tile the region and sum to its time. The names are
// dbbench's shared ones (docs/protocol.md, "Phases").

import { now } from './clock.js';
import { Tally } from './rowsum.js';

// Phases sums BigInt nanoseconds per name, in the order the names are first added.
export class Phases {
  ns = new Map();

  add(name, d) {
    this.ns.set(name, (this.ns.get(name) ?? 0n) + d);
  }

  // json is phases_ns: an object in the phases' order, whole nanoseconds.
  json() {
    return Object.fromEntries(Array.from(this.ns, ([k, v]) => [k, Number(v)]));
  }
}

// tallyRowsPhases is tallyRows over an iterator of [email, name, age] rows, with each step of the
// iterator added to fetch (the step that finds the end too) and each row's RowSum to decode.
export function tallyRowsPhases(it, ph) {
  const t = new Tally();
  let fetch = 0n;
  let decode = 0n;
  let t0 = now();
  for (;;) {
    const { value: r, done } = it.next();
    const t1 = now();
    fetch += t1 - t0;
    if (done) break;
    t.addStrings(r[0], r[1], r[2]);
    t0 = now();
    decode += t0 - t1;
  }
  ph.add('fetch', fetch);
  ph.add('decode', decode);
  return t;
}
