// RecordSum against dataset.RecordSum's values (Go), and the record file reader.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readRecordFile, readRecords, recordSum, tallyRecords, hex64 } from '../lib/records.js';

test('recordSum matches dataset.RecordSum', () => {
  assert.equal(hex64(recordSum('', [])), '0000000000000000');
  assert.equal(hex64(recordSum('user1', ['abc', '', '0123456789abcdefX'])), '5608f1afc9937c37');
  assert.notEqual(recordSum('k', ['a', 'b']), recordSum('k', ['b', 'a']));
});

test('tallyRecords reads a SQL row as the key, then the fields', () => {
  const one = tallyRecords([['user1', 'abc', '', '0123456789abcdefX']]);
  assert.deepEqual([one.n, hex64(one.sum)], [1, '5608f1afc9937c37']);
  const two = tallyRecords([['user1', 'abc', '', '0123456789abcdefX'], ['', 'x']]);
  assert.deepEqual([two.n, two.sum], [2, one.sum + recordSum('', ['x'])]);
});

test('readRecordFile reads records and refuses other files', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'dbbench-node-records-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const lp = (s) => { const b = Buffer.alloc(4 + s.length); b.writeUInt32LE(s.length); b.write(s, 4, 'latin1'); return b; };
  const head = Buffer.alloc(24);
  head.write('DBBRECS1', 0, 'latin1');
  head.writeUInt32LE(1, 8);
  head.writeUInt32LE(2, 12);
  head.writeBigUInt64LE(2n, 16);
  const path = join(dir, 'r.bin');
  writeFileSync(path, Buffer.concat([head, lp('user1'), lp('x'), lp(''), lp('k2'), lp('yy'), lp('zzz')]));
  const got = readRecordFile(path);
  assert.equal(got.fields, 2);
  assert.deepEqual(got.records, [['user1', ['x', '']], ['k2', ['yy', 'zzz']]]);
  assert.deepEqual(readRecords(path, 2), got);
  assert.throws(() => readRecords(path, 3), /the file holds 2 records, the request says 3/);
  writeFileSync(path, Buffer.concat([head.subarray(0, 24), lp('user1')]));
  assert.throws(() => readRecordFile(path), /cut short/);
});
