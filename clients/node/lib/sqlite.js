// The better-sqlite3 backend: the reference SQL statements of docs/protocol.md on a database file
// under temp_dir (WAL, synchronous=NORMAL, as the Go sql adapter). Rows come back as arrays
// (raw mode) of email and name strings and the age number.

import Database from 'better-sqlite3';
import { join } from 'node:path';
import { Tally, tallyRows } from './rowsum.js';
import { now, since } from './clock.js';
import { Phases, tallyRowsPhases } from './phases.js';
import { packageVersion } from './meta.js';
import { ReaderPool } from './readers.js';
import { readRecords, tallyRecords, checkField, checkFieldCount, hex64 } from './records.js';

const SCAN = 'SELECT email, name, age FROM persons ORDER BY email LIMIT ?';
const LOOKUP = 'SELECT email, name, age FROM persons WHERE email = ?';
const table = (name) => `CREATE TABLE ${name} (email TEXT PRIMARY KEY, name TEXT NOT NULL, age INTEGER NOT NULL) WITHOUT ROWID`;
const insertInto = (name) => `INSERT INTO ${name} (email, name, age) VALUES (?, ?, ?)`;

// scan folds the rows of stmt (SCAN: the first rows persons in email order); one statement in
// autocommit mode is one read transaction.
function scan(stmt, ...rows) {
  const t0 = now();
  const t = tallyRows(stmt.iterate(...rows));
  return { rows: t.rows, checksum: t.checksum, elapsed_ns: since(t0) };
}

// scanProfiled is scan split into fetch (each step of the statement, the first one running it up
// to its first row) and decode (RowSum).
function scanProfiled(stmt, rows) {
  const ph = new Phases();
  const t0 = now();
  const t = tallyRowsPhases(stmt.iterate(rows), ph);
  return { rows: t.rows, checksum: t.checksum, elapsed_ns: since(t0), phases_ns: ph.json() };
}

function connect(path, readonly) {
  const db = new Database(path, { readonly });
  if (!readonly) db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  return db;
}

export class Backend {
  capabilities = ['keep_store', 'store', 'ops'];
  library = 'better-sqlite3';
  libraryVersion = packageVersion('better-sqlite3');
  options = [];

  open({ persons, tempDir }) {
    if (!tempDir) throw new Error('no temp_dir');
    this.persons = persons;
    this.path = join(tempDir, 'persons.db');
    this.db = connect(this.path, false);
    this.db.exec(table('persons'));
    this.scanStmt = this.db.prepare(SCAN).raw(true);
    this.lookupStmt = this.db.prepare(LOOKUP).raw(true);
    this.pool = new ReaderPool(new URL(import.meta.url), { path: this.path });
    return {
      info: {
        sqlite_version: this.db.prepare('SELECT sqlite_version()').pluck().get(),
        journal_mode: 'wal', synchronous: 'normal',
        concurrency: 'worker_threads, one read-only connection each',
      },
      scans_in_key_order: true,
    };
  }

  load() {
    const p = this.persons;
    const t0 = now();
    insertAll(this.db, 'persons', p, p.sorted, p.n);
    return { rows: p.n, elapsed_ns: since(t0) };
  }

  scan(rows) {
    return scan(this.scanStmt, rows);
  }

  lookup(keys) {
    const stmt = this.lookupStmt;
    const emails = Array.from(keys, (i) => this.persons.emailString(i)); // ready before the clock starts
    const latencies = new Array(keys.length);
    const t = new Tally();
    let t0 = now();
    for (let j = 0; j < emails.length; j++) {
      const r = stmt.get(emails[j]);
      if (r !== undefined) t.addStrings(r[0], r[1], r[2]);
      const t1 = now();
      latencies[j] = Number(t1 - t0);
      t0 = t1;
    }
    return { rows: t.rows, checksum: t.checksum, latencies_ns: latencies };
  }

  scanProfiled(rows) {
    return scanProfiled(this.scanStmt, rows);
  }

  // lookupProfiled is lookup split into execute (Statement.get: the statement run, its row read
  // into JavaScript values) and decode (RowSum).
  lookupProfiled(keys) {
    const stmt = this.lookupStmt;
    const emails = Array.from(keys, (i) => this.persons.emailString(i));
    const latencies = new Array(keys.length);
    const t = new Tally();
    const ph = new Phases();
    let t0 = now();
    for (let j = 0; j < emails.length; j++) {
      const r = stmt.get(emails[j]);
      const t1 = now();
      if (r !== undefined) t.addStrings(r[0], r[1], r[2]);
      const t2 = now();
      ph.add('execute', t1 - t0);
      ph.add('decode', t2 - t1);
      latencies[j] = Number(t2 - t0);
      t0 = t2;
    }
    return { rows: t.rows, checksum: t.checksum, latencies_ns: latencies, phases_ns: ph.json() };
  }

  // readKept reads back the table insertKeep kept.
  readKept() {
    return scan(this.db.prepare('SELECT email, name, age FROM persons_insert').raw(true));
  }

  // insertKeep inserts into a fresh table and keeps it for dbbench to read (protocol 2).
  insertKeep(rows) {
    this.db.exec(table('persons_insert'));
    try {
      const elapsed = insertAll(this.db, 'persons_insert', this.persons, null, rows);
      return { elapsed_ns: elapsed, store: { kind: 'sqlite', path: this.path, table: 'persons_insert' } };
    } catch (err) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      this.drop();
      throw err;
    }
  }

  drop() {
    this.db.exec('DROP TABLE persons_insert');
  }

  // store describes the loaded database for dbbench (protocol 2).
  store() {
    return { kind: 'sqlite', path: this.path, table: 'persons' };
  }

  concurrent(readers, rows) {
    return this.pool.run(readers, rows);
  }

  async close() {
    await this.pool.close();
    this.db.close();
  }

  // YCSB's records (capability ops) in usertable(ycsb_key, field0, ...), as the Go sql adapter's.
  loadRecords(path, count) {
    const { fields, records } = readRecords(path, count);
    const cols = Array.from({ length: fields }, (_, f) => `field${f}`);
    this.db.exec('DROP TABLE IF EXISTS usertable');
    this.db.exec(`CREATE TABLE usertable (ycsb_key TEXT PRIMARY KEY${cols.map((c) => `, ${c} TEXT NOT NULL`).join('')}) WITHOUT ROWID`);
    const names = cols.join(', ');
    const ins = this.db.prepare(`INSERT INTO usertable (ycsb_key, ${names}) VALUES (?${', ?'.repeat(fields)})`);
    this.db.transaction(() => { for (const [k, fs] of records) ins.run(k, ...fs); })();
    this.rec = {
      fields, insert: ins,
      read: this.db.prepare(`SELECT ${names} FROM usertable WHERE ycsb_key = ?`).raw(true),
      update: cols.map((c) => this.db.prepare(`UPDATE usertable SET ${c} = ? WHERE ycsb_key = ?`)),
      scan: this.db.prepare(`SELECT ycsb_key, ${names} FROM usertable WHERE ycsb_key >= ? ORDER BY ycsb_key LIMIT ?`).raw(true),
    };
    return { rows: this.db.prepare('SELECT count(*) FROM usertable').pluck().get() };
  }

  readRecord(key) {
    const t0 = now();
    const r = this.rec.read.get(key);
    const ns = since(t0);
    return r === undefined ? { ns, found: false } : { ns, found: true, fields: r };
  }

  updateRecord(key, field, value) {
    checkField(field, this.rec.fields);
    const t0 = now();
    const { changes } = this.rec.update[field].run(value, key);
    const ns = since(t0);
    if (changes !== 1) throw new Error(`update of ${JSON.stringify(key)}: no such record`);
    return { ns };
  }

  insertRecord(key, fields) {
    checkFieldCount(fields, this.rec.fields);
    const t0 = now();
    this.rec.insert.run(key, ...fields); // a duplicate key throws
    return { ns: since(t0) };
  }

  scanRecords(start, n) {
    const t0 = now();
    const t = tallyRecords(this.rec.scan.iterate(start, n));
    return { ns: since(t0), rows: t.n, checksum: hex64(t.sum) };
  }
}

// insertAll inserts persons order[0..n) (or 0..n) one by one, between BEGIN and COMMIT, with one
// prepared statement, and returns the nanoseconds from BEGIN to COMMIT.
function insertAll(db, name, p, order, n) {
  const ins = db.prepare(insertInto(name));
  const begin = db.prepare('BEGIN');
  const commit = db.prepare('COMMIT');
  const t0 = now();
  begin.run();
  for (let j = 0; j < n; j++) {
    const i = order ? order[j] : j;
    ins.run(p.emailString(i), p.nameString(i), p.ages[i]);
  }
  commit.run();
  return since(t0);
}

// openReader opens a read-only connection in a reader thread (see ReaderPool).
export function openReader({ path }) {
  const stmt = connect(path, true).prepare(SCAN).raw(true);
  return { scan: (rows) => scan(stmt, rows) };
}
