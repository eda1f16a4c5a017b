'use strict';

/**
 * Writes the seed corpus of the replay fuzz target (fuzz/corpus/replay): the tapes RustWriter
 * records for a spread of call sequences, one file each, named by content hash. Rerun after a
 * tape-format change: `node scripts/fuzz-corpus.js`.
 */

const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const { RustWriter } = require('..');

const DIR = path.join(__dirname, '..', 'fuzz', 'corpus', 'replay');

/** Call sequences covering every record kind, nesting and the edges of each encoding. */
const SEEDS = [
  (w) => w.uint32(8).uint32(150),
  (w) => w.uint32(0).uint32(127).uint32(128).uint32(16383).uint32(16384).uint32(-1),
  (w) => w.int32(-1).int32(2 ** 31 - 1).sint32(-1).sint32(2 ** 31 - 1).bool(true).bool(false),
  (w) => w.fixed32(0xdeadbeef).sfixed32(-2).float(1.5).float(NaN),
  (w) => w.uint64('18446744073709551615').int64(-1).sint64('-9223372036854775808').fixed64(1).double(-0),
  (w) => w.uint64(2n ** 63n).sint64(-(2n ** 40n)),
  (w) => w.string('').string('hello').string('é'.repeat(30)).string('\ud800x').string('y'.repeat(100)),
  (w) => w.bytes([]).bytes([1, 2, 3]).bytes(Buffer.alloc(300, 7)).raw([9, 9]),
  (w) => w.uint32(10).fork().uint32(8).uint32(1).ldelim(),
  (w) => w.uint32(10).fork().uint32(18).fork().string('x'.repeat(200)).ldelim().ldelim(),
  (w) => { for (let i = 0; i < 40; i++) w.uint32(10).fork(); w.string('deep'); for (let i = 0; i < 40; i++) w.ldelim(); return w; },
  (w) => w.uint32(1).uint32(2).ldelim(),
  (w) => w.uint32(1).fork().uint32(2).ldelim().ldelim(),
  (w) => w.uint32(1).fork().uint32(2),
  (w) => w.fork().fork().fork(),
  (w) => w.uint32(1).fork().uint32(2).reset().uint32(3),
  (w) => w.uint32s([0, 1, 127, 128, 2 ** 32 - 1]).int32s([-1, 0, 5]).sint32s([-1, 1, -(2 ** 31)]),
  (w) => w.uint32s([]).int32s([-1]).sint32s([7, 7, 7]),
  (w) => w.fixed32s([1, 2, 3]).floats([0.5, -0.5]).doubles([1e300, -0]).bools([true, false, true]),
  (w) => w.uint64s([1, '18446744073709551615', -1]).sint64s([-1, 1]).fixed64s([5]),
  (w) => w.uint32s(Uint32Array.from({ length: 500 }, (_, i) => i * 2654435761)),
  (w) => w.sint32s(Int32Array.from({ length: 300 }, (_, i) => (i - 150) * 1000003)),
  (w) => w.uint64s(Array.from({ length: 100 }, (_, i) => BigInt(i) ** 9n)),
  (w) => w.uint32(10).bytes(Buffer.alloc(5000, 1)).uint32(18).string('after'),
  (w) => w.uint32(10).fork().bytes(Buffer.alloc(20000, 2)).ldelim(),
];

fs.mkdirSync(DIR, { recursive: true });
for (const file of fs.readdirSync(DIR)) fs.rmSync(path.join(DIR, file));
for (const seed of SEEDS) {
  const w = RustWriter.create();
  seed(w);
  const tape = Buffer.from(w._u8.buffer, w._u8.byteOffset + w._s * 4, (w._n - w._s) * 4);
  const name = crypto.createHash('sha1').update(tape).digest('hex').slice(0, 16);
  fs.writeFileSync(path.join(DIR, name), tape);
}
process.stdout.write(`${SEEDS.length} seeds in ${path.relative(process.cwd(), DIR)}\n`);
