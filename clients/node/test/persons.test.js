import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { PersonFile } from '../lib/persons.js';
import { Tally } from '../lib/rowsum.js';
import { vectors, datasetPath } from './testdata.js';

const ds = vectors.dataset;

test('the person file: header, person 0 and the dataset sums', () => {
  const p = PersonFile.read(datasetPath);
  assert.equal(p.n, ds.n);
  assert.equal(p.seed, BigInt(ds.seed));
  assert.equal(p.checksum, ds.sum_all);
  assert.deepEqual(p.person(0), ds.person0);

  const sum = (indices, asBytes) => {
    const t = new Tally();
    for (const i of indices) {
      if (asBytes) t.addBytes(p.buf, p.emailStart(i), p.emailEnd(i), p.buf, p.nameStart(i), p.nameEnd(i), p.age(i));
      else t.addStrings(p.emailString(i), p.nameString(i), p.age(i));
    }
    return t.checksum;
  };
  const all = Array.from({ length: p.n }, (_, i) => i);
  for (const asBytes of [true, false]) {
    assert.equal(sum(all, asBytes), ds.sum_all);
    assert.equal(sum(all.slice(0, 10), asBytes), ds.sum_first_10);
    assert.equal(sum(p.sorted.subarray(0, 10), asBytes), ds.sum_sorted_prefix_10);
  }
  for (let j = 1; j < p.n; j++) {
    assert.ok(Buffer.compare(p.email(p.sorted[j - 1]), p.email(p.sorted[j])) < 0, `sorted index out of order at ${j}`);
  }
});

test('a broken person file is refused in one line', () => {
  const good = readFileSync(datasetPath);
  const cases = [
    ['empty', Buffer.alloc(0), /not a person file/],
    ['wrong magic', Buffer.concat([Buffer.from('NOTPERS1'), good.subarray(8)]), /not a person file/],
    ['truncated', good.subarray(0, good.length - 1), /bytes, the header says/],
    ['version 2', (() => { const b = Buffer.from(good); b.writeUInt32LE(2, 8); return b; })(), /version 2/],
  ];
  for (const [name, buf, want] of cases) {
    assert.throws(() => new PersonFile(buf), (err) => want.test(err.message) && !err.message.includes('\n'), name);
  }
});
