#!/usr/bin/env node
// dbbench-client LIBRARY: the Node reference client of dbbench's protocol (docs/protocol.md),
// serving requests on stdin/stdout. Logs go to stderr only.

import { serve } from '../lib/protocol.js';

const backends = {
  lmdb: '../lib/lmdb.js',
  'better-sqlite3': '../lib/sqlite.js',
  pg: '../lib/pg.js',
};

const library = process.argv[2];
if (process.argv.length !== 3 || !(library in backends)) {
  console.error(`usage: dbbench-client.js LIBRARY (one of: ${Object.keys(backends).join(', ')})`);
  process.exit(2);
}

// A broken stdout means dbbench is gone: there is nobody left to answer.
process.stdout.on('error', () => process.exit(1));

try {
  const { Backend } = await import(backends[library]);
  await serve(new Backend());
  process.exit(0); // stdin ended: leave at once, whatever threads or sockets are still open
} catch (err) {
  console.error(`dbbench-client: ${err?.message ?? err}`);
  process.exit(1);
}
