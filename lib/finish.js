'use strict';

/**
 * `finish()`: from what a writer holds (lib/tape.js) to the result.
 *
 * 1. No entries (the usual case: every fork's length fitted its placeholder): the result is a
 *    view of the bytes already written in the slab, or one copy out of the large buffer.
 * 2. RUN entries: one native call encodes all of them (lib/native.js), and gives their lengths.
 * 3. `resolve`: every FIXUP's and PREFIX's length, from the innermost out, with a suffix sum of
 *    what each entry adds (a fork's entries are the contiguous ones after it).
 * 4. `assemble`: one backward pass that moves each stretch of written bytes once, to its final
 *    place, and writes each entry's bytes in front of it. In the slab's free tail it works in
 *    place (`copyWithin`; the bytes only ever move right); otherwise into a new result.
 */

const { P, ENTRY_WORDS, OPEN, FIXUP, PREFIX, RUN, REF } = require('./tape');
const memory = require('./memory');
const native = require('./native');
const { BITS, longBits } = require('./long');
const { varint32Len, varint64Len, putVarint32, quietNaNs } = require('./varint');
const { typedName, lengthOf, viewOf, bytesOf } = require('./typed');

/** Per entry, the length `resolve` found (FIXUP, PREFIX, RUN), and the suffix sums of what the
 * entries add. Float64 so that no sum wraps before the size check. */
let lens = new Float64Array(64);
let sums = new Float64Array(65);

/**
 * The result of `w`, which then holds it as its content.
 * @param {object} w Writer
 * @returns {Buffer} Result
 */
function finish(w) {
  if (w._ne === 0) return finishFlat(w);
  if (w._refs !== null) checkRefs(w);
  const nativeOut = w._runs > 0 ? encodeRuns(w) : null;
  const total = resolve(w);
  const start = w._start;
  if (w._f >= 0) {
    // A fork is still open: the writer goes on as it is, so assemble a copy.
    const result = memory.allocResult(total);
    assemble(w, result, 0, total, nativeOut);
    return result;
  }
  if (memory.ownsTail(w) && memory.pooled(total) && start + total <= w._buf.length) {
    assemble(w, w._buf, start, total, nativeOut);
    const result = memory.view(w._buf, start, total);
    sealWith(w, result, start + total);
    return result;
  }
  if (w._home === memory.LARGE || w._home === memory.PRIVATE) {
    // Splice in place (`copyWithin` allocates nothing, where a copy into another buffer needs a
    // `subarray` view per stretch: thousands for a 1 MB message), then copy out once.
    if (start + total > w._buf.length) w._grow(total - (w._pos - start));
    assemble(w, w._buf, w._start, total, nativeOut);
    const result = memory.allocResult(total);
    result.set(w._buf.subarray(w._start, w._start + total));
    sealWith(w, result, -1);
    return result;
  }
  const result = memory.allocResult(total);
  assemble(w, result, 0, total, nativeOut);
  sealWith(w, result, -1);
  return result;
}

/**
 * `finish()` of a writer without entries.
 * @param {object} w Writer
 * @returns {Buffer} Result
 */
function finishFlat(w) {
  const start = w._start;
  const len = w._pos - start;
  let result;
  if (w._home === memory.SLAB && memory.pooled(len)) {
    result = memory.view(w._buf, start, len);
    sealWith(w, result, w._pos);
  } else {
    // The large buffer is reused, a private one is oversized, a result must not be returned twice,
    // and a result too large to be pooled gets memory of its own.
    result = memory.allocResult(len);
    result.set(w._buf.subarray(start, w._pos));
    sealWith(w, result, -1);
  }
  return result;
}

/**
 * Makes `result` `w`'s whole content: no entries left, its memory handed back (lib/memory.js).
 * @param {object} w Writer, with no fork open
 * @param {Buffer} result What `finish()` returns
 * @param {number} slabEnd Where `result` ends in the slab if it is a view of `w`'s region there,
 * else -1
 * @returns {undefined}
 */
function sealWith(w, result, slabEnd) {
  memory.seal(w, result, slabEnd);
  w._ne = 0;
  w._extra = 0;
  w._runs = 0;
  w._lastRun = -1;
  w._refs = null;
}

/**
 * Throws if an array a live entry keeps no longer holds what it held when it was given (its
 * buffer detached, or resized): its bytes could not be copied. Reads no property a caller could
 * have defined (lib/typed.js).
 * @param {object} w Writer with REF or RUN entries
 * @returns {undefined}
 */
function checkRefs(w) {
  const E = w._e;
  const refs = w._refs;
  for (let e = 0; e < w._ne; e += ENTRY_WORDS) {
    const kind = E[e + 1];
    if (kind !== REF && kind !== RUN) continue;
    const r = E[e + 2];
    if (lengthOf(refs[r]) !== refs[r + 2]) {
      throw new Error('protobufjs-rustwriter: an array given to bytes() or a packed method was detached or resized before finish()');
    }
  }
}

/**
 * The elements a REF or RUN entry writes: the first `count` of the array it keeps.
 * @param {Array} refs `w._refs`
 * @param {number} r The entry's index in it
 * @returns {ArrayBufferView} A typed array of exactly those elements
 */
function keptElements(refs, r) {
  const array = refs[r];
  return refs[r + 2] === refs[r + 1] ? array : viewOf(array, refs[r + 1]);
}

/**
 * Room for `n` entries in the scratch arrays.
 * @param {number} n Entries
 * @returns {undefined}
 */
function scratchFor(n) {
  if (lens.length < n) {
    lens = new Float64Array(2 * n);
    sums = new Float64Array(2 * n + 1);
  }
}

/**
 * Encodes `w`'s runs natively; leaves each payload's length in `lens`.
 * @param {object} w Writer
 * @returns {Buffer} The output block, holding the payloads one after the other
 */
function encodeRuns(w) {
  const E = w._e;
  const refs = w._refs;
  const ne = w._ne;
  scratchFor(ne / ENTRY_WORDS);
  let words = 0;
  let bound = 0;
  for (let e = 0; e < ne; e += ENTRY_WORDS) {
    if (E[e + 1] !== RUN) continue;
    const count = refs[E[e + 2] + 1];
    if (E[e + 3] >= P.RUN_UINT64) {
      words = ((words + 1) & ~1) + 2 * count;
      bound += 10 * count;
    } else {
      words += count;
      bound += (E[e + 3] === P.RUN_INT32 ? 10 : 5) * count;
    }
  }
  const values = native.valueBlock(words);
  const out = native.outputBlock(bound);
  const ctl = native.ctl;
  let record = P.CTL_RECORDS;
  let runs = 0;
  words = 0;
  for (let e = 0; e < ne; e += ENTRY_WORDS) {
    if (E[e + 1] !== RUN) continue;
    const kind = E[e + 3];
    const src = keptElements(refs, E[e + 2]);
    const count = refs[E[e + 2] + 1];
    if (kind >= P.RUN_UINT64) {
      words = (words + 1) & ~1;
      (src instanceof BigInt64Array ? values.i64 : values.u64).set(src, words >>> 1);
    } else {
      (src instanceof Uint32Array ? values.u32 : values.i32).set(src, words);
    }
    ctl[record + P.RUN_KIND] = kind;
    ctl[record + P.RUN_COUNT] = count;
    ctl[record + P.RUN_FIRST] = words;
    words += kind >= P.RUN_UINT64 ? 2 * count : count;
    record += P.RUN_WORDS;
    ++runs;
  }
  native.encodeRuns(runs);
  record = P.CTL_RECORDS;
  for (let e = 0; e < ne; e += ENTRY_WORDS) {
    if (E[e + 1] !== RUN) continue;
    lens[e / ENTRY_WORDS] = ctl[record + P.RUN_LEN];
    record += P.RUN_WORDS;
  }
  return out;
}

/**
 * The payload length of a run, measured in JS (for `pos` before `finish()`).
 * @param {ArrayLike<number|bigint>} src Elements
 * @param {number} count Elements
 * @param {number} kind `P.RUN_*`
 * @returns {number} Bytes
 */
function measureRun(src, count, kind) {
  let len = 0;
  for (let i = 0; i < count; ++i) {
    if (kind === P.RUN_UINT32) len += varint32Len(src[i] >>> 0);
    else if (kind === P.RUN_INT32) len += (src[i] | 0) < 0 ? 10 : varint32Len(src[i] | 0);
    else if (kind === P.RUN_SINT32) len += varint32Len(((src[i] << 1) ^ (src[i] >> 31)) >>> 0);
    else {
      longBits(src[i]);
      let lo = BITS[0];
      let hi = BITS[1];
      if (kind === P.RUN_SINT64) {
        const sign = hi >> 31;
        hi = ((hi << 1) | (lo >>> 31)) ^ sign;
        lo = (lo << 1) ^ sign;
      }
      len += varint64Len(lo >>> 0, hi >>> 0);
    }
  }
  return len;
}

/**
 * Computes each FIXUP's and PREFIX's length (into `lens`) and the message's size. RUN entries'
 * payload lengths must be in `lens` already.
 * @param {object} w Writer
 * @returns {number} Bytes of the result
 */
function resolve(w) {
  const E = w._e;
  const n = w._ne / ENTRY_WORDS;
  scratchFor(n);
  sums[n] = 0;
  for (let k = n - 1; k >= 0; --k) {
    const e = k * ENTRY_WORDS;
    let added = 0;
    switch (E[e + 1]) {
      case FIXUP: {
        const len = E[e + 2] + sums[k + 1] - sums[E[e + 3] / ENTRY_WORDS];
        lens[k] = len;
        added = varint32Len(len) - 1;
        break;
      }
      case PREFIX: {
        const len = E[e + 2] + sums[k + 1] - sums[E[e + 3] / ENTRY_WORDS];
        lens[k] = len;
        added = varint32Len(len);
        break;
      }
      case RUN:
        added = varint32Len(lens[k]) + lens[k];
        break;
      case REF:
        added = E[e + 3];
        break;
      default: // OPEN: the placeholder stays, a 0 byte
    }
    sums[k] = sums[k + 1] + added;
  }
  const total = w._pos - w._start + sums[0];
  if (total > P.MAX_OUTPUT) memory.tooLarge(total);
  return total;
}

/**
 * Bytes `finish()` would return now, without finishing.
 * @param {object} w Writer
 * @returns {number} Bytes
 */
function measure(w) {
  if (w._refs !== null) checkRefs(w);
  const E = w._e;
  scratchFor(w._ne / ENTRY_WORDS);
  for (let e = 0; e < w._ne; e += ENTRY_WORDS) {
    if (E[e + 1] === RUN) lens[e / ENTRY_WORDS] = measureRun(keptElements(w._refs, E[e + 2]), w._refs[E[e + 2] + 1], E[e + 3]);
  }
  return resolve(w);
}

/**
 * Writes `w`'s message into `out[outStart .. outStart + total]`, from the end: each stretch of
 * written bytes moves once, each entry's bytes go in front of it. `out` may be `w._buf` itself
 * with `outStart === w._start` (in place: bytes only move right).
 * @param {object} w Writer
 * @param {Uint8Array} out Destination
 * @param {number} outStart Where the message starts in it
 * @param {number} total Its size (from `resolve`)
 * @param {Buffer|null} runs The native output block, holding the RUN payloads in order
 * @returns {undefined}
 */
function assemble(w, out, outStart, total, runs) {
  const E = w._e;
  const buf = w._buf;
  const start = w._start;
  const inPlace = out === buf;
  let src = w._pos;
  let dst = outStart + total;
  let runEnd = runs === null ? 0 : native.ctl[P.CTL_TOTAL];
  for (let k = w._ne / ENTRY_WORDS - 1; k >= 0; --k) {
    const e = k * ENTRY_WORDS;
    const kind = E[e + 1];
    if (kind === OPEN) continue;
    const at = start + E[e];
    const from = kind === FIXUP ? at + 1 : at;
    dst -= src - from;
    move(buf, from, src, out, dst, inPlace);
    if (kind === REF) {
      const array = w._refs[E[e + 2]];
      dst -= E[e + 3];
      out.set(bytesOf(array, E[e + 3]), dst);
      if (typedName(array) === 'Float32Array') quietNaNs(out, dst, w._refs[E[e + 2] + 1]);
    } else {
      const len = lens[k];
      if (kind === RUN) {
        runEnd -= len;
        dst -= len;
        out.set(runs.subarray(runEnd, runEnd + len), dst);
      }
      dst -= varint32Len(len);
      putVarint32(out, dst, len);
    }
    src = at;
  }
  dst -= src - start;
  move(buf, start, src, out, dst, inPlace);
  if (dst !== outStart) throw new Error(`protobufjs-rustwriter: internal error: assembled ${outStart + total - dst} of ${total} bytes`);
}

/**
 * Moves `buf[from .. to]` to `out[dst ..]`.
 * @param {Uint8Array} buf Source
 * @param {number} from Start
 * @param {number} to End
 * @param {Uint8Array} out Destination
 * @param {number} dst Where
 * @param {boolean} inPlace Whether `out` is `buf`
 * @returns {undefined}
 */
function move(buf, from, to, out, dst, inPlace) {
  if (to === from) return;
  if (!inPlace) out.set(buf.subarray(from, to), dst);
  else if (dst !== from) buf.copyWithin(dst, from, to);
}

module.exports = { finish, measure };
