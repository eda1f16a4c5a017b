'use strict';

/**
 * Where writers write, and where results come from.
 *
 * - **The slab.** A writer starts in the free tail of a 64 KiB slab shared by this module
 *   instance's writers, and `finish()` returns a view of what it wrote there when it is below
 *   4 KiB: no copy, as Node's own `Buffer.allocUnsafe` pools results (larger ones are copied into
 *   memory of their own, as Node's are: see `pooled`). The slab's free tail then starts after
 *   the result, so a result is never written again. One writer at a time owns the tail; a writer
 *   created while another owns it (nested or interleaved writers, or an abandoned one) *evicts*
 *   it: the evicted writer keeps the bytes it wrote and moves elsewhere on its next write.
 * - **The large buffer.** A message that outgrows a quarter slab moves to one large buffer,
 *   reused from message to message (fresh pages cost more than a whole small encode here), and
 *   `finish()` copies it into a result of its exact size. A writer that needs the large buffer
 *   while another holds it takes a new one; the other keeps the old one as its own.
 * - **Private buffers**, for an evicted writer that grows.
 * - **The entry array** (lib/entries.js): shared the same way, so that writers allocate nothing
 *   in the common case; the writer that had it keeps a copy.
 *
 * This module reads a writer's region (`_buf`, `_start`, `_pos`, `_region`) and changes a
 * writer only through its methods: `_place` (here are your bytes now), `_evicted`, `_keepLarge`
 * and `_keepEntries`.
 */

const { markAsUntransferable } = require('worker_threads');
const PROTOCOL = require('../protocol.json');

/**
 * The class Node makes its own `Buffer`s with (`FastBuffer`: a `Uint8Array` subclass whose
 * prototype *is* `Buffer.prototype`), which Node exposes as `Buffer[Symbol.species]`. A view made
 * with it is a real `Buffer` (deep-equal to any other, printed as one) for about the cost of a
 * plain typed-array view, less than half of `Buffer.from(arrayBuffer, offset, length)`'s
 * (`node bench/probe-results.js`). If a runtime ever lacks it, `Buffer.from` makes the same
 * objects.
 */
const FastBuffer = Buffer[Symbol.species] && Buffer[Symbol.species].prototype === Buffer.prototype
  ? Buffer[Symbol.species]
  : null;

/**
 * A `Buffer` viewing `length` bytes of `arrayBuffer` from `byteOffset`.
 * @param {ArrayBuffer} arrayBuffer Memory
 * @param {number} byteOffset Byte index
 * @param {number} length Bytes
 * @returns {Buffer} View
 */
const bufferView = FastBuffer !== null
  ? (arrayBuffer, byteOffset, length) => new FastBuffer(arrayBuffer, byteOffset, length)
  : (arrayBuffer, byteOffset, length) => Buffer.from(arrayBuffer, byteOffset, length);

/** Where a writer's bytes are: `_region` values. */
const SLAB = 0;
const LARGE = 1;
const PRIVATE = 2;
/** After `finish()`: the writer's content is the result it returned, which it never writes. */
const SEALED = 3;

/** Bytes of a slab. One long-lived small result pins its slab, as with Node's pool (8 KiB);
 * a larger slab makes starting one (~2 µs for fresh pages) rare: once per ~600 messages of
 * 100 bytes. */
const SLAB_BYTES = 64 * 1024;
/** A writer created with less free tail than this starts a new slab rather than move soon. */
const MIN_ROOM = 1024;
/** The smallest large buffer, and the largest one kept between messages: a 1 GiB message
 * should not pin 2 GiB forever. */
const LARGE_MIN = 256 * 1024;
const LARGE_KEEP = 16 * 1024 * 1024;
/** Entry words the shared entry array starts with (64 entries). */
const ENTRIES_MIN = 256;
const NO_ENTRIES = new Int32Array(0);

let slabBytes = SLAB_BYTES;
/** First free byte of the slab. */
let top = 0;
let slab = newSlab();
/** The writer that owns the slab's free tail, or null. */
let owner = null;
let large = null;
let largeOwner = null;
let entries = new Int32Array(ENTRIES_MIN);
let entriesOwner = null;

/**
 * A new slab: uninitialized memory (writers write every byte they return), marked so that
 * `postMessage` cannot transfer it away from the results it holds, as Node marks its pool.
 * @returns {Buffer} Slab
 */
function newSlab() {
  const buf = Buffer.allocUnsafeSlow(slabBytes);
  markAsUntransferable(buf.buffer);
  top = 0;
  return buf;
}

/**
 * Throws the `RangeError` for a message over `PROTOCOL.MAX_OUTPUT` bytes.
 * @param {number} size Bytes the message would have (at least)
 * @returns {never} Throws
 */
function tooLarge(size) {
  throw new RangeError(`protobufjs-rustwriter: message too large: ${size} bytes exceeds the limit of ${PROTOCOL.MAX_OUTPUT} bytes`);
}

/**
 * Places a new writer in the slab's free tail (evicting the writer that had it), and gives it
 * the entry array shared by the module's writers (the writer that had it keeps a copy).
 * @param {RustWriter} w Writer
 * @returns {Int32Array} The shared entry array
 */
function claim(w) {
  if (owner !== null) evict(owner);
  if (entriesOwner !== null) entriesOwner._keepEntries();
  if (slab.length - top < MIN_ROOM) slab = newSlab();
  owner = w;
  entriesOwner = w;
  w._place(slab, top, top, slab.length, SLAB);
  return entries;
}

/**
 * Takes the slab's free tail from `w`: it keeps the bytes it wrote (the tail now starts after
 * them) and moves on its next write. A held writer (lib/writer.js `_hold`) keeps its whole room,
 * so the tail now starts at the slab's end and the next writer starts a new slab.
 * @param {RustWriter} w Writer
 * @returns {undefined}
 */
function evict(w) {
  top = (w._evicted() + 7) & ~7;
  owner = null;
}

/**
 * Moves `w` to memory with room for `n` more bytes, copying what it wrote.
 * @param {RustWriter} w Writer
 * @param {number} n Bytes needed after its write position
 * @returns {number} Its new write position
 */
function grow(w, n) {
  const fromStart = w._start;
  const used = w._pos - fromStart;
  const need = used + n;
  if (need > PROTOCOL.MAX_OUTPUT) tooLarge(need);
  const from = w._buf;
  if (w._region === SEALED && from.length < w._pos) {
    throw new Error('protobufjs-rustwriter: the Buffer finish() returned was detached, so this writer cannot continue from it');
  }
  // Give the old place back first; the copy below runs before anyone can write there.
  if (owner === w) {
    owner = null;
    top = fromStart;
  }
  let to;
  let at = 0;
  let region;
  if (need <= slabBytes >>> 2 && owner === null) {
    if (slab.length - top < need + MIN_ROOM) slab = newSlab();
    to = slab;
    at = top;
    region = SLAB;
    owner = w;
  } else if (need > slabBytes >>> 2) {
    if (largeOwner !== null && largeOwner !== w) {
      largeOwner._keepLarge(); // it keeps the old large buffer as its own
      large = null;
    }
    if (large === null || large.length < need) large = Buffer.allocUnsafeSlow(Math.max(2 * need, LARGE_MIN));
    to = large;
    region = LARGE;
    largeOwner = w;
  } else {
    to = Buffer.allocUnsafeSlow(2 * need);
    region = PRIVATE;
  }
  if (to !== from || at !== fromStart) to.set(from.subarray(fromStart, fromStart + used), at);
  w._place(to, at, at + used, to.length, region);
  return at + used;
}

/**
 * An entry array for `w` with room for `need` words, holding the `used` words of `old`: the
 * shared array if no other writer has it, else a larger one (which becomes the shared one if
 * `w` had it).
 * @param {RustWriter} w Writer
 * @param {Int32Array} old Its entry array
 * @param {number} used Words of it in use
 * @param {number} need Words needed
 * @returns {Int32Array} The new array
 */
function growEntries(w, old, used, need) {
  let e;
  if (entriesOwner === null && entries.length >= need) {
    e = entries;
    entriesOwner = w;
  } else {
    e = new Int32Array(Math.max(2 * need, ENTRIES_MIN));
    if (entriesOwner === w || entriesOwner === null) {
      entries = e;
      entriesOwner = w;
    }
  }
  if (e !== old) e.set(old.subarray(0, used));
  return e;
}

/**
 * Takes back what `w` holds once `finish()` has made its result.
 * @param {RustWriter} w Writer
 * @param {number} slabEnd Where the result ends in the slab if it is a view of `w`'s region
 * there, else -1 (the region is free again)
 * @returns {undefined}
 */
function release(w, slabEnd) {
  if (owner === w) {
    owner = null;
    top = slabEnd >= 0 ? (slabEnd + 7) & ~7 : w._start;
  }
  if (largeOwner === w) {
    largeOwner = null;
    if (large.length > LARGE_KEEP) large = null;
  }
  if (entriesOwner === w) entriesOwner = null;
}

/**
 * Whether `w` owns the slab's free tail, so that it can assemble its result in place there.
 * @param {object} w Writer
 * @returns {boolean} Whether it does
 */
function ownsTail(w) {
  return owner === w;
}

/**
 * Whether a result of `n` bytes is a view of the slab. Below `Buffer.poolSize >>> 1` (4 KiB),
 * as Node pools `Buffer.allocUnsafe` (which protobufjs's results come from); larger results
 * get an `ArrayBuffer` of their own (transferable, `byteOffset` 0), as protobufjs's do, and a
 * long-lived one pins no slab. An empty result has an empty `ArrayBuffer` of its own, as
 * `Buffer.allocUnsafe(0)` does.
 * @param {number} n Bytes
 * @returns {boolean} Whether it is
 */
function pooled(n) {
  return n > 0 && n < Buffer.poolSize >>> 1 && n <= slabBytes >>> 2;
}

/**
 * A result `Buffer` of `n` bytes: from the slab when {@link pooled} and no writer owns its tail,
 * else from `Buffer.allocUnsafe`.
 * @param {number} n Bytes
 * @returns {Buffer} Uninitialized result
 */
function allocResult(n) {
  if (pooled(n) && owner === null) {
    if (slab.length - top < n) slab = newSlab();
    const result = bufferView(slab.buffer, slab.byteOffset + top, n);
    top = (top + n + 7) & ~7;
    return result;
  }
  return Buffer.allocUnsafe(n);
}

/**
 * A view of `len` bytes of `buf` from `start`, as a `Buffer`.
 * @param {Buffer} buf Buffer
 * @param {number} start Byte index
 * @param {number} len Bytes
 * @returns {Buffer} View
 */
function view(buf, start, len) {
  return bufferView(buf.buffer, buf.byteOffset + start, len);
}

/**
 * @returns {number} Bytes of a slab
 */
function slabSize() {
  return slabBytes;
}

/**
 * For tests: the slab size (small slabs send more messages through the large and private paths).
 * @param {number} bytes Bytes
 * @returns {number} The previous size
 */
function setSlabBytes(bytes) {
  const previous = slabBytes;
  slabBytes = bytes;
  if (owner !== null) evict(owner);
  slab = newSlab();
  return previous;
}

module.exports = {
  SLAB, LARGE, PRIVATE, SEALED, NO_ENTRIES,
  claim, grow, growEntries, release, ownsTail, pooled, allocResult, view, tooLarge, slabSize, setSlabBytes,
};
