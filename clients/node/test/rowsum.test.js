import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rowSum, Tally } from '../lib/rowsum.js';
import { vectors } from './testdata.js';

test('RowSum vectors, from strings and from bytes', () => {
  for (const v of vectors.rowsum) {
    assert.equal(rowSum(v.email, v.name, v.age), v.sum, `strings ${JSON.stringify(v)}`);
    assert.equal(rowSum(Buffer.from(v.email), Buffer.from(v.name), v.age), v.sum, `bytes ${JSON.stringify(v)}`);
  }
});

test('a non-ASCII string is folded as its UTF-8 bytes', () => {
  const email = 'zoë.straße@example.org';
  assert.equal(rowSum(email, 'Zoë', 30), rowSum(Buffer.from(email), Buffer.from('Zoë'), 30));
});

test('a tally is the sum of its rows modulo 2^64, in any order', () => {
  const rows = vectors.rowsum;
  const want = rows.reduce((s, v) => (s + BigInt('0x' + v.sum)) % 2n ** 64n, 0n).toString(16).padStart(16, '0');
  for (const order of [rows, [...rows].reverse()]) {
    const t = new Tally();
    for (const v of order) t.addStrings(v.email, v.name, v.age);
    assert.equal(t.checksum, want);
    assert.equal(t.rows, rows.length);
  }
});
