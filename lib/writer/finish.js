'use strict';

/**
 * `finish()`: from what a writer holds (its bytes, and its entries: lib/writer/entries.js) to the
 * result.
 *
 * 1. RUN entries: one native call encodes all of them (lib/writer/native.js), and gives their
 *    lengths.
 * 2. `resolve`: every FIXUP's and PREFIX's length, from the innermost out, with a suffix sum of
 *    what each entry adds (a fork's entries are the contiguous ones after it), and so the result's
 *    size.
 * 3. Where to assemble it, lib/writer/region.js says (`assemblyTarget`): where the bytes are (a
 *    message in the slab, whose result is then a view of them, or in a large or private buffer,
 *    then copied out), or into a new result.
 * 4. `assemble`: one backward pass that moves each stretch of written bytes once, to its final
 *    place, and writes each entry's bytes in front of it. Where the bytes are, it works in place
 *    (`copyWithin`; the bytes only ever move right).
 * 5. region.js makes the result and seals the writer with it (`sealAssembled`), and its entries
 *    are dropped (entries.js `drop`): writing on continues from the result, moved first.
 *
 * Without entries (the usual case: every fork's length fitted its placeholder) there is nothing to
 * resolve or assemble: region.js makes the result at once (`sealAsIs`; for a message below the
 * pooling threshold in the slab, a view of its bytes).
 *
 * A writer with a fork still open is not sealed: its result is a copy, and it goes on as it is.
 */

const PROTOCOL = require('../../protocol.json');
const {
  ENTRY_WORDS, AT, KIND, OPEN, FIXUP, PREFIX, RUN, REF, SPAN_BYTES, SPAN_END, KEPT, RUN_OF, REF_BYTES,
  KEPT_ARRAY, KEPT_COUNT, KEPT_LENGTH, drop,
} = require('./entries');
const region = require('./region');
const native = require('./native');
const { BITS, longBits } = require('./long');
const { varint32Len, varint64Len, putVarint32, quietNaNs } = require('./varint');
const { typedName, lengthOf, viewOf, bytesOf } = require('./typed');

/** Per entry, the length `resolve` found (FIXUP, PREFIX, RUN), and the suffix sums of what the
 * entries add. Float64 so that no sum wraps before the size check. */
let lens = new Float64Array(64);
let sums = new Float64Array(65);
/** The runs of one `finish()`, for lib/writer/native.js (reused). */
const runSources = [];
const runKinds = [];
let runLengths = new Float64Array(PROTOCOL.MAX_RUNS);

/**
 * The result of `w`, which then holds it as its content.
 * @param {RustWriter} w Writer, not held
 * @returns {Buffer} Result
 */
function finish(w) {
  const written = w._pos - w._start;
  let result;
  if (w._entryEnd === 0) {
    result = region.sealAsIs(w, written);
  } else {
    if (w._kept !== null) checkKept(w);
    const runs = w._runCount > 0 ? encodeRuns(w) : null;
    const total = resolve(w, written);
    if (w._fork >= 0) {
      // A fork is still open: the writer goes on as it is, so assemble a copy.
      result = region.allocResult(total);
      assemble(w, result, 0, total, runs);
      return result;
    }
    const into = region.assemblyTarget(w, total);
    if (into === null) assemble(w, w._buf, w._start, total, runs);
    else assemble(w, into, 0, total, runs);
    result = region.sealAssembled(w, total, into);
  }
  drop(w);
  return result;
}

/**
 * Throws if an array a live entry keeps no longer holds what it held when it was given (its
 * buffer detached, or resized): its bytes could not be copied. Reads no property a caller could
 * have defined (lib/writer/typed.js).
 * @param {RustWriter} w Writer with REF or RUN entries
 * @returns {undefined}
 */
function checkKept(w) {
  const entries = w._entries;
  const kept = w._kept;
  for (let e = 0; e < w._entryEnd; e += ENTRY_WORDS) {
    const kind = entries[e + KIND];
    if (kind !== REF && kind !== RUN) continue;
    const k = entries[e + KEPT];
    if (lengthOf(kept[k + KEPT_ARRAY]) !== kept[k + KEPT_LENGTH]) {
      throw new Error('protobufjs-rustwriter: an array given to bytes() or a packed method was detached or resized before finish()');
    }
  }
}

/**
 * The elements a REF or RUN entry writes: the first `count` of the array it keeps.
 * @param {Array} kept `w._kept`
 * @param {number} k The entry's index in it
 * @returns {ArrayBufferView} A typed array of exactly those elements
 */
function keptElements(kept, k) {
  const array = kept[k + KEPT_ARRAY];
  const count = kept[k + KEPT_COUNT];
  return kept[k + KEPT_LENGTH] === count ? array : viewOf(array, count);
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
 * @param {RustWriter} w Writer
 * @returns {Buffer} The native output block, holding the payloads one after the other
 */
function encodeRuns(w) {
  const entries = w._entries;
  const end = w._entryEnd;
  scratchFor(end / ENTRY_WORDS);
  let count = 0;
  for (let e = 0; e < end; e += ENTRY_WORDS) {
    if (entries[e + KIND] !== RUN) continue;
    runSources[count] = keptElements(w._kept, entries[e + KEPT]);
    runKinds[count] = entries[e + RUN_OF];
    ++count;
  }
  if (runLengths.length < count) runLengths = new Float64Array(count);
  const output = native.encodeRuns(count, runSources, runKinds, runLengths);
  runSources.fill(null, 0, count); // no kept array outlives its finish()
  for (let e = 0, i = 0; e < end; e += ENTRY_WORDS) {
    if (entries[e + KIND] === RUN) lens[e / ENTRY_WORDS] = runLengths[i++];
  }
  return output;
}

/**
 * The payload length of a run, measured in JS (for `pos` before `finish()`).
 * @param {ArrayLike<number|bigint>} src Elements
 * @param {number} kind `RUN_*`
 * @returns {number} Bytes
 */
function measureRun(src, kind) {
  let len = 0;
  for (let i = 0, n = lengthOf(src); i < n; ++i) {
    if (kind === PROTOCOL.RUN_UINT32) len += varint32Len(src[i] >>> 0);
    else if (kind === PROTOCOL.RUN_INT32) len += (src[i] | 0) < 0 ? 10 : varint32Len(src[i] | 0);
    else if (kind === PROTOCOL.RUN_SINT32) len += varint32Len(((src[i] << 1) ^ (src[i] >> 31)) >>> 0);
    else {
      longBits(src[i]);
      let lo = BITS[0];
      let hi = BITS[1];
      if (kind === PROTOCOL.RUN_SINT64) {
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
 * @param {RustWriter} w Writer
 * @param {number} written Bytes it wrote
 * @returns {number} Bytes of the result
 */
function resolve(w, written) {
  const entries = w._entries;
  const n = w._entryEnd / ENTRY_WORDS;
  scratchFor(n);
  sums[n] = 0;
  for (let k = n - 1; k >= 0; --k) {
    const e = k * ENTRY_WORDS;
    let added = 0;
    switch (entries[e + KIND]) {
      case FIXUP:
      case PREFIX: {
        // The span's bytes, plus what the entries inside it add.
        const len = entries[e + SPAN_BYTES] + sums[k + 1] - sums[entries[e + SPAN_END] / ENTRY_WORDS];
        lens[k] = len;
        added = entries[e + KIND] === FIXUP ? varint32Len(len) - 1 : varint32Len(len);
        break;
      }
      case RUN:
        added = varint32Len(lens[k]) + lens[k];
        break;
      case REF:
        added = entries[e + REF_BYTES];
        break;
      default: // OPEN: the placeholder stays, a 0 byte
    }
    sums[k] = sums[k + 1] + added;
  }
  const total = written + sums[0];
  if (total > PROTOCOL.MAX_OUTPUT) region.tooLarge(total);
  return total;
}

/**
 * Bytes `finish()` would return now, without finishing (`pos` when runs make it unknown).
 * @param {RustWriter} w Writer
 * @param {number} written Bytes it wrote (a held writer's reserved room not counted)
 * @returns {number} Bytes
 */
function measure(w, written) {
  if (w._kept !== null) checkKept(w);
  const entries = w._entries;
  scratchFor(w._entryEnd / ENTRY_WORDS);
  for (let e = 0; e < w._entryEnd; e += ENTRY_WORDS) {
    if (entries[e + KIND] !== RUN) continue;
    lens[e / ENTRY_WORDS] = measureRun(keptElements(w._kept, entries[e + KEPT]), entries[e + RUN_OF]);
  }
  return resolve(w, written);
}

/**
 * Writes `w`'s message into `out[outStart .. outStart + total]`, from the end: each stretch of
 * written bytes moves once, each entry's bytes go in front of it. `out` may be `w._buf` itself
 * with `outStart === w._start` (in place: bytes only move right).
 * @param {RustWriter} w Writer
 * @param {Uint8Array} out Destination
 * @param {number} outStart Where the message starts in it
 * @param {number} total Its size (from `resolve`)
 * @param {Buffer|null} runs The native output block, holding the RUN payloads in order
 * @returns {undefined}
 */
function assemble(w, out, outStart, total, runs) {
  const entries = w._entries;
  const buf = w._buf;
  const start = w._start;
  const inPlace = out === buf;
  let src = w._pos;
  let dst = outStart + total;
  let runEnd = 0;
  if (runs !== null) for (let i = 0; i < w._runCount; ++i) runEnd += runLengths[i];
  for (let k = w._entryEnd / ENTRY_WORDS - 1; k >= 0; --k) {
    const e = k * ENTRY_WORDS;
    const kind = entries[e + KIND];
    if (kind === OPEN) continue;
    const at = start + entries[e + AT];
    const from = kind === FIXUP ? at + 1 : at;
    dst -= src - from;
    move(buf, from, src, out, dst, inPlace);
    if (kind === REF) {
      const k2 = entries[e + KEPT];
      const array = w._kept[k2 + KEPT_ARRAY];
      dst -= entries[e + REF_BYTES];
      out.set(bytesOf(array, entries[e + REF_BYTES]), dst);
      if (typedName(array) === 'Float32Array') quietNaNs(out, dst, w._kept[k2 + KEPT_COUNT]);
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
