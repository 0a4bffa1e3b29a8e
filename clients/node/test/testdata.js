// The shared test vectors of docs/protocol.md, read from the repository's committed testdata.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = new URL('../../../dataset/testdata/', import.meta.url);
export const vectors = JSON.parse(readFileSync(new URL('vectors.json', dir), 'utf8'));
export const datasetPath = fileURLToPath(new URL(vectors.dataset.file, dir));
