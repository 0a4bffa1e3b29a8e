// The pg backend: node-postgres on the server and schema dbbench names in open.postgres, with the
// reference SQL statements of docs/protocol.md. Rows come back as arrays (rowMode 'array') of email
// and name strings and the age number. The DSN is a secret: it appears in no reply and no message.

import pg from 'pg';
import { Tally, tallyRows } from './rowsum.js';
import { now, since } from './clock.js';
import { Phases } from './phases.js';
import { packageVersion } from './meta.js';
import { readRecords, tallyRecords, checkField, checkFieldCount, hex64 } from './records.js';

const SCAN = 'SELECT email, name, age FROM persons ORDER BY email LIMIT $1';
const LOOKUP = 'SELECT email, name, age FROM persons WHERE email = $1';
const LOAD_BATCH = 10000; // persons per multi-row INSERT of the load
const table = (name) => `CREATE TABLE ${name} (email TEXT COLLATE "C" PRIMARY KEY, name TEXT NOT NULL, age INTEGER NOT NULL)`;

const quoteIdent = (s) => `"${s.replaceAll('"', '""')}"`;

export class Backend {
  capabilities = ['keep_store', 'store', 'ops'];
  library = 'pg';
  libraryVersion = packageVersion('pg');
  options = [];

  async open({ persons, postgres }) {
    if (!postgres || typeof postgres.dsn !== 'string' || typeof postgres.schema !== 'string' || !postgres.schema) {
      throw new Error('needs open.postgres {dsn, schema}: give the target postgres: true or a dsn');
    }
    this.persons = persons;
    this.postgres = postgres;
    this.readers = [];
    this.client = await this.connect();
    await this.client.query(table('persons'));
    const version = (await this.client.query('SHOW server_version')).rows[0].server_version;
    return {
      info: {
        server_version: version,
        load: `multi-row INSERT ... SELECT FROM unnest($1::text[], $2::text[], $3::int[]), ${LOAD_BATCH} persons each, one transaction; then VACUUM ANALYZE`,
        lookup: 'one named prepared statement',
        concurrency: 'one connection per reader, all queries in flight at once on one event loop',
      },
      scans_in_key_order: true,
    };
  }

  // connect opens a connection whose tables live in the target's schema. Connection errors are
  // reported without the DSN.
  async connect() {
    const c = new pg.Client({ connectionString: this.postgres.dsn });
    c.on('error', () => {}); // a dropped connection fails the next query instead
    try {
      await c.connect();
      await c.query(`SET search_path TO ${quoteIdent(this.postgres.schema)}`);
    } catch (err) {
      await c.end().catch(() => {});
      throw new Error(`connect to PostgreSQL: ${err.message}`);
    }
    return c;
  }

  async load() {
    const p = this.persons;
    const c = this.client;
    const t0 = now();
    await c.query('BEGIN');
    for (let j = 0; j < p.n; j += LOAD_BATCH) {
      const idx = p.sorted.subarray(j, j + LOAD_BATCH);
      await c.query('INSERT INTO persons (email, name, age) SELECT * FROM unnest($1::text[], $2::text[], $3::int[])', [
        Array.from(idx, (i) => p.emailString(i)), Array.from(idx, (i) => p.nameString(i)), Array.from(idx, (i) => p.ages[i]),
      ]);
    }
    await c.query('COMMIT');
    const elapsed = since(t0);
    // docs/protocol.md: neither hint bits nor an autovacuum arriving mid-run may change the reads.
    await c.query('VACUUM ANALYZE persons');
    return { rows: p.n, elapsed_ns: elapsed };
  }

  async scan(rows) {
    return scanOn(this.client, rows);
  }

  async lookup(keys) {
    const c = this.client;
    const emails = Array.from(keys, (i) => this.persons.emailString(i)); // ready before the clock starts
    const latencies = new Array(keys.length);
    const t = new Tally();
    let t0 = now();
    for (let j = 0; j < emails.length; j++) {
      const res = await c.query({ name: 'dbbench_lookup', text: LOOKUP, values: [emails[j]], rowMode: 'array' });
      for (const r of res.rows) t.addStrings(r[0], r[1], r[2]);
      const t1 = now();
      latencies[j] = Number(t1 - t0);
      t0 = t1;
    }
    return { rows: t.rows, checksum: t.checksum, latencies_ns: latencies };
  }

  async scanProfiled(rows) {
    return scanProfiledOn(this.client, rows);
  }

  // lookupProfiled is lookup split into execute (the prepared statement's round trip) and decode.
  async lookupProfiled(keys) {
    const c = this.client;
    const emails = Array.from(keys, (i) => this.persons.emailString(i));
    const latencies = new Array(keys.length);
    const t = new Tally();
    const ph = new Phases();
    let t0 = now();
    for (let j = 0; j < emails.length; j++) {
      const res = await c.query({ name: 'dbbench_lookup', text: LOOKUP, values: [emails[j]], rowMode: 'array' });
      const t1 = now();
      for (const r of res.rows) t.addStrings(r[0], r[1], r[2]);
      const t2 = now();
      ph.add('execute', t1 - t0);
      ph.add('decode', t2 - t1);
      latencies[j] = Number(t2 - t0);
      t0 = t2;
    }
    return { rows: t.rows, checksum: t.checksum, latencies_ns: latencies, phases_ns: ph.json() };
  }

  // readKept reads back the table insertKeep kept.
  async readKept() {
    return tallyRows((await this.client.query({ text: 'SELECT email, name, age FROM persons_insert', rowMode: 'array' })).rows);
  }

  // insertKeep inserts into a fresh table and keeps it for dbbench to read (protocol 2).
  async insertKeep(rows) {
    const c = this.client;
    const p = this.persons;
    await c.query(table('persons_insert'));
    const text = 'INSERT INTO persons_insert (email, name, age) VALUES ($1, $2, $3)';
    try {
      const t0 = now();
      await c.query('BEGIN');
      for (let i = 0; i < rows; i++) {
        await c.query({ name: 'dbbench_insert', text, values: [p.emailString(i), p.nameString(i), p.ages[i]] });
      }
      await c.query('COMMIT');
      return { elapsed_ns: since(t0), store: { kind: 'postgres', schema: this.postgres.schema, table: 'persons_insert' } };
    } catch (err) {
      await c.query('ROLLBACK').catch(() => {});
      await this.drop();
      throw err;
    }
  }

  async drop() {
    await this.client.query('DROP TABLE persons_insert');
  }

  // store describes the loaded table for dbbench (protocol 2).
  store() {
    return { kind: 'postgres', schema: this.postgres.schema, table: 'persons' };
  }

  async concurrent(readers, rows) {
    while (this.readers.length < readers) this.readers.push(await this.connect());
    const t0 = now();
    const results = await Promise.all(this.readers.slice(0, readers).map(async (c) => ({ ...(await scanOn(c, rows)), end: now() })));
    let end = t0;
    for (const r of results) if (r.end > end) end = r.end;
    return { wall_ns: Number(end - t0), readers: results.map(({ end, ...r }) => r) };
  }

  // YCSB's records (capability ops) in usertable(ycsb_key, field0, ...) of the schema, as the Go sql
  // adapter's; each operation one named prepared statement in autocommit mode (its own transaction).
  async loadRecords(path, count) {
    const { fields, count: n, records } = readRecords(path, count);
    const c = this.client;
    const cols = Array.from({ length: fields }, (_, f) => `field${f}`);
    const names = cols.join(', ');
    await c.query('DROP TABLE IF EXISTS usertable');
    await c.query(`CREATE TABLE usertable (ycsb_key TEXT COLLATE "C" PRIMARY KEY${cols.map((x) => `, ${x} TEXT NOT NULL`).join('')})`);
    const unnest = Array.from({ length: fields + 1 }, (_, i) => `$${i + 1}::text[]`).join(', ');
    await c.query('BEGIN');
    for (let j = 0; j < n; j += LOAD_BATCH) {
      const batch = records.slice(j, j + LOAD_BATCH);
      const columns = [batch.map((r) => r[0]), ...cols.map((_, f) => batch.map((r) => r[1][f]))];
      await c.query(`INSERT INTO usertable (ycsb_key, ${names}) SELECT * FROM unnest(${unnest})`, columns);
    }
    await c.query('COMMIT');
    await c.query('VACUUM ANALYZE usertable');
    this.recFields = fields;
    this.recLoads = (this.recLoads ?? 0) + 1; // statement names per load: a new table, new plans
    const v = this.recLoads;
    this.recSQL = {
      read: { name: `rec_read_${v}`, text: `SELECT ${names} FROM usertable WHERE ycsb_key = $1`, rowMode: 'array' },
      update: cols.map((x) => ({ name: `rec_update_${x}_${v}`, text: `UPDATE usertable SET ${x} = $1 WHERE ycsb_key = $2` })),
      insert: { name: `rec_insert_${v}`, text: `INSERT INTO usertable (ycsb_key, ${names}) VALUES ($1${cols.map((_, f) => `, $${f + 2}`).join('')})` },
      scan: { name: `rec_scan_${v}`, text: `SELECT ycsb_key, ${names} FROM usertable WHERE ycsb_key >= $1 ORDER BY ycsb_key LIMIT $2`, rowMode: 'array' },
    };
    return { rows: Number((await c.query('SELECT count(*) AS n FROM usertable')).rows[0].n) };
  }

  async readRecord(key) {
    const t0 = now();
    const { rows } = await this.client.query({ ...this.recSQL.read, values: [key] });
    const ns = since(t0);
    return rows.length === 0 ? { ns, found: false } : { ns, found: true, fields: rows[0] };
  }

  async updateRecord(key, field, value) {
    checkField(field, this.recFields);
    const t0 = now();
    const { rowCount } = await this.client.query({ ...this.recSQL.update[field], values: [value, key] });
    const ns = since(t0);
    if (rowCount !== 1) throw new Error(`update of ${JSON.stringify(key)}: no such record`);
    return { ns };
  }

  async insertRecord(key, fields) {
    checkFieldCount(fields, this.recFields);
    const t0 = now();
    await this.client.query({ ...this.recSQL.insert, values: [key, ...fields] }); // a duplicate key throws
    return { ns: since(t0) };
  }

  async scanRecords(start, n) {
    const t0 = now();
    const { rows } = await this.client.query({ ...this.recSQL.scan, values: [start, n] });
    const t = tallyRecords(rows);
    return { ns: since(t0), rows: t.n, checksum: hex64(t.sum) };
  }

  async close() {
    const cs = [this.client, ...this.readers];
    this.readers = [];
    await Promise.all(cs.map((c) => c.end()));
  }
}

// scanOn reads the first rows persons in email order on connection c: one statement, so one
// (autocommit) read transaction.
// scanProfiledOn is scanOn split into execute (the query until node-postgres hands over its rows,
// all of them: it reads a whole result) and decode (RowSum over the rows).
async function scanProfiledOn(c, rows) {
  const ph = new Phases();
  const t0 = now();
  const res = await c.query({ text: SCAN, values: [rows], rowMode: 'array' });
  const t1 = now();
  const t = tallyRows(res.rows);
  const t2 = now();
  ph.add('execute', t1 - t0);
  ph.add('decode', t2 - t1);
  return { rows: t.rows, checksum: t.checksum, elapsed_ns: Number(t2 - t0), phases_ns: ph.json() };
}

async function scanOn(c, rows) {
  const t0 = now();
  const t = tallyRows((await c.query({ text: SCAN, values: [rows], rowMode: 'array' })).rows);
  return { rows: t.rows, checksum: t.checksum, elapsed_ns: since(t0) };
}
