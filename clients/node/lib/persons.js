// The person file (docs/protocol.md, "The person file"): typed-array views over one read of the
// file, so a row costs no allocation until a backend asks for a string or a subarray.

import { readFileSync } from 'node:fs';
import { endianness } from 'node:os';

const MAGIC = 'DBBPERS1';
const VERSION = 1;

export class PersonFile {
  // read loads and checks the file at path; it throws one line saying what is wrong.
  static read(path) {
    return new PersonFile(readFileSync(path), path);
  }

  constructor(buf, name = 'person file') {
    if (endianness() !== 'LE') throw new Error('the person file reader needs a little-endian host');
    if (buf.length < 64 || buf.toString('latin1', 0, 8) !== MAGIC) throw new Error(`${name}: not a person file (no ${MAGIC} magic)`);
    const version = buf.readUInt32LE(8);
    if (version !== VERSION) throw new Error(`${name}: person file version ${version}, this reader knows ${VERSION}`);
    const h = buf.readUInt32LE(12);
    const n = Number(buf.readBigUInt64LE(16));
    const e = Number(buf.readBigUInt64LE(32));
    const m = Number(buf.readBigUInt64LE(40));
    if (h < 64 || h % 4 !== 0 || buf.length !== e + m + 13 * n + h + 8) {
      throw new Error(`${name}: ${buf.length} bytes, the header says ${e + m + 13 * n + h + 8}`);
    }
    if (buf.byteOffset % 4 !== 0) buf = Buffer.from(buf); // Uint32Array views need 4-byte alignment
    const u32 = (off, len) => new Uint32Array(buf.buffer, buf.byteOffset + off, len);

    this.n = n;
    this.seed = buf.readBigUInt64LE(24);
    this.checksum = buf.readBigUInt64LE(48).toString(16).padStart(16, '0');
    this.buf = buf;
    this.emailOff = u32(h, n + 1);
    this.nameOff = u32(h + 4 * (n + 1), n + 1);
    this.sorted = u32(h + 8 * (n + 1), n);
    this.ages = buf.subarray(h + 12 * n + 8, h + 13 * n + 8);
    this.emailBase = h + 13 * n + 8; // emails[i] is buf[emailBase + emailOff[i] : emailBase + emailOff[i+1]]
    this.nameBase = this.emailBase + e;
    if (this.emailOff[n] !== e || this.nameOff[n] !== m) throw new Error(`${name}: offsets do not end at the text sizes`);
  }

  emailStart(i) { return this.emailBase + this.emailOff[i]; }
  emailEnd(i) { return this.emailBase + this.emailOff[i + 1]; }
  nameStart(i) { return this.nameBase + this.nameOff[i]; }
  nameEnd(i) { return this.nameBase + this.nameOff[i + 1]; }

  // email and name return views into the file; emailString and nameString decode it (ASCII).
  email(i) { return this.buf.subarray(this.emailStart(i), this.emailEnd(i)); }
  name(i) { return this.buf.subarray(this.nameStart(i), this.nameEnd(i)); }
  emailString(i) { return this.buf.latin1Slice(this.emailStart(i), this.emailEnd(i)); }
  nameString(i) { return this.buf.latin1Slice(this.nameStart(i), this.nameEnd(i)); }
  age(i) { return this.ages[i]; }

  // person(i) is {email, name, age} as strings and a number.
  person(i) {
    return { email: this.emailString(i), name: this.nameString(i), age: this.ages[i] };
  }
}
