// Spawns the client per library and speaks the protocol to it, checking every tally against the
// shared vectors. pg runs only when DBBENCH_TEST_PG_DSN names a server the test may use.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { vectors, datasetPath } from './testdata.js';

const bin = fileURLToPath(new URL('../bin/dbbench-client.js', import.meta.url));
const ds = vectors.dataset;
const pgDSN = process.env.DBBENCH_TEST_PG_DSN;

// Client is one running client: request sends a request and resolves with its reply.
class Client {
  constructor(library) {
    this.proc = spawn(process.execPath, [bin, library], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.stderr = '';
    this.proc.stderr.on('data', (d) => (this.stderr += d));
    this.lines = createInterface({ input: this.proc.stdout })[Symbol.asyncIterator]();
    this.exited = new Promise((resolve) => this.proc.on('exit', (code) => resolve(code)));
    this.id = 0;
  }

  async send(line) {
    this.proc.stdin.write(line + '\n');
    const { value, done } = await this.lines.next();
    assert.ok(!done, `the client ended its output; stderr: ${this.stderr}`);
    return JSON.parse(value);
  }

  async request(req) {
    const id = ++this.id;
    const reply = await this.send(JSON.stringify({ id, ...req }));
    assert.equal(reply.id, id, `reply to ${JSON.stringify(req)}: ${JSON.stringify(reply)}`);
    return reply;
  }

  // ok sends a request that must succeed.
  async ok(req) {
    const reply = await this.request(req);
    assert.equal(reply.error, undefined, `${req.op}: ${reply.error}`);
    return reply;
  }

  // end closes stdin and resolves with the exit status.
  end() {
    this.proc.stdin.end();
    return this.exited;
  }
}

const libraries = [
  { library: 'lmdb', options: { map_size: '64MiB' } },
  { library: 'better-sqlite3', options: {} },
  { library: 'pg', options: {}, skip: !pgDSN && 'DBBENCH_TEST_PG_DSN is not set' },
];

// started starts a client on library with a fresh temp dir and, for pg, a fresh schema named after
// tag, all removed once t ends.
async function started(t, library, tag) {
  const tempDir = mkdtempSync(join(tmpdir(), 'dbbench-node-test-'));
  let postgres;
  if (library === 'pg') {
    postgres = { dsn: pgDSN, schema: `dbbench_node_${tag}_${process.pid}` };
    await admin(postgres, (c) => c.query(`CREATE SCHEMA ${postgres.schema}`));
  }
  const c = new Client(library);
  t.after(async () => {
    c.proc.kill();
    rmSync(tempDir, { recursive: true, force: true });
    if (postgres) await admin(postgres, (c) => c.query(`DROP SCHEMA IF EXISTS ${postgres.schema} CASCADE`));
  });
  return { c, tempDir, postgres };
}

for (const { library, options, skip } of libraries) {
  test(`session: ${library}`, { skip }, async (t) => {
    const { c, tempDir, postgres } = await started(t, library, 'test');

    const hello = await c.ok({ op: 'hello', protocol: 1, dbbench: 'test' });
    assert.equal(hello.protocol, 1);
    assert.equal(hello.language, 'JavaScript');
    assert.equal(hello.library, library);
    assert.match(hello.library_version, /^\d+\.\d+\.\d+/);
    assert.deepEqual(hello.workloads, ['scan', 'lookup', 'insert', 'concurrent']);
    for (const k of Object.keys(options)) assert.ok(hello.options.includes(k), `option ${k} not listed`);

    assert.match((await c.request({ op: 'scan', rows: 10 })).error, /no store is open/);
    const open = await c.ok({ op: 'open', options, size: ds.n, seed: ds.seed, temp_dir: tempDir, dataset: datasetPath, postgres });
    assert.equal(open.scans_in_key_order, true);
    assert.equal(typeof open.info, 'object');
    if (postgres) assert.ok(!JSON.stringify(open).includes(pgDSN), 'the DSN leaked into the open reply');

    const load = await c.ok({ op: 'load' });
    assert.equal(load.rows, ds.n);

    const tallies = [
      ['scan all', { op: 'scan', rows: ds.n }, ds.n, ds.sum_all],
      ['scan 10', { op: 'scan', rows: 10 }, 10, ds.sum_sorted_prefix_10],
      ['scan 0', { op: 'scan', rows: 0 }, 0, '0000000000000000'],
      ['lookup the first 10', { op: 'lookup', keys: [9, 8, 7, 6, 5, 4, 3, 2, 1, 0] }, 10, ds.sum_first_10],
      ['insert 10', { op: 'insert', rows: 10 }, 10, ds.sum_first_10],
      ['insert all', { op: 'insert', rows: ds.n }, ds.n, ds.sum_all],
    ];
    for (const [name, req, rows, checksum] of tallies) {
      const r = await c.ok(req);
      assert.equal(r.rows, rows, name);
      assert.equal(r.checksum, checksum, name);
      if (req.op === 'lookup') {
        assert.equal(r.latencies_ns.length, req.keys.length, name);
        assert.ok(r.latencies_ns.every((ns) => Number.isInteger(ns) && ns > 0), name);
      } else {
        assert.ok(Number.isInteger(r.elapsed_ns) && r.elapsed_ns > 0, name);
      }
    }
    for (const readers of [1, 3]) {
      const r = await c.ok({ op: 'concurrent', readers, rows: ds.n });
      assert.equal(r.readers.length, readers);
      for (const rd of r.readers) {
        assert.deepEqual([rd.rows, rd.checksum], [ds.n, ds.sum_all]);
        assert.ok(rd.elapsed_ns > 0 && rd.elapsed_ns <= r.wall_ns, `reader ${rd.elapsed_ns} ns, wall ${r.wall_ns} ns`);
      }
    }

    // Failed requests are answered with an error, and the client stays usable.
    const bad = [
      [{ op: 'scan', rows: ds.n + 1 }, /rows 1001/],
      [{ op: 'scan' }, /rows undefined/],
      [{ op: 'lookup', keys: [ds.n] }, /key 1000/],
      [{ op: 'concurrent', readers: 0, rows: 1 }, /readers 0/],
      [{ op: 'open', options, temp_dir: tempDir, dataset: datasetPath, postgres }, /open already/],
      [{ op: 'frobnicate' }, /unknown op "frobnicate"/],
      [{ op: 'hello', protocol: 3 }, /protocol version 3 is not supported/],
      [{ op: 'insert', rows: 1, keep: true }, /keep needs protocol version 2/],
      [{ op: 'drop' }, /no insert kept its store/],
    ];
    for (const [req, want] of bad) {
      const r = await c.request(req);
      assert.match(r.error ?? '', want, JSON.stringify(req));
    }
    for (const line of ['not json', '[1,2]', '{"op":"ping"}']) {
      const r = await c.send(line);
      assert.equal(r.id, 0, line);
      assert.match(r.error, /^bad request/, line);
    }
    await c.ok({ op: 'ping' });
    assert.equal((await c.ok({ op: 'scan', rows: ds.n })).checksum, ds.sum_all);

    await c.ok({ op: 'close' });
    assert.equal(await c.end(), 0);
    if (postgres) assert.ok(!c.stderr.includes(pgDSN), 'the DSN leaked into stderr');
  });
}

test('the end of stdin ends an open session', async () => {
  const tempDir = mkdtempSync(join(tmpdir(), 'dbbench-node-test-'));
  try {
    const c = new Client('lmdb');
    await c.ok({ op: 'hello', protocol: 1 });
    await c.ok({ op: 'open', options: {}, temp_dir: tempDir, dataset: datasetPath });
    await c.ok({ op: 'load' });
    await c.ok({ op: 'concurrent', readers: 2, rows: 10 }); // reader threads must not keep it alive
    assert.equal(await c.end(), 0);
  } finally {
    rmSync(tempDir, { recursive: true, force: true });
  }
});

test('the lmdb path option refuses a non-empty directory', async () => {
  const tempDir = mkdtempSync(join(tmpdir(), 'dbbench-node-test-'));
  try {
    const c = new Client('lmdb');
    await c.ok({ op: 'hello', protocol: 1 });
    const r = await c.request({ op: 'open', options: { path: join(tempDir, '..') }, temp_dir: tempDir, dataset: datasetPath });
    assert.match(r.error, /is not empty/);
    assert.equal(await c.end(), 0);
  } finally {
    rmSync(tempDir, { recursive: true, force: true });
  }
});

test('an unknown library is a usage error', async () => {
  const c = new Client('leveldb');
  assert.equal(await c.exited, 2);
  assert.match(c.stderr, /usage: dbbench-client.js LIBRARY/);
});

async function admin(postgres, f) {
  const c = new pg.Client({ connectionString: postgres.dsn });
  await c.connect();
  try {
    await f(c);
  } finally {
    await c.end();
  }
}

// countRows counts what a store a version 2 reply describes holds, read the way dbbench reads it:
// from outside the client, read-only.
function countRows(store) {
  const db = new Database(store.path, { readonly: true });
  try {
    return db.prepare(`SELECT count(*) FROM ${store.table}`).pluck().get();
  } finally {
    db.close();
  }
}

for (const library of ['better-sqlite3']) {
  test(`protocol 2: ${library} describes its stores and keeps an insert's until drop`, async (t) => {
    const tempDir = mkdtempSync(join(tmpdir(), 'dbbench-node-test-'));
    const c = new Client(library);
    t.after(() => {
      c.proc.kill();
      rmSync(tempDir, { recursive: true, force: true });
    });
    const hello = await c.ok({ op: 'hello', protocol: 2, dbbench: 'test' });
    assert.equal(hello.protocol, 2);
    assert.deepEqual(hello.capabilities, ['keep_store', 'store', 'ops', 'phases']);
    await c.ok({ op: 'open', options: {}, size: ds.n, seed: ds.seed, temp_dir: tempDir, dataset: datasetPath });
    const load = await c.ok({ op: 'load' });
    assert.equal(load.store.kind, 'sqlite');
    assert.equal(countRows(load.store), ds.n);

    const kept = await c.ok({ op: 'insert', rows: 10, keep: true });
    assert.ok(Number.isInteger(kept.elapsed_ns) && kept.elapsed_ns > 0);
    assert.equal(countRows(kept.store), 10);
    assert.match((await c.request({ op: 'insert', rows: 10, keep: true })).error, /still kept/);
    await c.ok({ op: 'drop' });
    assert.throws(() => countRows(kept.store), /no such table/);
    assert.match((await c.request({ op: 'drop' })).error, /no insert kept its store/);
    await c.ok({ op: 'close' });
    assert.equal(await c.end(), 0);
  });
}

// The lmdb backend's store is kind other (lmdb-js writes LMDB 1.0's format): it takes the challenge.
test('protocol 2: lmdb takes the challenge', async (t) => {
  const tempDir = mkdtempSync(join(tmpdir(), 'dbbench-node-test-'));
  const c = new Client('lmdb');
  t.after(() => {
    c.proc.kill();
    rmSync(tempDir, { recursive: true, force: true });
  });
  const hello = await c.ok({ op: 'hello', protocol: 2, dbbench: 'test' });
  assert.deepEqual(hello.capabilities, ['store', 'challenge', 'ops', 'phases']);
  await c.ok({ op: 'open', options: {}, size: ds.n, seed: ds.seed, temp_dir: tempDir, dataset: datasetPath });
  assert.deepEqual((await c.ok({ op: 'load' })).store, { kind: 'other' });
  const persons = [{ email: 'challenge.0@challenge.invalid', name: 'Challenge X', age: 33 }, { email: 'a@challenge.invalid', name: 'Y', age: 18 }];
  await c.ok({ op: 'challenge', persons });
  const look = await c.ok({ op: 'lookup', emails: [persons[1].email, persons[0].email, 'nobody@challenge.invalid'] });
  assert.equal(look.rows, 2);
  assert.equal(look.latencies_ns.length, 3);
  const scan = await c.ok({ op: 'scan', rows: ds.n + 2 });
  assert.equal(scan.rows, ds.n + 2);
  assert.equal(BigInt('0x' + scan.checksum), (BigInt('0x' + ds.sum_all) + BigInt('0x' + look.checksum)) % 2n ** 64n);
  await c.ok({ op: 'challenge', remove: true });
  const after = await c.ok({ op: 'scan', rows: ds.n + 2 });
  assert.deepEqual([after.rows, after.checksum], [ds.n, ds.sum_all]);
  assert.match((await c.request({ op: 'insert', rows: 1, keep: true })).error, /does not offer keep_store/);
  await c.ok({ op: 'close' });
  assert.equal(await c.end(), 0);
});

// Capability phases: asked in open, scans and lookups carry their phases in order, tiling their own
// time; unasked, and on other replies, there are none; protocol 1 offers none and refuses profile.
const phaseNames = {
  lmdb: { scan: ['get', 'decode', 'txn'], lookup: ['get', 'decode', 'txn'] },
  'better-sqlite3': { scan: ['fetch', 'decode'], lookup: ['execute', 'decode'] },
  pg: { scan: ['execute', 'decode'], lookup: ['execute', 'decode'] },
};
for (const { library, options, skip } of libraries) {
  test(`phases: ${library}`, { skip }, async (t) => {
    for (const profile of [true, false]) {
      const { c, tempDir, postgres } = await started(t, library, `phases_${profile}`);
      const hello = await c.ok({ op: 'hello', protocol: 2, dbbench: 'test' });
      assert.ok(hello.capabilities.includes('phases'));
      await c.ok({ op: 'open', options, size: ds.n, seed: ds.seed, temp_dir: tempDir, dataset: datasetPath, postgres, profile });
      await c.ok({ op: 'load' });
      const scan = await c.ok({ op: 'scan', rows: ds.n });
      assert.equal(scan.checksum, ds.sum_all);
      const lookup = await c.ok({ op: 'lookup', keys: [9, 8, 7, 6, 5, 4, 3, 2, 1, 0] });
      assert.equal(lookup.checksum, ds.sum_first_10);
      assert.equal((await c.ok({ op: 'insert', rows: 10 })).phases_ns, undefined);
      if (!profile) {
        assert.equal(scan.phases_ns, undefined);
        assert.equal(lookup.phases_ns, undefined);
        continue;
      }
      const { scan: scanNames, lookup: lookupNames } = phaseNames[library];
      for (const [reply, own, names] of [[scan, scan.elapsed_ns, scanNames], [lookup, lookup.latencies_ns.reduce((a, b) => a + b, 0), lookupNames]]) {
        assert.deepEqual(Object.keys(reply.phases_ns), names);
        const values = Object.values(reply.phases_ns);
        assert.ok(values.every((ns) => Number.isInteger(ns) && ns >= 0), JSON.stringify(reply.phases_ns));
        const sum = values.reduce((a, b) => a + b, 0);
        assert.ok(sum <= own && sum > 0.9 * own, `phases ${JSON.stringify(reply.phases_ns)} for ${own} ns`);
      }
    }
  });
}

test('phases: protocol 1 offers none and refuses profile', async (t) => {
  const tempDir = mkdtempSync(join(tmpdir(), 'dbbench-node-test-'));
  const c = new Client('better-sqlite3');
  t.after(() => {
    c.proc.kill();
    rmSync(tempDir, { recursive: true, force: true });
  });
  const hello = await c.ok({ op: 'hello', protocol: 1, dbbench: 'test' });
  assert.equal(hello.capabilities, undefined);
  const r = await c.request({ op: 'open', options: {}, size: ds.n, seed: ds.seed, temp_dir: tempDir, dataset: datasetPath, profile: true });
  assert.match(r.error, /capability phases/);
});
