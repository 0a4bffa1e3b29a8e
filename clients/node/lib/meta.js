import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

// packageVersion is the version of the installed package name, read from its package.json: the
// version actually loaded, not the one package.json asks for.
export function packageVersion(name) {
  for (let dir = dirname(require.resolve(name)); ; dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
      if (pkg.name === name) return pkg.version;
    } catch {}
    if (dirname(dir) === dir) return 'unknown';
  }
}

// bytesOption reads a size given as a number of bytes or a string such as "64MiB" or "1GB".
export function bytesOption(name, v) {
  if (Number.isSafeInteger(v) && v > 0) return v;
  const m = typeof v === 'string' && /^\s*(\d+)\s*([KMGT]i?B|B)?\s*$/i.exec(v);
  if (!m) throw new Error(`option ${name}: want a size such as 1073741824 or "1GiB", got ${JSON.stringify(v)}`);
  const unit = (m[2] ?? 'B').toUpperCase();
  const base = unit.includes('I') ? 1024 : 1000;
  return Number(m[1]) * base ** ' KMGT'.indexOf(unit[0] === 'B' ? ' ' : unit[0]);
}
