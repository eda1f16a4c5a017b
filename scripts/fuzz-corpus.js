'use strict';

/**
 * Writes the seed corpus of the `runs` fuzz target (fuzz/corpus/runs): control and value blocks
 * in the input layout of fuzz/check.rs, one file each, named by content hash, covering every run
 * kind, the varint length classes, several runs per call, and the errors (unknown kind, runs
 * outside the values, a short output block, too many runs). Rerun after a format change:
 * `node scripts/fuzz-corpus.js`.
 */

const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const P = require('../protocol.json');

const DIR = path.join(__dirname, '..', 'fuzz', 'corpus', 'runs');

/**
 * One input: the output size, the runs `[kind, count, first]`, then the value words.
 * @param {number} outLen Output block bytes
 * @param {number[][]} runs Runs
 * @param {number[]} values Value words
 * @param {number} [runCount] The run count word (default: `runs.length`)
 * @returns {Buffer} Input
 */
function input(outLen, runs, values, runCount = runs.length) {
  const words = [outLen, runCount];
  for (const [kind, count, first] of runs) words.push(kind, count, first, 0);
  words.push(...values);
  return Buffer.from(Uint32Array.from(words, (w) => w >>> 0).buffer);
}

const EDGES = [0, 1, 127, 128, 16383, 16384, 2097151, 2097152, 268435455, 268435456, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1];
const ramp = (n, step) => Array.from({ length: n }, (_, i) => (i * step) >>> 0);

const SEEDS = [
  input(256, [[P.RUN_UINT32, EDGES.length, 0]], EDGES),
  input(256, [[P.RUN_INT32, EDGES.length, 0]], EDGES),
  input(256, [[P.RUN_SINT32, EDGES.length, 0]], EDGES),
  input(256, [[P.RUN_UINT64, 6, 0]], [0, 0, 1, 0, 0, 1, 0xffffffff, 0xffffffff, 127, 0, 0, 0x80000000]),
  input(256, [[P.RUN_SINT64, 6, 0]], [0, 0, 1, 0, 0, 1, 0xffffffff, 0xffffffff, 127, 0, 0, 0x80000000]),
  input(4096, [[P.RUN_UINT32, 300, 0], [P.RUN_SINT32, 300, 0], [P.RUN_INT32, 10, 290]], ramp(300, 2654435761)),
  input(2048, [[P.RUN_UINT32, 500, 0]], ramp(500, 3)),
  input(1024, [[P.RUN_UINT64, 40, 0], [P.RUN_UINT32, 7, 1]], ramp(80, 40503)),
  input(0, [], []),
  input(16, [[P.RUN_INT32, 4, 0]], [0xffffffff, 1, 2, 3]), // output block too small
  input(64, [[0, 1, 0]], [1]), // unknown kind
  input(64, [[P.RUN_UINT32, 9, 0]], [1, 2, 3]), // outside the values
  input(64, [[P.RUN_UINT64, 1, 1]], [1, 2, 3]), // a 64-bit run on an odd word
  input(64, [], [], P.MAX_RUNS + 1), // too many runs
];

fs.rmSync(DIR, { recursive: true, force: true });
fs.mkdirSync(DIR, { recursive: true });
for (const seed of SEEDS) {
  fs.writeFileSync(path.join(DIR, crypto.createHash('sha256').update(seed).digest('hex').slice(0, 16)), seed);
}
process.stdout.write(`wrote ${SEEDS.length} seeds to ${path.relative(process.cwd(), DIR)}\n`);
