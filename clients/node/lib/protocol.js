// The serving loop of docs/protocol.md: newline-delimited JSON on stdin/stdout, strictly one
// request and one reply, ids echoed. Every failed request gets {"id", "error"} and serving goes on;
// the end of stdin ends the session. Backends never see the framing; they get checked arguments.

import { createInterface } from 'node:readline';
import { readFileSync } from 'node:fs';
import { PersonFile } from './persons.js';

export const VERSION = 1;
const CLIENT_VERSION = JSON.parse(readFileSync(new URL('../package.json', import.meta.url))).version;
const MAX_READERS = 1024;
const OPS = ['hello', 'ping', 'open', 'load', 'scan', 'lookup', 'insert', 'concurrent', 'close'];

// serve answers requests from input on output with backend until input ends, then closes the
// backend if a store is open. Nothing but replies is written to output.
export async function serve(backend, input = process.stdin, output = process.stdout) {
  const session = new Session(backend);
  const lines = createInterface({ input, crlfDelay: Infinity });
  for await (const line of lines) {
    if (line.trim() === '') continue;
    const reply = await session.handle(line);
    output.write(JSON.stringify(reply) + '\n');
  }
  await session.closeStore();
}

class Session {
  constructor(backend) {
    this.backend = backend;
    this.persons = null; // the open store's dataset; null when no store is open
  }

  async handle(line) {
    let req;
    try {
      req = JSON.parse(line);
    } catch (err) {
      return { id: 0, error: `bad request: ${oneLine(err.message)}` };
    }
    if (req === null || typeof req !== 'object' || Array.isArray(req) || !Number.isSafeInteger(req.id)) {
      return { id: 0, error: 'bad request: not a JSON object with an integer id' };
    }
    try {
      return { id: req.id, ...(await this.dispatch(req)) };
    } catch (err) {
      const what = OPS.includes(req.op) ? `${req.op}: ` : '';
      return { id: req.id, error: oneLine(what + (err?.message ?? err)) };
    }
  }

  async dispatch(req) {
    const b = this.backend;
    switch (req.op) {
      case 'hello':
        if (req.protocol !== VERSION) throw new Error(`protocol version ${req.protocol} is not supported: this client speaks version ${VERSION}`);
        return {
          protocol: VERSION, client: 'dbbench-client-node', client_version: CLIENT_VERSION,
          language: 'JavaScript', runtime: `node ${process.version}`,
          library: b.library, library_version: b.libraryVersion,
          workloads: ['scan', 'lookup', 'insert', 'concurrent'], options: b.options,
        };
      case 'ping':
        return {};
      case 'close':
        await this.closeStore();
        return {};
      case 'open': {
        if (this.persons) throw new Error('a store is open already (send close first)');
        const options = req.options ?? {};
        if (typeof options !== 'object' || Array.isArray(options)) throw new Error('options is not an object');
        for (const k of Object.keys(options)) {
          if (!b.options.includes(k)) throw new Error(`unknown option ${k} (this client takes: ${b.options.join(', ') || 'none'})`);
        }
        if (typeof req.dataset !== 'string' || req.dataset === '') throw new Error('no dataset file');
        const persons = PersonFile.read(req.dataset);
        if (req.size !== undefined && req.size !== persons.n) throw new Error(`size ${req.size}, but the dataset holds ${persons.n} persons`);
        const reply = await b.open({ options, persons, tempDir: req.temp_dir, postgres: req.postgres });
        this.persons = persons;
        return reply;
      }
    }
    const persons = this.persons;
    if (['load', 'scan', 'lookup', 'insert', 'concurrent'].includes(req.op) && !persons) throw new Error('no store is open (send open first)');
    switch (req.op) {
      case 'load':
        return b.load();
      case 'scan':
        return b.scan(count(req.rows, 'rows', 0, persons.n));
      case 'lookup': {
        if (!Array.isArray(req.keys)) throw new Error('keys is not an array');
        const keys = Uint32Array.from(req.keys, (k) => count(k, 'key', 0, persons.n - 1));
        return b.lookup(keys);
      }
      case 'insert':
        return b.insert(count(req.rows, 'rows', 0, persons.n));
      case 'concurrent':
        return b.concurrent(count(req.readers, 'readers', 1, MAX_READERS), count(req.rows, 'rows', 0, persons.n));
      case undefined:
        throw new Error('no op');
      default:
        throw new Error(`unknown op ${JSON.stringify(req.op)}`);
    }
  }

  async closeStore() {
    if (!this.persons) return;
    this.persons = null;
    await this.backend.close();
  }
}

// count checks an integer argument against [min, max].
function count(v, what, min, max) {
  if (!Number.isSafeInteger(v) || v < min || v > max) throw new Error(`${what} ${JSON.stringify(v)}: want an integer in ${min}..${max}`);
  return v;
}

function oneLine(s) {
  return String(s).replace(/\s*\n\s*/g, '; ');
}
