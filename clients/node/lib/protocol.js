// The serving loop of docs/protocol.md: newline-delimited JSON on stdin/stdout, strictly one
// request and one reply, ids echoed. Every failed request gets {"id", "error"} and serving goes on;
// the end of stdin ends the session. Backends never see the framing; they get checked arguments.

import { createInterface } from 'node:readline';
import { readFileSync } from 'node:fs';
import { PersonFile } from './persons.js';
import { doRecords } from './records.js';

// The protocol versions this client speaks: 2, and 1 for an older dbbench.
export const VERSIONS = [1, 2];
const CLIENT_VERSION = JSON.parse(readFileSync(new URL('../package.json', import.meta.url))).version;
const MAX_READERS = 1024;
const OPS = ['hello', 'ping', 'open', 'load', 'scan', 'lookup', 'insert', 'drop', 'challenge', 'concurrent', 'close', 'load_records', 'do'];

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
    this.version = 1; // what hello agreed
    this.kept = false; // an insert's fresh store is kept for dbbench to read, until drop
    this.profile = false; // open asked for the phases of scans and lookups (capability phases)
    this.challenged = 0; // persons the challenge added to the loaded store
    this.challengeSize = 0; // the largest challenge so far: a scan may ask for that many more rows
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
        if (!VERSIONS.includes(req.protocol)) throw new Error(`protocol version ${req.protocol} is not supported: this client speaks versions ${VERSIONS.join(' and ')}`);
        this.version = req.protocol;
        return {
          protocol: this.version, client: 'dbbench-client-node', client_version: CLIENT_VERSION,
          language: 'JavaScript', runtime: `node ${process.version}`,
          library: b.library, library_version: b.libraryVersion,
          workloads: ['scan', 'lookup', 'insert', 'concurrent'], options: b.options,
          // Version 2: dbbench reads the loaded store and each insert's fresh store back itself.
          ...(this.version >= 2 ? { capabilities: this.capabilities() } : {}),
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
        if (req.profile && !this.offersPhases()) throw new Error('profile asks for phases, which this client does not offer (protocol 2, capability phases)');
        const reply = await b.open({ options, persons, tempDir: req.temp_dir, postgres: req.postgres });
        this.persons = persons;
        this.profile = req.profile === true;
        return reply;
      }
    }
    const persons = this.persons;
    if (req.op === 'load_records' || req.op === 'do') {
      if (this.version < 2 || !b.capabilities.includes('ops')) throw new Error(`this client serves no records with ${b.library} (capability ops)`);
      if (!persons) throw new Error('no store is open (send open first)');
      return doRecords(b, req);
    }
    if (['load', 'scan', 'lookup', 'insert', 'drop', 'challenge', 'concurrent'].includes(req.op) && !persons) throw new Error('no store is open (send open first)');
    switch (req.op) {
      case 'load': {
        const reply = await b.load();
        return this.version >= 2 ? { ...reply, store: b.store() } : reply;
      }
      case 'scan': {
        const rows = count(req.rows, 'rows', 0, persons.n + this.challengeSize);
        return this.profile ? b.scanProfiled(rows) : b.scan(rows);
      }
      case 'challenge':
        if (this.version < 2) throw new Error('challenge needs protocol version 2');
        if (!b.capabilities.includes('challenge')) throw new Error('this client does not offer challenge');
        if (req.remove) {
          await b.removeChallenge();
          this.challenged = 0;
          return {};
        }
        if (this.challenged) throw new Error('a challenge is under way (remove it first)');
        if (!Array.isArray(req.persons)) throw new Error('persons is not an array');
        for (const p of req.persons) {
          if (typeof p?.email !== 'string' || typeof p.name !== 'string') throw new Error('a challenge person needs an email and a name');
          count(p.age, 'age', 0, 255);
        }
        await b.challenge(req.persons);
        this.challenged = req.persons.length;
        this.challengeSize = Math.max(this.challengeSize, this.challenged);
        return {};
      case 'lookup': {
        if (req.emails !== undefined) {
          if (!Array.isArray(req.emails) || !req.emails.every((e) => typeof e === 'string')) throw new Error('emails is not an array of strings');
          if (!b.capabilities.includes('challenge')) throw new Error('this client does not offer challenge (lookup by email)');
          return b.lookupEmails(req.emails);
        }
        if (!Array.isArray(req.keys)) throw new Error('keys is not an array');
        const keys = Uint32Array.from(req.keys, (k) => count(k, 'key', 0, persons.n - 1));
        return this.profile ? b.lookupProfiled(keys) : b.lookup(keys);
      }
      case 'insert': {
        const rows = count(req.rows, 'rows', 0, persons.n);
        if (!req.keep) return this.insertReadBack(rows);
        if (this.version < 2) throw new Error('keep needs protocol version 2');
        if (!b.capabilities.includes('keep_store')) throw new Error('this client does not offer keep_store');
        if (this.kept) throw new Error("the last insert's store is still kept (send drop first)");
        const reply = await b.insertKeep(rows);
        this.kept = true;
        return reply;
      }
      case 'drop':
        if (!this.kept) throw new Error('no insert kept its store');
        this.kept = false;
        await b.drop();
        return {};
      case 'concurrent':
        return b.concurrent(count(req.readers, 'readers', 1, MAX_READERS), count(req.rows, 'rows', 0, persons.n));
      case undefined:
        throw new Error('no op');
      default:
        throw new Error(`unknown op ${JSON.stringify(req.op)}`);
    }
  }

  // offersPhases says whether the backend splits its scans and lookups into phases: capability
  // phases, asked for by open's profile.
  offersPhases() {
    return this.version >= 2 && typeof this.backend.scanProfiled === 'function';
  }

  capabilities() {
    return this.offersPhases() ? [...this.backend.capabilities, 'phases'] : this.backend.capabilities;
  }

  // insertReadBack is an insert without keep: the rows go into a fresh store, as with keep, which
  // the client reads back itself (rows and checksum) and drops.
  async insertReadBack(rows) {
    const b = this.backend;
    const { elapsed_ns: elapsed } = await b.insertKeep(rows);
    try {
      const back = await b.readKept();
      return { rows: back.rows, checksum: back.checksum, elapsed_ns: elapsed };
    } finally {
      await b.drop();
    }
  }

  async closeStore() {
    if (!this.persons) return;
    this.persons = null;
    if (this.kept) {
      this.kept = false;
      await this.backend.drop();
    }
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
