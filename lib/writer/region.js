'use strict';

/**
 * Where a writer's bytes live, and the only code that moves them.
 *
 * A writer writes into its *region*: `_buf[_start .. _end)`, of which `_buf[_start .. _pos)` is what
 * it wrote. The writer's methods advance `_pos` within the room `[_pos, _end)` (the hot scalar methods
 * test `_pos + n > _end` themselves) and call {@link grow} when it runs out. This module sets `_buf`,
 * `_start`, `_end` and `_region`, and moves `_pos` with the bytes when it moves a writer; it never
 * calls back into the writer. Where `_buf` comes from (`_region`):
 *
 * - `SLAB`: the free tail of a 64 KiB slab shared by this module instance's writers. A result that
 *   Node would pool (below half of `Buffer.poolSize`: 4 KiB on Node 20 to 24.17; and at most a quarter
 *   slab, 16 KiB, on Node 24.18+ and 26, whose pool is 64 KiB: see `pooled`) is a view of what the
 *   writer wrote there: no copy, as `Buffer.allocUnsafe` pools; the tail then starts after it, so a
 *   result is never written again. One writer at a time owns the tail; a writer created while
 *   another owns it (nested or interleaved writers, or an abandoned one) *evicts* it: the evicted
 *   writer keeps the bytes it wrote and moves elsewhere on its next write.
 * - `LARGE`: one large buffer for a message that outgrows a quarter slab, reused from message to
 *   message (fresh pages cost more than a whole small encode here). A writer that needs it while
 *   another has it takes a new one; the other keeps the old one as a private buffer.
 * - `PRIVATE`: a buffer of the writer's own (an evicted writer that grows, or one that kept a large
 *   buffer).
 * - `SEALED`: after `finish()`, the result itself, which is never written: writing on moves first.
 *
 * **Holding.** A call that converts elements as it writes them may run user code (`valueOf`,
 * getters, Proxies) that reaches this writer. Such a call *holds* the writer (`hold`) for as long
 * as it converts: it writes at positions of its own, in room it took before the hold; `_end` is then
 * `-1 - end`, negative, so that any write through the writer's methods reaches `grow`, which
 * refuses it, as `ldelim`, `reset`, `finish` and a second hold do (`checkFree`); `_pos` stands where
 * protobuf.js's writer stands meanwhile (what `pos` reports, and where the writer stays if the
 * conversion throws); and its room stays its own if another writer evicts it. Every hold has one
 * shape:
 *
 *     hold(w, at);
 *     try {
 *       p = convert(...);            // writing at p; `growHeld(w, p, n)` for more room
 *     } catch (err) {
 *       throw released(w, err);      // `_pos` stays at `at`
 *     }
 *     release(w);                    // then the call advances `_pos` past what it wrote
 *
 * (a `finally` costs the vector tile 3-4%: `node bench/probes/ab.js <before> <after> tile`).
 */

// The module's own binding: reading the global `Buffer` on every finish() went through V8's
// LoadGlobalIC builtin (Node 26).
const { Buffer } = require('buffer');
const { markAsUntransferable } = require('worker_threads');
const PROTOCOL = require('../../protocol.json');

/**
 * The class Node makes its own `Buffer`s with (`FastBuffer`: a `Uint8Array` subclass whose
 * prototype *is* `Buffer.prototype`), which Node exposes as `Buffer[Symbol.species]`. A view made
 * with it is a real `Buffer` (deep-equal to any other, printed as one) for about the cost of a
 * plain typed-array view, less than half of `Buffer.from(arrayBuffer, offset, length)`'s
 * (`node bench/probes/results.js`). If a runtime ever lacks it, `Buffer.from` makes the same
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

/** `_region` values. */
const SLAB = 0;
const LARGE = 1;
const PRIVATE = 2;
const SEALED = 3;

/** How `finish()` makes a result (`resultPlan`). */
/** Assembled where the writer's bytes are, in the slab; the result is a view of them. */
const IN_PLACE = 0;
/** Assembled where they are (a large or private buffer), then copied into a result of its own. */
const SPLICE_THEN_COPY = 1;
/** Assembled into a new result. */
const INTO_RESULT = 2;

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

let slabBytes = SLAB_BYTES;
/** First free byte of the slab. */
let top = 0;
let slab = null;
/** `slab.buffer`, kept: the getter is a call into V8's C++ runtime (Node 26), on every result. */
let slabMemory = null;
newSlab();
/** The writer that owns the slab's free tail, or null. */
let owner = null;
let large = null;
let largeOwner = null;

/**
 * Starts a new slab: uninitialized memory (writers write every byte they return), marked so that
 * `postMessage` cannot transfer it away from the results it holds, as Node marks its pool.
 * @returns {undefined}
 */
function newSlab() {
  slab = Buffer.allocUnsafeSlow(slabBytes);
  slabMemory = slab.buffer;
  markAsUntransferable(slabMemory);
  top = 0;
}

/**
 * @param {number} n A byte index
 * @returns {number} The next multiple of 8 from it (results start 8-byte aligned)
 */
function align(n) {
  return (n + 7) & ~7;
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
 * Throws for a call made on a writer from inside a conversion of one of its own calls.
 * @returns {never} Throws
 */
function heldError() {
  throw new Error('protobufjs-rustwriter: a writer cannot be used by a valueOf, toString or getter that one of its own calls ' +
    'is converting (the writes would interleave)');
}

/**
 * Places a writer in memory of its own kind.
 * @param {RustWriter} w Writer
 * @param {Uint8Array} buf Memory
 * @param {number} start First byte of its region
 * @param {number} pos Next byte to write
 * @param {number} end End of its room
 * @param {number} region `SLAB`, `LARGE`, `PRIVATE` or `SEALED`
 * @returns {undefined}
 */
function place(w, buf, start, pos, end, region) {
  w._buf = buf;
  w._start = start;
  w._pos = pos;
  w._end = end;
  w._region = region;
}

/**
 * Takes the slab's free tail from its owner: it keeps the bytes it wrote (the tail now starts
 * after them) and moves on its next write. A held owner keeps its whole room, so the tail then
 * starts at the slab's end and the next writer starts a new slab.
 * @returns {undefined}
 */
function evictOwner() {
  const w = owner;
  if (w._end < 0) {
    top = align(-1 - w._end);
  } else {
    w._end = w._pos;
    top = align(w._pos);
  }
  owner = null;
}

/**
 * Places a new writer in the slab's free tail.
 * @param {RustWriter} w Writer
 * @returns {undefined}
 */
function claim(w) {
  if (owner !== null) evictOwner();
  if (slab.length - top < MIN_ROOM) newSlab();
  owner = w;
  place(w, slab, top, top, slab.length, SLAB);
}

/**
 * Moves `w`, not held, to memory with room for `n` more bytes.
 * @param {RustWriter} w Writer
 * @param {number} n Bytes needed after its write position
 * @returns {number} Its new write position
 */
function grow(w, n) {
  if (w._end < 0) heldError();
  return move(w, w._pos, n);
}

/**
 * The write position of `w`, with room for `n` bytes after it.
 * @param {RustWriter} w Writer
 * @param {number} n Bytes
 * @returns {number} Position
 */
function room(w, n) {
  const p = w._pos;
  return p + n > w._end ? grow(w, n) : p;
}

/**
 * Room for `n` bytes after `p`, the position where a write in progress stands: a method's (`p` is
 * `_pos`; the caller has checked that `w` is not held) or a held write's; moves the region (and the
 * bytes up to `p`) if needed.
 * @param {RustWriter} w Writer
 * @param {number} p Where the write stands
 * @param {number} n Bytes
 * @returns {number} Where `p` is now (`_buf` may have changed)
 */
function roomAt(w, p, n) {
  const end = w._end;
  return p + n > (end < 0 ? -1 - end : end) ? move(w, p, n) : p;
}

/**
 * Moves `w` to memory with room for `n` bytes after `to`, copying `_buf[_start .. to)`: for a held
 * writer, the bytes its call wrote are up to a position of the call's own.
 * @param {RustWriter} w Writer
 * @param {number} to End of the bytes to keep
 * @param {number} n Bytes needed after them
 * @returns {number} Where `to` is now
 */
function move(w, to, n) {
  const fromStart = w._start;
  const used = to - fromStart;
  const need = used + n;
  if (need > PROTOCOL.MAX_OUTPUT) tooLarge(need);
  const from = w._buf;
  if (w._region === SEALED && from.length < to) {
    throw new Error('protobufjs-rustwriter: the Buffer finish() returned was detached, so this writer cannot continue from it');
  }
  // Give the old place back first; the copy below runs before anyone can write there.
  if (owner === w) {
    owner = null;
    top = fromStart;
  }
  let buf;
  let at = 0;
  let region;
  if (need <= slabBytes >>> 2 && owner === null) {
    if (slab.length - top < need + MIN_ROOM) newSlab();
    buf = slab;
    at = top;
    region = SLAB;
    owner = w;
  } else if (need > slabBytes >>> 2) {
    if (largeOwner !== null && largeOwner !== w) {
      largeOwner._region = PRIVATE; // it keeps the old large buffer as its own
      large = null;
    }
    if (large === null || large.length < need) large = Buffer.allocUnsafeSlow(Math.max(2 * need, LARGE_MIN));
    buf = large;
    region = LARGE;
    largeOwner = w;
  } else {
    buf = Buffer.allocUnsafeSlow(2 * need);
    region = PRIVATE;
  }
  if (buf !== from || at !== fromStart) buf.set(from.subarray(fromStart, to), at);
  const held = w._end < 0;
  const pos = at + w._pos - fromStart;
  place(w, buf, at, pos, held ? -1 - buf.length : buf.length, region);
  return at + used;
}

/**
 * Holds `w` while a call converts elements (see the module's comment): `_pos` moves to `at`, the
 * offset from the region's start where protobuf.js's writer stands meanwhile. Throws if it is held
 * already.
 * @param {RustWriter} w Writer
 * @param {number} at Offset of protobuf.js's position
 * @returns {undefined}
 */
function hold(w, at) {
  if (w._end < 0) heldError();
  w._pos = w._start + at;
  w._end = -1 - w._end;
}

/**
 * Ends a hold: the room comes back.
 * @param {RustWriter} w Writer
 * @returns {undefined}
 */
function release(w) {
  w._end = -1 - w._end;
}

/**
 * Ends a hold whose conversion threw: the writer stays at the hold's `at`.
 * @param {RustWriter} w Writer
 * @param {*} err What the conversion threw
 * @returns {*} `err`, to throw
 */
function released(w, err) {
  w._end = -1 - w._end;
  return err;
}

/**
 * For a held writer: room for `n` bytes after `p`, a position of the holding call's own; moves the
 * region (and the bytes up to `p`) if needed. The hold goes on.
 * @param {RustWriter} w Writer, held
 * @param {number} p Where the call writes next
 * @param {number} n Bytes
 * @returns {number} Where `p` is now (`_buf` may have changed)
 */
function growHeld(w, p, n) {
  return p + n > -1 - w._end ? move(w, p, n) : p;
}

/**
 * Lends a held writer to its own methods for one call (a compiled encoder writing a field through
 * the Writer API): the hold ends and the write position is `p`, where the holder had written up to.
 * `takeBack` holds it again, also when the call throws.
 * @param {RustWriter} w Writer, held
 * @param {number} p Where its bytes end
 * @returns {undefined}
 */
function lend(w, p) {
  w._end = -1 - w._end;
  w._pos = p;
}

/**
 * Holds a lent writer again, where its method left it.
 * @param {RustWriter} w Writer, lent
 * @returns {number} Its write position, where the holder writes on
 */
function takeBack(w) {
  const p = w._pos;
  w._end = -1 - w._end;
  return p;
}

/**
 * Throws if `w` is held (a call from inside a conversion of one of its own calls).
 * @param {RustWriter} w Writer
 * @returns {undefined}
 */
function checkFree(w) {
  if (w._end < 0) heldError();
}

/*
 * A held write: code that writes a whole message into a writer at positions of its own (a compiled
 * encoder, lib/encoders/) holds the writer from start to end, keeps `p`, `buf` and `end` in locals,
 * and uses only these functions (and entries.js's for sections):
 *
 *     const at = beginHeld(w);                         // the offset where the message starts
 *     let p = positionOf(w, at), buf = heldBuffer(w), end = heldEnd(w), base = heldStart(w);
 *     if (p + n > end) { p = growHeld(w, p, n); buf = heldBuffer(w); end = heldEnd(w); base = heldStart(w); }
 *     lend(w, p); w.bytes(v); p = takeBack(w);         // one field through a writer method (then reload)
 *     endHeld(w, p);                                   // or abortHeld(w, at) if it threw
 *
 * A position minus `base` is an offset from the region's start (entries record offsets): it
 * survives a move of the region, which only `growHeld` and a lent call make; positions do not.
 */

/**
 * @param {object} w Any value
 * @returns {boolean} Whether it has a region (a RustWriter's own fields, not a subclass that only
 * looks like one)
 */
function hasRegion(w) {
  return typeof w._end === 'number';
}

/**
 * Starts a held write into `w`, which is not held, where it stands.
 * @param {RustWriter} w Writer
 * @returns {number} Offset of its write position from its region's start
 */
function beginHeld(w) {
  const at = w._pos - w._start;
  hold(w, at);
  return at;
}

/**
 * @param {RustWriter} w Writer, held
 * @returns {Uint8Array} The memory its region is in (changes when the region moves)
 */
function heldBuffer(w) {
  return w._buf;
}

/**
 * @param {RustWriter} w Writer, held
 * @returns {number} End of the held room (changes when the region moves)
 */
function heldEnd(w) {
  return -1 - w._end;
}

/**
 * @param {RustWriter} w Writer, held
 * @returns {number} Where its region starts in `heldBuffer(w)` (changes when the region moves):
 * a position minus it is an offset, which survives a move
 */
function heldStart(w) {
  return w._start;
}

/**
 * @param {RustWriter} w Writer
 * @param {number} at An offset from its region's start
 * @returns {number} Its position
 */
function positionOf(w, at) {
  return w._start + at;
}

/**
 * Ends a held write: the writer's bytes end at `p`.
 * @param {RustWriter} w Writer, held
 * @param {number} p Position after the write's bytes
 * @returns {undefined}
 */
function endHeld(w, p) {
  release(w);
  w._pos = p;
}

/**
 * Ends a held write that threw: the writer stands where it began (its entries are entries.js's to
 * roll back).
 * @param {RustWriter} w Writer, held
 * @param {number} at `beginHeld`'s offset
 * @returns {undefined}
 */
function abortHeld(w, at) {
  release(w);
  w._pos = w._start + at;
}

/**
 * Whether a result of `n` bytes is a view of the slab. Below `Buffer.poolSize >>> 1` (4 KiB on
 * Node 20 to 24.17, 32 KiB on Node 24.18+ and 26), as Node pools `Buffer.allocUnsafe` (which
 * protobufjs's results come from), and at most a quarter slab; larger results come from
 * `Buffer.allocUnsafe` as protobufjs's do (from Node's pool below half of it, else with an
 * `ArrayBuffer` of their own: transferable, `byteOffset` 0), and a long-lived one pins no slab. An
 * empty result has an empty `ArrayBuffer` of its own, as `Buffer.allocUnsafe(0)` does.
 * @param {number} n Bytes
 * @returns {boolean} Whether it is
 */
function pooled(n) {
  return n > 0 && n < Buffer.poolSize >>> 1 && n <= slabBytes >>> 2;
}

/**
 * How `finish()` makes the result of `w`, `total` bytes with its entries spliced in: `IN_PLACE` when
 * its bytes are in the slab, the result is pooled and it has room to grow into (the slab's tail is
 * its own, or nothing grows); `SPLICE_THEN_COPY` from a large or private buffer (splicing in place
 * allocates nothing, where a copy into another buffer needs a `subarray` view per stretch: thousands
 * for a 1 MB message); else `INTO_RESULT`.
 * @param {RustWriter} w Writer, not held
 * @param {number} total Bytes of the result
 * @returns {number} `IN_PLACE`, `SPLICE_THEN_COPY` or `INTO_RESULT`
 */
function resultPlan(w, total) {
  const region = w._region;
  if (region === SLAB && pooled(total)) {
    // Nothing grows, or it grows into the slab's tail, which is its own.
    if (total === w._pos - w._start || (owner === w && w._start + total <= w._buf.length)) return IN_PLACE;
  }
  return region === LARGE || region === PRIVATE ? SPLICE_THEN_COPY : INTO_RESULT;
}

/** The plan of the `finish()` between `assemblyTarget` and `sealAssembled` (it runs no user code). */
let pendingPlan = INTO_RESULT;

/**
 * `finish()` of a writer whose bytes are its whole message (no entries): its result, and the writer
 * sealed with it.
 * @param {RustWriter} w Writer, not held
 * @param {number} total Bytes it wrote
 * @returns {Buffer} Result
 */
function sealAsIs(w, total) {
  const plan = resultPlan(w, total);
  let result;
  if (plan === IN_PLACE) {
    result = viewOf(w, total);
  } else {
    result = allocResult(total);
    result.set(w._buf.subarray(w._start, w._start + total));
  }
  seal(w, result, plan);
  return result;
}

/**
 * Where `finish()` assembles a writer's message of `total` bytes, its entries spliced in: where its
 * bytes are (returns null; room for the whole message is made there), or a new result, returned.
 * `sealAssembled` then makes the result.
 * @param {RustWriter} w Writer, not held, without open forks
 * @param {number} total Bytes of the result
 * @returns {Buffer|null} The result to assemble into, or null to assemble in `w`'s region from its start
 */
function assemblyTarget(w, total) {
  pendingPlan = resultPlan(w, total);
  if (pendingPlan === INTO_RESULT) return allocResult(total);
  const written = w._pos - w._start;
  if (pendingPlan === SPLICE_THEN_COPY && w._start + total > w._buf.length) move(w, w._pos, total - written);
  return null;
}

/**
 * `finish()` once the message is assembled where `assemblyTarget` said: its result, and the writer
 * sealed with it.
 * @param {RustWriter} w Writer
 * @param {number} total Bytes of the result
 * @param {Buffer|null} assembled What `assemblyTarget` returned
 * @returns {Buffer} Result
 */
function sealAssembled(w, total, assembled) {
  const plan = pendingPlan;
  let result = assembled;
  if (plan === IN_PLACE) {
    result = viewOf(w, total);
  } else if (plan === SPLICE_THEN_COPY) {
    result = allocResult(total);
    result.set(w._buf.subarray(w._start, w._start + total));
  }
  seal(w, result, plan);
  return result;
}

/**
 * A result `Buffer` of `n` bytes: from the slab when {@link pooled} and no writer owns its tail,
 * else from `Buffer.allocUnsafe`.
 * @param {number} n Bytes
 * @returns {Buffer} Uninitialized result
 */
function allocResult(n) {
  if (pooled(n) && owner === null) {
    if (slab.length - top < n) newSlab();
    const result = bufferView(slabMemory, slab.byteOffset + top, n);
    top = align(top + n);
    return result;
  }
  return Buffer.allocUnsafe(n);
}

/**
 * A view of the first `total` bytes of `w`'s region (an `IN_PLACE` result).
 * @param {RustWriter} w Writer
 * @param {number} total Bytes
 * @returns {Buffer} View
 */
function viewOf(w, total) {
  const buf = w._buf;
  return bufferView(buf === slab ? slabMemory : buf.buffer, buf.byteOffset + w._start, total);
}

/**
 * Makes `result` the whole content of `w` (`finish()`), and takes back the memory it had: the
 * slab's tail starts after the result if it is a view of the slab (`IN_PLACE`), else where `w`
 * started; a large buffer over `LARGE_KEEP` is dropped. Writing on moves it first, so the result
 * never changes.
 * @param {RustWriter} w Writer
 * @param {Buffer} result What `finish()` returns
 * @param {number} plan How it was made (`resultPlan`)
 * @returns {undefined}
 */
function seal(w, result, plan) {
  if (owner === w) {
    owner = null;
    top = plan === IN_PLACE ? align(w._start + result.length) : w._start;
  }
  if (largeOwner === w) {
    largeOwner = null;
    if (large.length > LARGE_KEEP) large = null;
  }
  place(w, result, 0, result.length, 0, SEALED);
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
  if (owner !== null) evictOwner();
  newSlab();
  return previous;
}

module.exports = {
  claim, grow, room, roomAt, hold, release, released, growHeld, lend, takeBack, checkFree,
  hasRegion, beginHeld, heldBuffer, heldEnd, heldStart, positionOf, endHeld, abortHeld,
  sealAsIs, assemblyTarget, sealAssembled, allocResult, tooLarge, slabSize, setSlabBytes,
};
