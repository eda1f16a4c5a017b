'use strict';

/**
 * A writer's entries: what it cannot write as calls arrive, left for `finish()` (lib/finish.js).
 *
 * A writer writes the wire bytes of its message itself, into one region of memory
 * (lib/writer.js). What it cannot write yet goes to its entries, an `Int32Array` of records of
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
 * These methods are RustWriter's (lib/writer.js puts them on its prototype), and the only code
 * that changes the writer's entry fields: `_entries`, `_entryEnd` (words used), `_fork` (the
 * innermost open fork's entry, or -1), `_addedBytes` (bytes the entries add to the message, as
 * far as known: all of them while `_runCount` is 0), `_runCount`, `_lastRun` (the last RUN
 * entry, or -1) and `_kept` (`[array, count, its length then, …]` for RUN and REF entries).
 */

const memory = require('./memory');
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

/** Words of `_kept` per kept array: the array, the elements to write, its length then. */
const KEPT_WORDS = 3;

/**
 * Appends an entry.
 * @this {RustWriter}
 * @param {number} at Byte offset from the region's start
 * @param {number} kind Kind
 * @param {number} a First operand
 * @param {number} b Second operand
 * @returns {number} Its index
 */
function _entry(at, kind, a, b) {
  const e = this._entryEnd;
  let entries = this._entries;
  if (e + ENTRY_WORDS > entries.length) entries = this._entries = memory.growEntries(this, entries, e, e + ENTRY_WORDS);
  entries[e + AT] = at;
  entries[e + KIND] = kind;
  entries[e + 2] = a;
  entries[e + 3] = b;
  this._entryEnd = e + ENTRY_WORDS;
  return e;
}

/**
 * Opens a fork whose placeholder is at `at`.
 * @this {RustWriter}
 * @param {number} at Byte offset of the placeholder from the region's start
 * @returns {undefined}
 */
function _pushFork(at) {
  this._fork = this._entry(at, OPEN, this._fork, this._addedBytes);
}

/**
 * Closes the innermost open fork, whose content is `bytes` written bytes (plus what the entries
 * inside add): returns its length when it fits the placeholder (the entry is then dropped),
 * else records a FIXUP and returns -1.
 * @this {RustWriter}
 * @param {number} bytes Bytes written after the placeholder
 * @returns {number} The length to write into the placeholder, or -1
 */
function _popFork(bytes) {
  const f = this._fork;
  const entries = this._entries;
  this._fork = entries[f + OPEN_PARENT];
  if (this._lastRun < f) {
    // The content's length is known: its bytes plus what the entries inside add.
    const len = bytes + this._addedBytes - entries[f + OPEN_ADDED];
    if (len < 128 && this._entryEnd === f + ENTRY_WORDS) {
      // The usual case: short, with no entry inside.
      this._entryEnd = f;
      return len;
    }
    this._addedBytes += varint32Len(len) - 1;
  }
  entries[f + KIND] = FIXUP;
  entries[f + SPAN_BYTES] = bytes;
  entries[f + SPAN_END] = this._entryEnd;
  return -1;
}

/**
 * Drops the innermost open fork and the entries after it (`reset()`).
 * @this {RustWriter}
 * @returns {number} Byte offset of its placeholder, where writing goes on
 */
function _dropFork() {
  const f = this._fork;
  const entries = this._entries;
  this._fork = entries[f + OPEN_PARENT];
  this._addedBytes = entries[f + OPEN_ADDED];
  this._entryEnd = f;
  if (this._lastRun > f) countRuns(this);
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
 * @this {RustWriter}
 * @param {number} at Byte offset of the placeholder from the region's start
 * @param {number} len Bytes after it
 * @returns {undefined}
 */
function _fixup(at, len) {
  this._entry(at, FIXUP, len, this._entryEnd + ENTRY_WORDS);
  this._addedBytes += varint32Len(len) - 1;
}

/**
 * `ldelim()` with no fork open, when entries exist: a PREFIX entry before them all (rather than
 * moving them) for the `bytes` written so far.
 * @this {RustWriter}
 * @param {number} bytes Bytes written
 * @returns {undefined}
 */
function _prefixEntries(bytes) {
  const end = this._entryEnd;
  let entries = this._entries;
  if (end + ENTRY_WORDS > entries.length) {
    entries = this._entries = memory.growEntries(this, entries, end, end + ENTRY_WORDS);
  }
  entries.copyWithin(ENTRY_WORDS, 0, end);
  for (let e = ENTRY_WORDS; e <= end; e += ENTRY_WORDS) {
    const kind = entries[e + KIND];
    if (kind === FIXUP || kind === PREFIX) entries[e + SPAN_END] += ENTRY_WORDS;
  }
  entries[AT] = 0;
  entries[KIND] = PREFIX;
  entries[SPAN_BYTES] = bytes;
  entries[SPAN_END] = end + ENTRY_WORDS;
  this._entryEnd = end + ENTRY_WORDS;
  if (this._lastRun >= 0) this._lastRun += ENTRY_WORDS;
  else this._addedBytes += varint32Len(bytes + this._addedBytes);
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
  w._kept.push(array, count, lengthOf(array));
  return k;
}

/**
 * Records a long packed varint field for the native encoder: its length and payload go at `at`.
 * @this {RustWriter}
 * @param {number} at Byte offset from the region's start
 * @param {ArrayBufferView} array Elements (an Int32Array, Uint32Array or BigInt array)
 * @param {number} count Elements to encode
 * @param {number} kind `protocol.json` `RUN_*`
 * @returns {undefined}
 */
function _run(at, array, count, kind) {
  this._lastRun = this._entry(at, RUN, keep(this, array, count), kind);
  ++this._runCount;
}

/**
 * Records the bytes of a typed array, copied into the result by `finish()`.
 * @this {RustWriter}
 * @param {number} at Byte offset from the region's start
 * @param {ArrayBufferView} array Typed array whose bytes are the wire bytes
 * @param {number} count Elements to write
 * @param {number} bytes Their byte length
 * @returns {undefined}
 */
function _ref(at, array, count, bytes) {
  this._entry(at, REF, keep(this, array, count), bytes);
  this._addedBytes += bytes;
}

/**
 * Drops every entry (`reset()` with no fork open), keeping the array.
 * @this {RustWriter}
 * @returns {undefined}
 */
function _clearEntries() {
  this._entryEnd = 0;
  this._fork = -1;
  this._addedBytes = 0;
  this._runCount = 0;
  this._lastRun = -1;
  this._kept = null;
}

/**
 * Drops every entry and the array (`finish()`, which hands the array back to lib/memory.js).
 * @this {RustWriter}
 * @returns {undefined}
 */
function _dropEntries() {
  this._clearEntries();
  this._entries = memory.NO_ENTRIES;
}

/**
 * Gives up the entry array this writer shares with the module's other writers, keeping a copy
 * of what it holds (lib/memory.js calls it when another writer takes the shared array).
 * @this {RustWriter}
 * @returns {undefined}
 */
function _keepEntries() {
  this._entries = this._entryEnd === 0 ? memory.NO_ENTRIES : this._entries.slice(0, this._entryEnd);
}

/** RustWriter's methods for its entries. */
const entryMethods = {
  _entry, _pushFork, _popFork, _dropFork, _fixup, _prefixEntries, _run, _ref, _clearEntries, _dropEntries, _keepEntries,
};

module.exports = {
  ENTRY_WORDS, AT, KIND, OPEN, FIXUP, PREFIX, RUN, REF,
  OPEN_PARENT, OPEN_ADDED, SPAN_BYTES, SPAN_END, KEPT, RUN_OF, REF_BYTES, KEPT_WORDS,
  entryMethods,
};
