'use strict';

/**
 * What compiled encoders (lib/encoders/code.js writes their source) call: the writer's public pieces
 * a held write uses (lib/writer/region.js "A held write", lib/writer/entries.js's marks and
 * sections), and the shapes every field takes, each written once here so that a Type's generated
 * code is its presence checks and one call a field, about the size of protobufjs's own encoder.
 *
 * Every writing helper takes the writer, held, and the position `p` its encode has written up to,
 * and returns the position after what it wrote: it makes room itself (the region may move, so
 * nothing outside a helper keeps the region's buffer). A field's helper writes its tag (none where
 * `tag` is 0: an element of a packed field in protobufjs 7's encoder), then converts its value as
 * RustWriter's method for that type does (lib/writer/writer.js; protobuf.js's conversions), after
 * the tag, as protobufjs's `w.uint32(tag).int32(v)` converts it. A conversion may run user code
 * (`valueOf`, getters): the writer is held meanwhile (lib/writer/region.js, "Holding"), so that code
 * can neither write into it nor take its room.
 *
 * A field the encode does not write itself (`bytes`, a non-string `string`, a long packed field,
 * `$unknowns`, a nested message whose Type's `encode` is not the compiler's) goes through the
 * writer's own method or the Type's `encode` (`via`), which keeps protobuf.js's semantics and the
 * native path for long packed fields. A nested message is a section (`open`, `close`): a one-byte
 * length placeholder, filled when it closes if its length fits and no entry was recorded inside,
 * else closed by an entry (entries.js `closeSection`).
 *
 * An encode that throws leaves the writer as it was before the encode (`abort`): position and
 * entries rolled back.
 */

const region = require('../writer/region');
const entries = require('../writer/entries');
const { BITS, longBits, decimalBits } = require('../writer/long');
const { longPacked, shortVarints, SHORT, BULK_FLOATS_MIN } = require('../writer/packed');
const { putString, UTF8_LOOP_MAX } = require('../writer/bytes');
const loops = require('../writer/loops');
const {
  varint32Len, putVarint32, putVarint64, putZigzag64, putNegativeInt32, putFixed32, putFloat, putDouble,
} = require('../writer/varint');

const { lend, takeBack, abortHeld, heldBuffer, heldEnd, heldStart, growHeld } = region;
const { mark, addedMark, closeSection } = entries;

/** The most bytes a tag and a scalar after it take: a 5-byte tag and a 10-byte varint. */
const SCALAR_ROOM = 15;
/** A tag and a section's one-byte placeholder. */
const SECTION_ROOM = 6;

/**
 * Room for `n` bytes at `p`.
 * @param {RustWriter} w Writer, held
 * @param {number} p Where the encode writes next
 * @param {number} n Bytes
 * @returns {number} Where `p` is now (the region may have moved: read `heldBuffer(w)` after)
 */
function room(w, p, n) {
  return p + n > heldEnd(w) ? growHeld(w, p, n) : p;
}

/**
 * Writes a field's tag at `p`, which has room for it; none if `tag` is 0.
 * @param {Uint8Array} buf The region's buffer
 * @param {number} p Position
 * @param {number} tag Tag (`id << 3 | wire type`, unsigned), or 0
 * @returns {number} Position after it
 */
function putTag(buf, p, tag) {
  if (tag === 0) return p;
  while (tag > 127) {
    buf[p++] = (tag & 127) | 128;
    tag >>>= 7;
  }
  buf[p] = tag;
  return p + 1;
}

/**
 * Writes a field through something that writes with the writer's API (a writer method, a packed
 * method's long path, a Type's `encode`): `fn.call(self, a, b, c)` with the writer lent at `p`.
 * @param {RustWriter} w Writer, held by the encode
 * @param {number} p Where the encode's bytes end
 * @param {Function} fn What writes
 * @param {*} self Its `this`
 * @param {*} a First argument
 * @param {*} [b] Second argument
 * @param {*} [c] Third argument
 * @returns {number} Where the bytes end now (the region may have moved)
 */
function via(w, p, fn, self, a, b, c) {
  lend(w, p);
  try {
    fn.call(self, a, b, c);
  } catch (err) {
    takeBack(w);
    throw err;
  }
  return takeBack(w);
}

/**
 * Ends an encode that threw: the writer is as it was before it.
 * @param {RustWriter} w Writer, held by the encode
 * @param {*} err What was thrown
 * @param {number} at `beginHeld`'s offset
 * @param {number} from `entries.mark` before the encode
 * @param {number} addedThen `entries.addedMark` before the encode
 * @returns {*} `err`, to throw
 */
function abort(w, err, at, from, addedThen) {
  abortHeld(w, at);
  entries.truncate(w, from, addedThen);
  return err;
}

// Scalars: `w.uint32(tag).<type>(v)`.

/** @type {function(RustWriter, number, number, *): number} `uint32` */
function uint32(w, p, tag, v) {
  p = room(w, p, SCALAR_ROOM);
  const buf = heldBuffer(w);
  p = putTag(buf, p, tag);
  return putVarint32(buf, p, v >>> 0);
}

/** @type {function(RustWriter, number, number, *): number} `int32` (and enums) */
function int32(w, p, tag, v) {
  p = room(w, p, SCALAR_ROOM);
  const buf = heldBuffer(w);
  p = putTag(buf, p, tag);
  const x = v | 0;
  return x < 0 ? putNegativeInt32(buf, p, x) : putVarint32(buf, p, x);
}

/** @type {function(RustWriter, number, number, *): number} `sint32` */
function sint32(w, p, tag, v) {
  p = room(w, p, SCALAR_ROOM);
  const buf = heldBuffer(w);
  p = putTag(buf, p, tag);
  return putVarint32(buf, p, ((v << 1) ^ (v >> 31)) >>> 0);
}

/** @type {function(RustWriter, number, number, *): number} `bool` */
function bool(w, p, tag, v) {
  p = room(w, p, SCALAR_ROOM);
  const buf = heldBuffer(w);
  p = putTag(buf, p, tag);
  buf[p] = v ? 1 : 0;
  return p + 1;
}

/** @type {function(RustWriter, number, number, *): number} `fixed32` and `sfixed32` */
function fixed32(w, p, tag, v) {
  p = room(w, p, SCALAR_ROOM);
  const buf = heldBuffer(w);
  return putFixed32(buf, putTag(buf, p, tag), v >>> 0);
}

/** @type {function(RustWriter, number, number, *): number} `float` */
function float(w, p, tag, v) {
  p = room(w, p, SCALAR_ROOM);
  const buf = heldBuffer(w);
  return putFloat(buf, putTag(buf, p, tag), +v);
}

/** @type {function(RustWriter, number, number, *): number} `double` */
function double(w, p, tag, v) {
  p = room(w, p, SCALAR_ROOM);
  const buf = heldBuffer(w);
  return putDouble(buf, putTag(buf, p, tag), v);
}

/**
 * Puts the two's-complement words of the 64-bit value `v` into `BITS`: lib/writer/long.js
 * `longBits`, with its branch for objects (`Long`s, decoded messages' 64-bit fields) in its order of
 * checks and reads (protobufjs's `LongBits.from`).
 * @param {*} v Value
 * @returns {undefined}
 */
function words(v) {
  if (typeof v === 'object' && v !== null) {
    if (v instanceof String) {
      decimalBits(v);
    } else if (v.low || v.high) {
      const lo = v.low | 0;
      BITS[1] = v.high | 0;
      BITS[0] = lo;
    } else {
      BITS[0] = 0;
      BITS[1] = 0;
    }
  } else {
    longBits(v);
  }
}

/** @type {function(RustWriter, number, number, *): number} `int64` and `uint64` */
function uint64(w, p, tag, v) {
  p = room(w, p, SCALAR_ROOM);
  const buf = heldBuffer(w);
  p = putTag(buf, p, tag);
  words(v);
  return putVarint64(buf, p, BITS[0] >>> 0, BITS[1] >>> 0);
}

/** @type {function(RustWriter, number, number, *): number} `sint64` */
function sint64(w, p, tag, v) {
  p = room(w, p, SCALAR_ROOM);
  const buf = heldBuffer(w);
  p = putTag(buf, p, tag);
  words(v);
  return putZigzag64(buf, p, BITS[0], BITS[1]);
}

/** @type {function(RustWriter, number, number, *): number} `fixed64` and `sfixed64` */
function fixed64(w, p, tag, v) {
  p = room(w, p, SCALAR_ROOM);
  const buf = heldBuffer(w);
  p = putTag(buf, p, tag);
  words(v);
  return putFixed32(buf, putFixed32(buf, p, BITS[0]), BITS[1]);
}

/**
 * `w.uint32(tag).string(v)`: an ASCII string of fewer than `UTF8_LOOP_MAX` units (most strings)
 * here, one byte a unit after a length of one byte; at its first other unit, the writer's string
 * writer writes the whole string again, from the start; something else than a string through
 * `string()` itself.
 * @type {function(RustWriter, number, number, *): number}
 */
function string(w, p, tag, v) {
  p = room(w, p, SCALAR_ROOM);
  p = putTag(heldBuffer(w), p, tag);
  if (typeof v !== 'string') return via(w, p, w.string, w, v);
  const n = v.length;
  if (n < UTF8_LOOP_MAX) {
    p = room(w, p, 1 + n);
    const buf = heldBuffer(w);
    let i = 0;
    for (; i < n; ++i) {
      const c = v.charCodeAt(i);
      if (c >= 128) break;
      buf[p + 1 + i] = c;
    }
    if (i === n) {
      buf[p] = n;
      return p + 1 + n;
    }
  }
  return putString(w, p, v, n);
}

/**
 * A string's ASCII path, for code that keeps the region's buffer at hand (lib/encoders/inline.js):
 * a string of fewer than `UTF8_LOOP_MAX` units, all ASCII, written as a one-byte length and a byte
 * a unit at `p`, which has room for `UTF8_LOOP_MAX` bytes.
 * @param {Uint8Array} buf The region's buffer
 * @param {number} p Position
 * @param {*} v Value
 * @returns {number} Position after it, or -1 if `v` is not such a string (what it wrote is then of no use)
 */
function ascii(buf, p, v) {
  if (typeof v !== 'string') return -1;
  const n = v.length;
  if (n >= UTF8_LOOP_MAX) return -1;
  for (let i = 0; i < n; ++i) {
    const c = v.charCodeAt(i);
    if (c >= 128) return -1;
    buf[p + 1 + i] = c;
  }
  buf[p] = n;
  return p + 1 + n;
}

/** @type {function(RustWriter, number, number, *): number} `w.uint32(tag).bytes(v)` */
function bytes(w, p, tag, v) {
  p = room(w, p, SCALAR_ROOM);
  return via(w, putTag(heldBuffer(w), p, tag), w.bytes, w, v);
}

// Sections: a nested message, a map entry, a packed field in protobufjs 7's encoder.

/**
 * Opens a section: its tag, then a one-byte length placeholder.
 * @param {RustWriter} w Writer, held
 * @param {number} p Position
 * @param {number} tag Tag
 * @returns {number} Position after the placeholder (`p - 1 - heldStart(w)` is its offset, which
 * `close` takes)
 */
function open(w, p, tag) {
  p = room(w, p, SECTION_ROOM);
  const buf = heldBuffer(w);
  p = putTag(buf, p, tag);
  buf[p] = 0;
  return p + 1;
}

/** What a section that learns nothing teaches (`close`). */
const UNLEARNED = { width: 1 };

/**
 * Closes a section opened by `open`: `closeWide` with its one-byte placeholder.
 * @param {RustWriter} w Writer, held
 * @param {number} p Where the section's content ends
 * @param {number} at Offset of its placeholder from the region's start
 * @param {number} from `mark(w)` when it was opened
 * @param {number} addedThen `addedMark(w)` when it was opened
 * @returns {number} Where the section ends now
 */
function close(w, p, at, from, addedThen) {
  return closeWide(w, p, at, 1, from, addedThen, UNLEARNED);
}

/**
 * Opens a nested message's section with a placeholder of `width` bytes: the width its Type's last
 * message's length took (its unit's `width`), so that a length of 128 bytes or more is written in
 * place when the section closes (`closeWide`) rather than by an entry and a move of the section's
 * bytes in `finish()`.
 * @param {RustWriter} w Writer, held
 * @param {number} p Position
 * @param {number} tag Tag
 * @param {number} width Bytes of the placeholder, 1 to 5
 * @returns {number} Position after the placeholder (`p - width - heldStart(w)` is its offset)
 */
function openWide(w, p, tag, width) {
  p = room(w, p, SECTION_ROOM + width);
  return putTag(heldBuffer(w), p, tag) + width;
}

/**
 * Closes a section opened by `openWide` (or written in place by a small Type's spelled-out code):
 * writes its length into its placeholder, after moving the section's bytes by the difference where
 * the length takes another width than the placeholder's (a few bytes, for the usual guess that was
 * one byte off), and sets `site.width` to the width this length took. The length counts what the
 * entries recorded inside add (a nested section closed by an entry, a kept array), which is known
 * unless a run is among them: only such a section gets a one-byte placeholder and is closed by an
 * entry (entries.js `closeSection`), as a `fork()` is. So `finish()` splices nothing into a message
 * whose sections the compiled code closed, but the entries of what it wrote through the Writer API.
 * @param {RustWriter} w Writer, held
 * @param {number} p Where the section's content ends
 * @param {number} at Offset of its placeholder from the region's start
 * @param {number} width Bytes of the placeholder
 * @param {number} from `mark(w)` when it was opened
 * @param {number} addedThen `addedMark(w)` when it was opened
 * @param {{width: number}} site Where the width of the next such section is learned: the unit of
 * the section's Type, or a map field's or packed field's own
 * @returns {number} Where the section ends now
 */
function closeWide(w, p, at, width, from, addedThen, site) {
  const bytes = p - heldStart(w) - at - width;
  const inner = mark(w) !== from;
  if (inner && entries.runSince(w, from)) {
    if (width > 1) {
      const content = heldStart(w) + at + width;
      heldBuffer(w).copyWithin(content - width + 1, content, p);
      entries.moveEntries(w, from, 1 - width);
      p -= width - 1;
    }
    closeSection(w, at, bytes, from, addedThen);
    return p;
  }
  const len = inner ? bytes + addedMark(w) - addedThen : bytes;
  const need = varint32Len(len);
  if (need !== site.width) site.width = need;
  if (need !== width) {
    if (need > width) p = room(w, p, need - width);
    const content = heldStart(w) + at + width;
    heldBuffer(w).copyWithin(content - width + need, content, p);
    if (inner) entries.moveEntries(w, from, need - width);
    p += need - width;
  }
  putVarint32(heldBuffer(w), heldStart(w) + at, len);
  return p;
}

/**
 * `types[i].encode(v, w.uint32(tag).fork(), q + 1).ldelim()` where the nested Type's `encode` is not
 * its compiled code's (not set up yet, its fields changed since, or replaced by the app): that
 * `encode` itself, as protobufjs's generated code calls it.
 * @param {object} type The nested Type
 * @param {*} v The message
 * @param {RustWriter} w Writer, held
 * @param {number} p Position
 * @param {number} q Depth of the enclosing message
 * @param {number} tag Tag
 * @returns {number} Position after it
 */
function nestedVia(type, v, w, p, q, tag) {
  p = open(w, p, tag);
  const at = p - 1 - heldStart(w);
  const from = mark(w);
  const addedThen = addedMark(w);
  p = via(w, p, type.encode, type, v, w, q + 1);
  return close(w, p, at, from, addedThen);
}

/**
 * `types[i].encode(v, w.uint32(startTag), q + 1).uint32(endTag)`: a group.
 * @param {{type: object, own: Function|null, write: Function}} unit The nested Type's unit
 * (lib/encoders/compile.js)
 * @param {*} v The message
 * @param {RustWriter} w Writer, held
 * @param {number} p Position
 * @param {number} q Depth of the enclosing message
 * @param {number} tag Start tag
 * @returns {number} Position after the end tag
 */
function group(unit, v, w, p, q, tag) {
  p = room(w, p, SCALAR_ROOM);
  p = putTag(heldBuffer(w), p, tag);
  const type = unit.type;
  p = type.encode === unit.own ? unit.write(v, w, p, q + 1, 0) : via(w, p, type.encode, type, v, w, q + 1);
  p = room(w, p, SCALAR_ROOM);
  return putTag(heldBuffer(w), p, (tag & ~7 | 4) >>> 0);
}

/**
 * `w.raw(u)` for each of a message's `$unknowns`, read as protobufjs's loop reads them.
 * @param {object} m Message
 * @param {RustWriter} w Writer, held
 * @param {number} p Position
 * @returns {number} Position after them
 */
function unknowns(m, w, p) {
  for (let i = 0; i < m.$unknowns.length; ++i) p = via(w, p, w.raw, w, m.$unknowns[i]);
  return p;
}

// Packed fields in protobufjs 8's encoder: `w.uint32(tag).<type>s(a)`, the method's short path here,
// the rest through its long path (lib/writer/packed.js `longPacked`), which reads nothing the short
// path read.

/**
 * A packed varint field (`uint32s`, `int32s`, `sint32s`).
 * @param {RustWriter} w Writer, held
 * @param {number} p Position
 * @param {number} tag Tag
 * @param {ArrayLike<number>} a Elements
 * @param {Function|null} loop Its element loop (lib/writer/loops.js), or null for `uint32s`,
 * whose one- and two-byte elements are written here
 * @param {number} size Bytes an element takes at most
 * @param {Function} long Its long path
 * @returns {number} Position after it
 */
function packedVarints(w, p, tag, a, loop, size, long) {
  p = room(w, p, SECTION_ROOM);
  p = putTag(heldBuffer(w), p, tag);
  const n = a.length;
  if (!(n === n >>> 0 && n < shortVarints())) return via(w, p, long, undefined, w, a, n);
  p = room(w, p, 1 + size * n);
  const buf = heldBuffer(w);
  const at = p - heldStart(w);
  buf[p++] = 0;
  if (loop !== null) {
    p = loop(buf, p, a, 0, n);
  } else {
    for (let i = 0; i < n; ++i) {
      const x = a[i] >>> 0;
      if (x < 128) {
        buf[p++] = x;
      } else if (x < 16384) {
        buf[p] = x | 128;
        buf[p + 1] = x >>> 7;
        p += 2;
      } else {
        p = putVarint32(buf, p, x);
      }
    }
  }
  const len = p - heldStart(w) - at - 1;
  if (len < 128) {
    buf[heldStart(w) + at] = len;
    return p;
  }
  return widen(w, p, at, len);
}

/**
 * Writes the length of a packed field of 128 bytes or more into its one-byte placeholder, the
 * field's bytes moved right to make room (as `string()` moves a long string's).
 * @param {RustWriter} w Writer, held
 * @param {number} p Where the field ends
 * @param {number} at Offset of its placeholder from the region's start
 * @param {number} len Its bytes
 * @returns {number} Where the field ends now
 */
function widen(w, p, at, len) {
  const more = varint32Len(len) - 1;
  p = room(w, p, more);
  const content = heldStart(w) + at + 1;
  heldBuffer(w).copyWithin(content + more, content, p);
  putVarint32(heldBuffer(w), content - 1, len);
  return p + more;
}

/**
 * A packed fixed-size field (`fixed32s`, `floats`, `doubles`, `bools`, ...), its length known first.
 * @param {RustWriter} w Writer, held
 * @param {number} p Position
 * @param {number} tag Tag
 * @param {ArrayLike<*>} a Elements
 * @param {Function} loop Its element loop
 * @param {number} size Bytes an element takes
 * @param {number} bound Elements from which the long path writes it
 * @param {Function} long Its long path
 * @returns {number} Position after it
 */
function packedFixed(w, p, tag, a, loop, size, bound, long) {
  p = room(w, p, SECTION_ROOM);
  p = putTag(heldBuffer(w), p, tag);
  const n = a.length;
  if (!(n === n >>> 0 && n < bound)) return via(w, p, long, undefined, w, a, n);
  p = room(w, p, 5 + size * n);
  const buf = heldBuffer(w);
  return loop(buf, putVarint32(buf, p, size * n), a, 0, n);
}

/**
 * A packed 64-bit field, which has no short path.
 * @param {RustWriter} w Writer, held
 * @param {number} p Position
 * @param {number} tag Tag
 * @param {ArrayLike<*>} a Elements
 * @param {Function} long Its method's path
 * @returns {number} Position after it
 */
function packedLong(w, p, tag, a, long) {
  p = room(w, p, SECTION_ROOM);
  p = putTag(heldBuffer(w), p, tag);
  return via(w, p, long, undefined, w, a, a.length);
}

/** The packed fields of protobufjs 8's encoder, by element type: `(w, p, tag, a) => p`. */
const packed = {
  uint32: (w, p, tag, a) => packedVarints(w, p, tag, a, null, 5, longPacked.uint32s),
  int32: (w, p, tag, a) => packedVarints(w, p, tag, a, loops.loopInt32, 10, longPacked.int32s),
  sint32: (w, p, tag, a) => packedVarints(w, p, tag, a, loops.loopSint32, 5, longPacked.sint32s),
  fixed32: (w, p, tag, a) => packedFixed(w, p, tag, a, loops.loopFixed32, 4, SHORT, longPacked.fixed32s),
  sfixed32: (w, p, tag, a) => packedFixed(w, p, tag, a, loops.loopFixed32, 4, SHORT, longPacked.sfixed32s),
  float: (w, p, tag, a) => packedFixed(w, p, tag, a, loops.loopFloat, 4, BULK_FLOATS_MIN, longPacked.floats),
  double: (w, p, tag, a) => packedFixed(w, p, tag, a, loops.loopDouble, 8, BULK_FLOATS_MIN, longPacked.doubles),
  bool: (w, p, tag, a) => packedFixed(w, p, tag, a, loops.loopBool, 1, SHORT, longPacked.bools),
  int64: (w, p, tag, a) => packedLong(w, p, tag, a, longPacked.int64s),
  uint64: (w, p, tag, a) => packedLong(w, p, tag, a, longPacked.uint64s),
  sint64: (w, p, tag, a) => packedLong(w, p, tag, a, longPacked.sint64s),
  fixed64: (w, p, tag, a) => packedLong(w, p, tag, a, longPacked.fixed64s),
  sfixed64: (w, p, tag, a) => packedLong(w, p, tag, a, longPacked.sfixed64s),
};

module.exports = {
  hasRegion: region.hasRegion, beginHeld: region.beginHeld, positionOf: region.positionOf, endHeld: region.endHeld,
  heldBuffer, heldEnd, heldStart, growHeld, mark, addedMark, via, abort,
  // What lib/encoders/inline.js's statements call.
  widen, ascii, BITS, longBits, decimalBits, putZigzag64, putVarint32, putNegativeInt32, putFixed32, putFloat,
  putDouble, longPacked, shortVarints, SHORT, BULK_FLOATS_MIN, loops,
  uint32, int32, sint32, bool, fixed32, float, double, uint64, sint64, fixed64, string, bytes,
  open, close, openWide, closeWide, nestedVia, group, unknowns, packed,
};
