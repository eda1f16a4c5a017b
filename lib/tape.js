'use strict';

/**
 * The tape: what a writer holds until `finish()`.
 *
 * A writer writes the wire bytes of its message itself, as they arrive, into one region of
 * memory (lib/memory.js): tags, varints, fixed-width values, strings, short `bytes`, packed
 * fields. What it cannot write yet goes to its *entries*, an `Int32Array` of records of
 * {@link ENTRY_WORDS} words `[at, kind, a, b]`, `at` being a byte offset from the region's
 * start. Entries are in the order of `at`, so `finish()` can splice them in one backward pass
 * (lib/finish.js) without ever shifting bytes twice:
 *
 * | kind | at | a | b | spliced as |
 * |---|---|---|---|---|
 * | `OPEN` | the placeholder byte of an open `fork()` | index of the enclosing open fork's entry, or -1 | bytes of known expansions (`_extra`) when it was opened | nothing: the placeholder stays 0, as for an unclosed fork |
 * | `FIXUP` | the placeholder byte of a closed fork whose length did not fit it (or was not known) | bytes written between placeholder and `ldelim()` | index of the first entry after the fork's content | the length varint in place of the placeholder |
 * | `PREFIX` | 0 | bytes written before an `ldelim()` that had no fork open | index of the first entry after the content | the length varint, inserted |
 * | `RUN` | where a long packed varint field's length and payload go | index in `_refs` of its elements | run kind (`protocol.json` `RUN_*`) | the length varint and the payload the native side encoded |
 * | `REF` | where the bytes of a large `bytes` value (or packed fixed-size typed array) go | index in `_refs` of the array | its byte length | the array's bytes, copied once |
 *
 * A fork whose content turns out shorter than 128 bytes, the usual case, gets its length written
 * into the placeholder at `ldelim()` and its entry removed; so does a packed field written by
 * JS. So a message of small parts finishes with no entry at all, as a view of the bytes already
 * written.
 *
 * The native side sees none of this: it only encodes runs (`rust/opcode.rs` defines that format;
 * `protocol.json` carries its numbers to JS, checked against the addon at load time and by the
 * tests).
 */

const P = require('../protocol.json');

/** Words per entry. */
const ENTRY_WORDS = 4;
/** Entry word: byte offset from the region's start. */
const AT = 0;
/** Entry word: kind. */
const KIND = 1;
/** Entry words: operands. */
const A = 2;
const B = 3;

/** Entry kinds. */
const OPEN = 1;
const FIXUP = 2;
const PREFIX = 3;
const RUN = 4;
const REF = 5;

module.exports = { P, ENTRY_WORDS, AT, KIND, A, B, OPEN, FIXUP, PREFIX, RUN, REF };
