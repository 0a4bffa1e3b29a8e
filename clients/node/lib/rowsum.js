// RowSum (docs/protocol.md) on 32-bit halves: JavaScript has no unsigned 64-bit integers short of
// BigInt, which would allocate per row. The hash state lives in module variables, so the hot path
// allocates nothing; a Tally turns its sum into the protocol's 16 hex digits once per reply.

const MH = 0x9e3779b9; // M = 0x9e3779b97f4a7c15
const ML = 0x7f4a7c15;
const ML0 = ML & 0xffff;
const ML1 = ML >>> 16;

let hh = 0; // the high and low 32 bits of h (int32 or uint32: only the bits matter)
let hl = 0;
let wide = 0; // the OR of every char code folded by foldString: > 0x7f means not ASCII

// h = h * M mod 2^64. The high word of hl*ML is built from 16-bit partial products, which doubles
// hold exactly; the cross terms only reach the high word, so Math.imul's low 32 bits suffice.
function mulM() {
  const a0 = hl & 0xffff;
  const a1 = hl >>> 16;
  const p01 = a0 * ML1;
  const p10 = a1 * ML0;
  const mid = ((a0 * ML0) >>> 16) + (p01 & 0xffff) + (p10 & 0xffff);
  const carry = a1 * ML1 + (p01 >>> 16) + (p10 >>> 16) + (mid >>> 16);
  hh = (carry + Math.imul(hh, ML) + Math.imul(hl, MH)) | 0;
  hl = Math.imul(hl, ML);
}

// fold(h, b[s:e]) of the spec: full little-endian words, the last one overlapping.
function fold(b, s, e) {
  const n = e - s;
  if (n < 8) {
    let lo = 0;
    let hi = 0;
    for (let i = 0; i < n; i++) {
      if (i < 4) lo |= b[s + i] << (8 * i);
      else hi |= b[s + i] << (8 * (i - 4));
    }
    hl ^= lo;
    hh ^= hi;
    mulM();
    return;
  }
  let p = s;
  for (; e - p > 8; p += 8) word(b, p);
  word(b, e - 8);
}

function word(b, p) {
  hl ^= b[p] | (b[p + 1] << 8) | (b[p + 2] << 16) | (b[p + 3] << 24);
  hh ^= b[p + 4] | (b[p + 5] << 8) | (b[p + 6] << 16) | (b[p + 7] << 24);
  mulM();
}

// foldString is fold over the char codes of s: its bytes when s is ASCII, which wide tells.
// Reading the string in place is ~40% faster than copying it into bytes first.
function foldString(s) {
  const n = s.length;
  if (n < 8) {
    let lo = 0;
    let hi = 0;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      wide |= c;
      if (i < 4) lo |= c << (8 * i);
      else hi |= c << (8 * (i - 4));
    }
    hl ^= lo;
    hh ^= hi;
    mulM();
    return;
  }
  let p = 0;
  for (; n - p > 8; p += 8) wordString(s, p);
  wordString(s, n - 8);
}

function wordString(s, p) {
  const c0 = s.charCodeAt(p), c1 = s.charCodeAt(p + 1), c2 = s.charCodeAt(p + 2), c3 = s.charCodeAt(p + 3);
  const c4 = s.charCodeAt(p + 4), c5 = s.charCodeAt(p + 5), c6 = s.charCodeAt(p + 6), c7 = s.charCodeAt(p + 7);
  wide |= c0 | c1 | c2 | c3 | c4 | c5 | c6 | c7;
  hl ^= c0 | (c1 << 8) | (c2 << 16) | (c3 << 24);
  hh ^= c4 | (c5 << 8) | (c6 << 16) | (c7 << 24);
  mulM();
}

function finish() {
  mulM();
  hl ^= (hl >>> 29) | (hh << 3);
  hh ^= hh >>> 29;
}

let scratch = new Uint8Array(256);
const utf8 = new TextEncoder();

const hex8 = (x) => (x >>> 0).toString(16).padStart(8, '0');

// Tally counts rows and sums their RowSums modulo 2^64.
export class Tally {
  rows = 0;
  hi = 0;
  lo = 0;

  // addBytes folds a row whose email and name are byte ranges: email eb[es:ee], name nb[ns:ne].
  addBytes(eb, es, ee, nb, ns, ne, age) {
    hh = ((ee - es) << 8) ^ (ne - ns);
    hl = age;
    fold(eb, es, ee);
    fold(nb, ns, ne);
    finish();
    this.#add();
  }

  // addStrings folds a row decoded into JavaScript strings (the SQL drivers' rows). RowSum is over
  // UTF-8 bytes: a string that is not ASCII is encoded first.
  addStrings(email, name, age) {
    hh = (email.length << 8) ^ name.length;
    hl = age;
    wide = 0;
    foldString(email);
    foldString(name);
    if (wide > 0x7f) {
      const n = 3 * (email.length + name.length);
      if (scratch.length < n) scratch = new Uint8Array(2 * n);
      const ee = utf8.encodeInto(email, scratch).written;
      const ne = ee + utf8.encodeInto(name, scratch.subarray(ee)).written;
      this.addBytes(scratch, 0, ee, scratch, ee, ne, age);
      return;
    }
    finish();
    this.#add();
  }

  #add() {
    const lo = this.lo + (hl >>> 0);
    this.lo = lo >>> 0;
    this.hi = (this.hi + (hh >>> 0) + (lo > 0xffffffff ? 1 : 0)) >>> 0;
    this.rows++;
  }

  // checksum is the sum as the protocol sends it: 16 lowercase hexadecimal digits.
  get checksum() {
    return hex8(this.hi) + hex8(this.lo);
  }
}

// tallyRows folds rows of [email, name, age] as the SQL drivers return them (strings and a number).
export function tallyRows(rows) {
  const t = new Tally();
  for (const r of rows) t.addStrings(r[0], r[1], r[2]);
  return t;
}

// rowSum returns RowSum(email, name, age) as 16 hex digits, for strings or byte arrays.
export function rowSum(email, name, age) {
  const t = new Tally();
  if (typeof email === 'string') t.addStrings(email, name, age);
  else t.addBytes(email, 0, email.length, name, 0, name.length, age);
  return t.checksum;
}
