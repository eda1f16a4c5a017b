'use strict';

/**
 * A writer's entries: what it cannot write as calls arrive, left for `finish()` (lib/writer/finish.js).
 *
 * A writer writes the wire bytes of its message itself, into one region of memory
 * (lib/writer/region.js). What it cannot write yet goes to its entries, an `Int32Array` of records of
 * {@link ENTRY_WORDS} words: `AT` (a byte offset from the region's start), `KIND`, and two
 * operands whose meaning each kind defines. Entries are in the order of `AT`, so that `finish()`
 * can splice them in with one backward pass that never moves a byte twice.
 *
 * - `OPEN`, at the placeholder byte of an open `fork()`: `OPEN_PARENT`, the enclosing open fork's
 *   entry (or -1); `OPEN_ADDED`, `_addedBytes` when it was opened. Spliced as nothing: the
 *   placeholder stays 0, as for a fork never closed.
 * - `FIXUP`, at the placeholder byte of a closed fork whose length did not fit it (or was not
 *   known): `SPAN_BYTES`, the bytes written after the placeholder up to `ldelim()`; `SPAN_END`,
 *   the first entry after the fork's content. Spliced as the length varint, in place of the
 *   placeholder.
 * - `PREFIX`, at 0: `SPAN_BYTES`, the bytes written before an `ldelim()` that had no fork open;
 *   `SPAN_END`, the first entry after them. Spliced as the length varint, inserted.
 * - `RUN`, where a long packed varint field's length and payload go: `KEPT`, its elements' index
 *   in `_kept`; `RUN_OF`, its run kind (`protocol.json` `RUN_*`). Spliced as the length varint and
 *   the payload the native encoder wrote.
 * - `REF`, where the bytes of a large `bytes` value (or fixed-size typed array) go: `KEPT`, its
 *   index in `_kept`; `REF_BYTES`, its byte length. Spliced as the array's bytes, copied once.
 *
 * A fork whose content turns out shorter than 128 bytes, the usual case, gets its length written
 * into its placeholder at `ldelim()`, and its entry is removed; so does a packed field written
 * by JS. So a message of small parts finishes with no entry at all.
 *
 * This module's functions are the only code that changes a writer's entry fields: `_entries`,
 * `_entryEnd` (words used), `_fork` (the innermost open fork's entry, or -1), `_addedBytes` (bytes
 * the entries add to the message, as far as known: all of them while `_runCount` is 0),
 * `_runCount`, `_lastRun` (the last RUN entry, or -1) and `_kept` (for RUN and REF entries, three
 * slots a kept array: `KEPT_ARRAY`, the array; `KEPT_COUNT`, the elements to write; `KEPT_LENGTH`,
 * its length when it was kept).
 *
 * **The entry array** is shared by the module's writers, as the slab is (lib/writer/region.js), so
 * that writers allocate nothing in the common case: a writer takes it with its first entry, and
 * the writer that had it keeps a copy of what it holds; `finish()` hands it back (`drop`).
 */

const { lengthOf } = require('./typed');
const { varint32Len } = require('./varint');

/** Words per entry, and the two every entry has. */
const ENTRY_WORDS = 4;
const AT = 0;
const KIND = 1;

/** Entry kinds. */
const OPEN = 1;
const FIXUP = 2;
const PREFIX = 3;
const RUN = 4;
const REF = 5;

/** Operands, by kind (see the table above). */
const OPEN_PARENT = 2;
const OPEN_ADDED = 3;
const SPAN_BYTES = 2;
const SPAN_END = 3;
const KEPT = 2;
const RUN_OF = 3;
const REF_BYTES = 3;

/** Slots of `_kept`, from a kept array's index there. */
const KEPT_ARRAY = 0;
const KEPT_COUNT = 1;
const KEPT_LENGTH = 2;

/** Entry words the shared entry array starts with (64 entries). */
const ENTRIES_MIN = 256;
const NO_ENTRIES = new Int32Array(0);
let shared = new Int32Array(ENTRIES_MIN);
/** The writer that has the shared entry array, or null. */
let sharedOwner = null;

/**
 * Gives up the shared entry array, keeping a copy of what it holds.
 * @param {RustWriter} w Writer
 * @returns {undefined}
 */
function keepCopy(w) {
  w._entries = w._entryEnd === 0 ? NO_ENTRIES : w._entries.slice(0, w._entryEnd);
}

/**
 * Room for `need` words in `w`'s entries: the shared array if it is large enough (the writer that
 * had it keeps a copy of what it holds), else a larger one, which becomes the shared one (the writer
 * that had the old one keeps it).
 * @param {RustWriter} w Writer
 * @param {number} need Words needed
 * @returns {Int32Array} Its entry array now
 */
function growEntries(w, need) {
  const old = w._entries;
  let e;
  if (sharedOwner !== w && shared.length >= need) {
    if (sharedOwner !== null) keepCopy(sharedOwner);
    e = shared;
  } else {
    e = new Int32Array(Math.max(2 * need, ENTRIES_MIN));
    shared = e;
  }
  sharedOwner = w;
  if (e !== old && w._entryEnd > 0) e.set(old.subarray(0, w._entryEnd)); // a view costs ~70 B
  w._entries = e;
  return e;
}

/**
 * Appends an entry.
 * @param {RustWriter} w Writer
 * @param {number} at Byte offset from the region's start
 * @param {number} kind Kind
 * @param {number} a First operand
 * @param {number} b Second operand
 * @returns {number} Its index
 */
function entry(w, at, kind, a, b) {
  const e = w._entryEnd;
  let entries = w._entries;
  if (e + ENTRY_WORDS > entries.length) entries = growEntries(w, e + ENTRY_WORDS);
  entries[e + AT] = at;
  entries[e + KIND] = kind;
  entries[e + 2] = a;
  entries[e + 3] = b;
  w._entryEnd = e + ENTRY_WORDS;
  return e;
}

/**
 * Opens a fork whose placeholder is at `at`.
 * @param {RustWriter} w Writer
 * @param {number} at Byte offset of the placeholder from the region's start
 * @returns {undefined}
 */
function pushFork(w, at) {
  w._fork = entry(w, at, OPEN, w._fork, w._addedBytes);
}

/**
 * Closes the innermost open fork, whose content is `bytes` written bytes (plus what the entries
 * inside add): returns its length when it fits the placeholder (the entry is then dropped),
 * else records a FIXUP and returns -1.
 * @param {RustWriter} w Writer
 * @param {number} bytes Bytes written after the placeholder
 * @returns {number} The length to write into the placeholder, or -1
 */
function popFork(w, bytes) {
  const f = w._fork;
  const entries = w._entries;
  w._fork = entries[f + OPEN_PARENT];
  if (w._lastRun < f) {
    // The content's length is known: its bytes plus what the entries inside add.
    const len = bytes + w._addedBytes - entries[f + OPEN_ADDED];
    if (len < 128 && w._entryEnd === f + ENTRY_WORDS) {
      // The usual case: short, with no entry inside.
      w._entryEnd = f;
      return len;
    }
    w._addedBytes += varint32Len(len) - 1;
  }
  entries[f + KIND] = FIXUP;
  entries[f + SPAN_BYTES] = bytes;
  entries[f + SPAN_END] = w._entryEnd;
  return -1;
}

/**
 * Drops the innermost open fork and the entries after it (`reset()`).
 * @param {RustWriter} w Writer
 * @returns {number} Byte offset of its placeholder, where writing goes on
 */
function dropFork(w) {
  const f = w._fork;
  const entries = w._entries;
  w._fork = entries[f + OPEN_PARENT];
  w._addedBytes = entries[f + OPEN_ADDED];
  w._entryEnd = f;
  if (w._lastRun > f) countRuns(w);
  return entries[f + AT];
}

/**
 * Recounts the RUN entries after some were dropped.
 * @param {RustWriter} w Writer
 * @returns {undefined}
 */
function countRuns(w) {
  const entries = w._entries;
  w._runCount = 0;
  w._lastRun = -1;
  for (let e = 0; e < w._entryEnd; e += ENTRY_WORDS) {
    if (entries[e + KIND] === RUN) {
      ++w._runCount;
      w._lastRun = e;
    }
  }
}

/**
 * Records that the placeholder at `at` needs the length `len` (128 or more), with no entry
 * between it and the write position.
 * @param {RustWriter} w Writer
 * @param {number} at Byte offset of the placeholder from the region's start
 * @param {number} len Bytes after it
 * @returns {undefined}
 */
function fixup(w, at, len) {
  entry(w, at, FIXUP, len, w._entryEnd + ENTRY_WORDS);
  w._addedBytes += varint32Len(len) - 1;
}

/**
 * Closes the one-byte length placeholder at offset `at`, written before the bytes up to `_pos`,
 * which hold no entry (a packed field JS wrote): writes the length into it, or records a FIXUP.
 * @param {RustWriter} w Writer
 * @param {number} at Offset of the placeholder from the region's start
 * @returns {undefined}
 */
function delimit(w, at) {
  const len = w._pos - w._start - at - 1;
  if (len < 128) w._buf[w._start + at] = len;
  else fixup(w, at, len);
}

/**
 * Closes a section whose one-byte placeholder at `at` was written when the writer had `from`
 * entry words and `_addedBytes` was `addedThen`, and which now holds `bytes` written bytes and the
 * entries from `from` on (a nested message a compiled encoder wrote, with a long fork, a kept array
 * or a run inside): a FIXUP for it goes before them, so that entries stay in the order of `AT`.
 * @param {RustWriter} w Writer
 * @param {number} at Offset of the placeholder from the region's start
 * @param {number} bytes Bytes written after it
 * @param {number} from Entry words before the section
 * @param {number} addedThen `_addedBytes` before the section
 * @returns {undefined}
 */
function fixupBefore(w, at, bytes, from, addedThen) {
  const end = w._entryEnd;
  let entries = w._entries;
  if (end + ENTRY_WORDS > entries.length) entries = growEntries(w, end + ENTRY_WORDS);
  entries.copyWithin(from + ENTRY_WORDS, from, end);
  for (let e = from + ENTRY_WORDS; e <= end; e += ENTRY_WORDS) {
    const kind = entries[e + KIND];
    if (kind === FIXUP || kind === PREFIX) entries[e + SPAN_END] += ENTRY_WORDS;
  }
  entries[from + AT] = at;
  entries[from + KIND] = FIXUP;
  entries[from + SPAN_BYTES] = bytes;
  entries[from + SPAN_END] = end + ENTRY_WORDS;
  w._entryEnd = end + ENTRY_WORDS;
  if (w._lastRun >= from) w._lastRun += ENTRY_WORDS;
  // The section's length is known unless a run inside has yet to be encoded.
  else w._addedBytes += varint32Len(bytes + w._addedBytes - addedThen) - 1;
}

/**
 * Where a writer's entries stand, for a section or a held write to compare with or roll back to
 * later: the entry words recorded so far (`mark`) and the bytes they add (`addedMark`).
 * @param {RustWriter} w Writer
 * @returns {number} Entry words
 */
function mark(w) {
  return w._entryEnd;
}

/**
 * @param {RustWriter} w Writer
 * @returns {number} Bytes its entries add to the message, as far as known (see `_addedBytes`)
 */
function addedMark(w) {
  return w._addedBytes;
}

/**
 * Closes a section (a length-delimited part a held write wrote: a nested message, a map entry, a
 * packed field) whose one-byte placeholder at offset `at` could not be filled: its `len` bytes need
 * more than one, or entries were recorded inside since `mark(w)` was `from` and `addedMark(w)` was
 * `addedThen`.
 * @param {RustWriter} w Writer
 * @param {number} at Offset of the placeholder from the region's start
 * @param {number} len Bytes written after it
 * @param {number} from `mark(w)` when the section was opened
 * @param {number} addedThen `addedMark(w)` when the section was opened
 * @returns {undefined}
 */
function closeSection(w, at, len, from, addedThen) {
  if (w._entryEnd === from) fixup(w, at, len);
  else fixupBefore(w, at, len, from, addedThen);
}

/**
 * @param {RustWriter} w Writer
 * @param {number} from A `mark(w)`
 * @returns {boolean} Whether a RUN entry was recorded since: the bytes of a section opened then are
 * not known until `finish()` has encoded its runs (without one, `addedMark(w)` minus its value then
 * is what the entries since add)
 */
function runSince(w, from) {
  return w._lastRun >= from;
}

/**
 * Moves the entries recorded since the writer had `from` entry words by `delta` bytes: a held
 * write moved the bytes they stand in (a section whose placeholder took another width,
 * lib/encoders/runtime.js `closeWide`; a stretch rotated, lib/serializers/runtime.js `rotate`, which
 * keeps the entries in the order of `AT`).
 * @param {RustWriter} w Writer
 * @param {number} from Entry words before them
 * @param {number} delta Bytes (negative: towards the region's start)
 * @returns {undefined}
 */
function moveEntries(w, from, delta) {
  const entries = w._entries;
  for (let e = from; e < w._entryEnd; e += ENTRY_WORDS) entries[e + AT] += delta;
}

/**
 * Drops the entries recorded since the writer had `from` entry words and `_addedBytes` was
 * `addedThen` (a compiled encoder's encode that threw, rolled back).
 * @param {RustWriter} w Writer
 * @param {number} from Entry words to keep
 * @param {number} addedThen `_addedBytes` then
 * @returns {undefined}
 */
function truncate(w, from, addedThen) {
  if (w._entryEnd === from) return;
  w._entryEnd = from;
  w._addedBytes = addedThen;
  if (w._lastRun >= from) countRuns(w);
}

/**
 * `ldelim()` with no fork open, when entries exist: a PREFIX entry before them all (rather than
 * moving them) for the `bytes` written so far.
 * @param {RustWriter} w Writer
 * @param {number} bytes Bytes written
 * @returns {undefined}
 */
function prefixEntries(w, bytes) {
  const end = w._entryEnd;
  let entries = w._entries;
  if (end + ENTRY_WORDS > entries.length) entries = growEntries(w, end + ENTRY_WORDS);
  entries.copyWithin(ENTRY_WORDS, 0, end);
  for (let e = ENTRY_WORDS; e <= end; e += ENTRY_WORDS) {
    const kind = entries[e + KIND];
    if (kind === FIXUP || kind === PREFIX) entries[e + SPAN_END] += ENTRY_WORDS;
  }
  entries[AT] = 0;
  entries[KIND] = PREFIX;
  entries[SPAN_BYTES] = bytes;
  entries[SPAN_END] = end + ENTRY_WORDS;
  w._entryEnd = end + ENTRY_WORDS;
  if (w._lastRun >= 0) w._lastRun += ENTRY_WORDS;
  else w._addedBytes += varint32Len(bytes + w._addedBytes);
}

/**
 * Keeps `array` until `finish()`, for a RUN or REF entry.
 * @param {RustWriter} w Writer
 * @param {ArrayLike<*>} array Elements
 * @param {number} count Elements to write
 * @returns {number} Its index in `_kept`
 */
function keep(w, array, count) {
  if (w._kept === null) w._kept = [];
  const k = w._kept.length;
  w._kept.push(array, count, lengthOf(array)); // KEPT_ARRAY, KEPT_COUNT, KEPT_LENGTH
  return k;
}

/**
 * Records a long packed varint field for the native encoder: its length and payload go at `at`.
 * @param {RustWriter} w Writer
 * @param {number} at Byte offset from the region's start
 * @param {ArrayBufferView} array Elements (an Int32Array, Uint32Array or BigInt array)
 * @param {number} count Elements to encode
 * @param {number} kind `protocol.json` `RUN_*`
 * @returns {undefined}
 */
function run(w, at, array, count, kind) {
  w._lastRun = entry(w, at, RUN, keep(w, array, count), kind);
  ++w._runCount;
}

/**
 * Records the bytes of a typed array, copied into the result by `finish()`.
 * @param {RustWriter} w Writer
 * @param {number} at Byte offset from the region's start
 * @param {ArrayBufferView} array Typed array whose bytes are the wire bytes
 * @param {number} count Elements to write
 * @param {number} bytes Their byte length
 * @returns {undefined}
 */
function ref(w, at, array, count, bytes) {
  entry(w, at, REF, keep(w, array, count), bytes);
  w._addedBytes += bytes;
}

/**
 * Gives a new writer its entry fields, with no entries (RustWriter's constructor).
 * @param {RustWriter} w Writer
 * @returns {undefined}
 */
function init(w) {
  w._entries = NO_ENTRIES;
  clear(w);
}

/**
 * Drops every entry (`reset()` with no fork open), keeping the array: every entry field but
 * `_entries`, the one list of them with `init`.
 * @param {RustWriter} w Writer
 * @returns {undefined}
 */
function clear(w) {
  w._entryEnd = 0;
  w._fork = -1;
  w._addedBytes = 0;
  w._runCount = 0;
  w._lastRun = -1;
  w._kept = null;
}

/**
 * Drops every entry and hands the array back (`finish()`).
 * @param {RustWriter} w Writer
 * @returns {undefined}
 */
function drop(w) {
  clear(w);
  w._entries = NO_ENTRIES;
  if (sharedOwner === w) sharedOwner = null;
}

module.exports = {
  ENTRY_WORDS, AT, KIND, OPEN, FIXUP, PREFIX, RUN, REF, SPAN_BYTES, SPAN_END, KEPT, RUN_OF, REF_BYTES,
  KEPT_ARRAY, KEPT_COUNT, KEPT_LENGTH, NO_ENTRIES,
  pushFork, popFork, dropFork, fixup, delimit, fixupBefore, truncate, prefixEntries, run, ref, init, clear, drop,
  mark, addedMark, closeSection, runSince, moveEntries,
};
