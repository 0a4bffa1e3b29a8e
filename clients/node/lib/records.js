// YCSB's records (protocol 2, capability ops): the record file dbbench writes, RecordSum, and the
// checks of a do request. Keys and fields are printable ASCII (docs/protocol.md), so a JavaScript
// string's char codes are its bytes.

import { readFileSync } from 'node:fs';

const M = 0x9e3779b97f4a7c15n;
const MASK = (1n << 64n) - 1n;

// readRecordFile returns the field count, the record count and the records, each [key, fields] as
// strings, of the record file at path: DBBRECS1, uint32 version 1, uint32 F, uint64 C, then per
// record a uint32-length-prefixed key and F uint32-length-prefixed fields, little-endian.
export function readRecordFile(path) {
  const b = readFileSync(path);
  if (b.length < 24 || b.toString('latin1', 0, 8) !== 'DBBRECS1' || b.readUInt32LE(8) !== 1) {
    throw new Error(`${path} is not a version 1 record file`);
  }
  const fields = b.readUInt32LE(12);
  const count = Number(b.readBigUInt64LE(16));
  const records = [];
  let off = 24;
  const take = () => {
    if (off + 4 > b.length) throw new Error(`${path} is cut short`);
    const n = b.readUInt32LE(off);
    if (off + 4 + n > b.length) throw new Error(`${path} is cut short`);
    const s = b.toString('latin1', off + 4, off + 4 + n);
    off += 4 + n;
    return s;
  };
  for (let i = 0; i < count; i++) {
    const key = take();
    const fs = new Array(fields);
    for (let f = 0; f < fields; f++) fs[f] = take();
    records.push([key, fs]);
  }
  return { fields, count, records };
}

// readRecords reads the record file at path, which load_records says holds count records.
export function readRecords(path, count) {
  const file = readRecordFile(path);
  if (file.count !== count) throw new Error(`the file holds ${file.count} records, the request says ${count}`);
  return file;
}

// fold(h, s) of the spec over the char codes of an ASCII string.
function fold(h, s) {
  const n = s.length;
  const word = (p, k) => {
    let v = 0n;
    for (let i = k - 1; i >= 0; i--) v = (v << 8n) | BigInt(s.charCodeAt(p + i));
    return v;
  };
  if (n < 8) return ((h ^ word(0, n)) * M) & MASK;
  let p = 0;
  for (; n - p > 8; p += 8) h = ((h ^ word(p, 8)) * M) & MASK;
  return ((h ^ word(n - 8, 8)) * M) & MASK;
}

// recordSum is dataset.RecordSum of one record (key and fields as ASCII strings), as a BigInt.
export function recordSum(key, fields) {
  let h = ((BigInt(key.length) << 32n) ^ BigInt(fields.length)) & MASK;
  h = fold(h, key);
  for (const f of fields) {
    h = ((h ^ BigInt(f.length)) * M) & MASK;
    h = fold(h, f);
  }
  h = (h * M) & MASK;
  return h ^ (h >> 29n);
}

export const hex64 = (s) => (s & MASK).toString(16).padStart(16, '0');

// tallyRecords folds SQL rows of [key, field0, ...] (strings): their count and the sum of their
// RecordSums (a BigInt; hex64 spells it).
export function tallyRecords(rows) {
  let n = 0;
  let sum = 0n;
  for (const r of rows) {
    sum += recordSum(r[0], r.slice(1));
    n++;
  }
  return { n, sum };
}

// checkField and checkFieldCount refuse an update of a field, or an insert of values, that records
// of `fields` fields do not have.
export function checkField(field, fields) {
  if (field < 0 || field >= fields) throw new Error(`update of field ${field}: records have ${fields}`);
}

export function checkFieldCount(values, fields) {
  if (values.length !== fields) throw new Error(`insert with ${values.length} fields: records have ${fields}`);
}

// doRecords answers load_records and do on a backend that serves records.
export function doRecords(b, req) {
  if (req.op === 'load_records') {
    if (typeof req.file !== 'string') throw new Error('file is not a path');
    if (!Number.isSafeInteger(req.count) || req.count < 0) throw new Error('count is not a non-negative integer');
    return b.loadRecords(req.file, req.count);
  }
  const key = ascii(req.key, 'key');
  switch (req.kind) {
    case 'read':
      return b.readRecord(key);
    case 'update':
      if (!Number.isSafeInteger(req.field)) throw new Error('field is not an integer');
      return b.updateRecord(key, req.field, ascii(req.value, 'value'));
    case 'insert':
      if (!Array.isArray(req.fields)) throw new Error('fields is not an array');
      return b.insertRecord(key, req.fields.map((f) => ascii(f, 'field')));
    case 'scan':
      if (!Number.isSafeInteger(req.count) || req.count < 0) throw new Error('count is not a non-negative integer');
      return b.scanRecords(key, req.count);
  }
  throw new Error(`unknown kind ${JSON.stringify(req.kind)} (read, update, insert or scan)`);
}

function ascii(v, what) {
  if (typeof v !== 'string' || !/^[\x20-\x7e]*$/.test(v)) throw new Error(`${what} is not a string of printable ASCII`);
  return v;
}
