// The lmdb backend: lmdb-js with binary keys and values (not its default msgpack encoding), stored
// as the Go and C LMDB targets store them: key = email bytes, value = [age uint8][name bytes].
// Rows are decoded into byte views (email, name) and the age byte; nothing is turned into strings.

import { open } from 'lmdb';
import { existsSync, mkdirSync, readdirSync, rmSync, rmdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Tally } from './rowsum.js';
import { now, since } from './clock.js';
import { Phases } from './phases.js';
import { bytesOption, packageVersion } from './meta.js';
import { ReaderPool } from './readers.js';
import { readRecords, recordSum, checkField, checkFieldCount, hex64 } from './records.js';

const APPEND = { append: true }; // MDB_APPEND: the load comes in key order
const FILES = ['data.mdb', 'lock.mdb'];

function envOptions(path, s) {
  return {
    path, mapSize: s.mapSize, maxReaders: s.maxReaders,
    noSync: !s.durable, overlappingSync: false, // commit returns when written (and fsynced if durable)
    encoding: 'binary', keyEncoding: 'binary', cache: false, compression: false,
  };
}

// scan reads the first rows pairs in key order in one read transaction: the range's cursor runs in
// lmdb-js's current read transaction, which resetReadTxn ends.
function scan(db, rows) {
  const t = new Tally();
  const t0 = now();
  for (const { key, value } of db.getRange({ limit: rows })) {
    t.addBytes(key, 0, key.length, value, 1, value.length, value[0]);
  }
  db.resetReadTxn();
  return { rows: t.rows, checksum: t.checksum, elapsed_ns: since(t0) };
}

// scanProfiled is scan split into get (each step of the range's cursor, the bytes copied into a
// Buffer included), decode (RowSum) and txn (ending the read transaction).
function scanProfiled(db, rows) {
  const t = new Tally();
  const ph = new Phases();
  const start = now();
  let get = 0n;
  let decode = 0n;
  let t0 = start;
  const it = db.getRange({ limit: rows })[Symbol.iterator]();
  for (;;) {
    const { value, done } = it.next();
    const t1 = now();
    get += t1 - t0;
    t0 = t1;
    if (done) break;
    t.addBytes(value.key, 0, value.key.length, value.value, 1, value.value.length, value.value[0]);
    t0 = now();
    decode += t0 - t1;
  }
  db.resetReadTxn();
  const end = now();
  ph.add('get', get);
  ph.add('decode', decode);
  ph.add('txn', end - t0);
  return { rows: t.rows, checksum: t.checksum, elapsed_ns: Number(end - start), phases_ns: ph.json() };
}

export class Backend {
  // lmdb-js writes LMDB 1.0's data format, which the LMDB 0.9 dbbench reads with cannot open: its
  // store is kind other, checked by the challenge (and inserts by this client's own read-back).
  capabilities = ['store', 'challenge', 'ops'];
  library = 'lmdb';
  libraryVersion = packageVersion('lmdb');
  options = ['path', 'map_size', 'max_readers', 'durable'];

  async open({ options, persons, tempDir }) {
    const s = {
      mapSize: bytesOption('map_size', options.map_size ?? 1 << 30),
      maxReaders: options.max_readers ?? 126,
      durable: options.durable ?? false,
    };
    if (!Number.isSafeInteger(s.maxReaders) || s.maxReaders < 1) throw new Error(`option max_readers: want a positive integer, got ${JSON.stringify(s.maxReaders)}`);
    if (typeof s.durable !== 'boolean') throw new Error(`option durable: want true or false, got ${JSON.stringify(s.durable)}`);
    if (!tempDir) throw new Error('no temp_dir');
    this.persons = persons;
    this.settings = s;
    this.tempDir = tempDir;
    this.inserts = 0;
    if (options.path) {
      this.dir = resolve(options.path);
      if (existsSync(this.dir) && readdirSync(this.dir).length > 0) {
        throw new Error(`option path ${this.dir} is not empty: the client stores only into a new or empty directory`);
      }
      this.created = !existsSync(this.dir);
    } else {
      this.dir = join(tempDir, 'lmdb');
      this.created = true;
    }
    mkdirSync(this.dir, { recursive: true });
    try {
      this.db = open(envOptions(this.dir, s));
    } catch (err) {
      if (this.created) rmSync(this.dir, { recursive: true, force: true });
      throw err;
    }
    this.pool = new ReaderPool(new URL(import.meta.url), { path: this.dir, settings: s });
    return {
      info: {
        encoding: 'binary keys and values ([age uint8][name]), not msgpack',
        sync: s.durable, map_size: s.mapSize, max_readers: s.maxReaders,
        load: 'one write transaction, puts in key order with MDB_APPEND',
        lookup: 'getBinaryFast, then resetReadTxn: one read transaction per lookup',
        concurrency: 'worker_threads, each opening the environment read-only',
      },
      scans_in_key_order: true,
    };
  }

  load() {
    const p = this.persons;
    const t0 = now();
    this.db.transactionSync(() => put(this.db, p, p.sorted, p.n, APPEND));
    return { rows: p.n, elapsed_ns: since(t0) };
  }

  scan(rows) {
    return scan(this.db, rows);
  }

  lookup(keys) {
    return this.gets(Array.from(keys, (i) => this.persons.email(i))); // the keys, ready before the clock starts
  }

  lookupEmails(emails) {
    return this.gets(emails.map((e) => Buffer.from(e)));
  }

  // gets looks up each email in its own read transaction, timing each.
  gets(emails) {
    const db = this.db;
    const latencies = new Array(emails.length);
    const t = new Tally();
    let t0 = now();
    for (let j = 0; j < emails.length; j++) {
      const k = emails[j];
      const v = db.getBinaryFast(k);
      if (v !== undefined) t.addBytes(k, 0, k.length, v, 1, v.length, v[0]);
      db.resetReadTxn();
      const t1 = now();
      latencies[j] = Number(t1 - t0);
      t0 = t1;
    }
    return { rows: t.rows, checksum: t.checksum, latencies_ns: latencies };
  }

  scanProfiled(rows) {
    return scanProfiled(this.db, rows);
  }

  // lookupProfiled is lookup split into get (getBinaryFast), decode (RowSum) and txn (resetReadTxn).
  lookupProfiled(keys) {
    const db = this.db;
    const emails = Array.from(keys, (i) => this.persons.email(i));
    const latencies = new Array(emails.length);
    const t = new Tally();
    const ph = new Phases();
    let t0 = now();
    for (let j = 0; j < emails.length; j++) {
      const k = emails[j];
      const v = db.getBinaryFast(k);
      const t1 = now();
      if (v !== undefined) t.addBytes(k, 0, k.length, v, 1, v.length, v[0]);
      const t2 = now();
      db.resetReadTxn();
      const t3 = now();
      ph.add('get', t1 - t0);
      ph.add('decode', t2 - t1);
      ph.add('txn', t3 - t2);
      latencies[j] = Number(t3 - t0);
      t0 = t3;
    }
    return { rows: t.rows, checksum: t.checksum, latencies_ns: latencies, phases_ns: ph.json() };
  }

  // readKept reads back the store insertKeep kept.
  readKept() {
    return scan(this.kept.db, this.persons.n);
  }

  // insertKeep inserts into a fresh environment and keeps it for dbbench to read (protocol 2).
  async insertKeep(rows) {
    const dir = join(this.tempDir, `insert-${++this.inserts}`);
    mkdirSync(dir);
    const db = open(envOptions(dir, this.settings));
    this.kept = { db, dir };
    try {
      const t0 = now();
      db.transactionSync(() => put(db, this.persons, null, rows));
      return { elapsed_ns: since(t0), store: { kind: 'lmdb', path: dir } };
    } catch (err) {
      await this.drop();
      throw err;
    }
  }

  async drop() {
    const { db, dir } = this.kept;
    this.kept = null;
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }

  store() {
    return { kind: 'other' };
  }

  // challenge puts dbbench's persons into the loaded store in one write transaction.
  challenge(persons) {
    this.challenged = persons.map((p) => Buffer.from(p.email));
    this.db.transactionSync(() => {
      persons.forEach((p, j) => {
        const name = Buffer.from(p.name);
        const value = Buffer.alloc(name.length + 1);
        value[0] = p.age;
        name.copy(value, 1);
        this.db.put(this.challenged[j], value);
      });
    });
  }

  removeChallenge() {
    const keys = this.challenged ?? [];
    this.challenged = [];
    this.db.transactionSync(() => keys.forEach((k) => this.db.remove(k)));
  }

  concurrent(readers, rows) {
    return this.pool.run(readers, rows);
  }

  // YCSB's records (capability ops): an environment of their own under temp_dir, key = the record's
  // key, value = its fields, each a uint32 length (little-endian) and the bytes.
  async loadRecords(path, count) {
    const { fields, count: n, records } = readRecords(path, count);
    await this.closeRecords();
    const pairs = records.map(([k, fs]) => [Buffer.from(k, 'latin1'), packFields(fs)]).sort((a, b) => Buffer.compare(a[0], b[0]));
    this.recDir = join(this.tempDir, `records-${++this.inserts}`);
    mkdirSync(this.recDir, { recursive: true });
    this.rec = open(envOptions(this.recDir, this.settings));
    this.recFields = fields;
    this.rec.transactionSync(() => { for (const [k, v] of pairs) this.rec.putSync(k, v, APPEND); });
    return { rows: n };
  }

  readRecord(key) {
    const db = this.rec;
    const t0 = now();
    const v = db.getBinaryFast(Buffer.from(key, 'latin1'));
    const fields = v === undefined ? undefined : unpackFields(v);
    db.resetReadTxn();
    const ns = since(t0);
    return fields === undefined ? { ns, found: false } : { ns, found: true, fields };
  }

  updateRecord(key, field, value) {
    checkField(field, this.recFields);
    return this.writeRecord(key, 'update', 'no such record', (db, k) => {
      const v = db.getBinary(k);
      if (v === undefined) return false;
      const fs = unpackFields(v);
      fs[field] = value;
      db.putSync(k, packFields(fs));
      return true;
    });
  }

  insertRecord(key, fields) {
    checkFieldCount(fields, this.recFields);
    return this.writeRecord(key, 'insert', 'the key exists', (db, k) => {
      if (db.getBinary(k) !== undefined) return false;
      db.putSync(k, packFields(fields));
      return true;
    });
  }

  // writeRecord runs write(db, k) in one write transaction of the records, timed; write returns false
  // when the operation does not apply to the record of key, which then fails with why.
  writeRecord(key, op, why, write) {
    const db = this.rec;
    const k = Buffer.from(key, 'latin1');
    const t0 = now();
    const done = db.transactionSync(() => write(db, k));
    const ns = since(t0);
    if (!done) throw new Error(`${op} of ${JSON.stringify(key)}: ${why}`);
    return { ns };
  }

  scanRecords(start, n) {
    const db = this.rec;
    let rows = 0;
    let sum = 0n;
    const t0 = now();
    if (n > 0) {
      for (const { key, value } of db.getRange({ start: Buffer.from(start, 'latin1'), limit: n })) {
        sum += recordSum(key.toString('latin1'), unpackFields(value));
        rows++;
      }
    }
    db.resetReadTxn();
    return { ns: since(t0), rows, checksum: hex64(sum) };
  }

  async closeRecords() {
    if (!this.rec) return;
    await this.rec.close();
    rmSync(this.recDir, { recursive: true, force: true });
    this.rec = undefined;
  }

  async close() {
    await this.closeRecords();
    await this.pool.close();
    await this.db.close();
    // Remove what this client made: LMDB's files, and the directory if it created it.
    for (const f of FILES) rmSync(join(this.dir, f), { force: true });
    if (this.created) rmdirSync(this.dir);
  }
}

// put writes persons order[0..n) (or 0..n) one by one in the current write transaction.
function put(db, p, order, n, flags) {
  const buf = p.buf;
  let value = Buffer.alloc(256);
  for (let j = 0; j < n; j++) {
    const i = order ? order[j] : j;
    const ns = p.nameStart(i);
    const ne = p.nameEnd(i);
    if (value.length < ne - ns + 1) value = Buffer.alloc(2 * (ne - ns + 1));
    value[0] = p.ages[i];
    buf.copy(value, 1, ns, ne);
    db.put(buf.subarray(p.emailStart(i), p.emailEnd(i)), value.subarray(0, ne - ns + 1), flags);
  }
}

// openReader opens the environment read-only in a reader thread (see ReaderPool).
export function openReader({ path, settings }) {
  const db = open({ ...envOptions(path, settings), readOnly: true });
  return { scan: (rows) => scan(db, rows) };
}

// packFields encodes a record's fields (ASCII strings) as the value of the records' environment.
function packFields(fields) {
  let size = 0;
  for (const f of fields) size += 4 + f.length;
  const b = Buffer.allocUnsafe(size);
  let off = 0;
  for (const f of fields) {
    b.writeUInt32LE(f.length, off);
    b.write(f, off + 4, 'latin1');
    off += 4 + f.length;
  }
  return b;
}

// unpackFields decodes a value of the records' environment into strings (copies: the view lmdb-js
// returns is reused by the next read).
function unpackFields(v) {
  const out = [];
  for (let off = 0; off < v.length;) {
    const n = v.readUInt32LE(off);
    out.push(v.toString('latin1', off + 4, off + 4 + n));
    off += 4 + n;
  }
  return out;
}
