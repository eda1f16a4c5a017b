'use strict';

/**
 * What the serializers' generated code calls (lib/serializers/code.js writes it), besides
 * lib/encoders/runtime.js's helpers, which write the bytes: the paths that hand a message to its
 * Type's own `fromObject` or `encode`, and what keeps errors as `T.encode(T.fromObject(o))` throws
 * them.
 *
 * **Errors.** protobufjs converts the whole object before it encodes anything, so an error of the
 * conversion (a TypeError for a wrong type, a getter that throws) wins over any error the encoder
 * would meet later. A serializer converts and writes in one pass: an error of writing (a value
 * fromObject passed through that the writer rejects, a hole in an array, an error of an instance's
 * own `encode`) is wrapped in a `Deferred` and thrown on; each generated function it passes through
 * first runs the conversions protobufjs would still have made in that message (its `rest`), which
 * throw their own error if one fails, and the serializer's entry throws the wrapped error only when
 * none did. So the first conversion error in protobufjs's order wins, else the first writing error
 * in the encoder's order, as with protobufjs.
 */

const rt = require('../encoders/runtime');
const { ownsEncode } = require('../encoders/compile');
const entries = require('../writer/entries');
const { RustWriter } = require('../writer/writer');
const { varint32Len } = require('../writer/varint');

const { heldBuffer, heldStart, heldEnd, growHeld, mark } = rt;

/**
 * Sections of 128 bytes up to this many are closed by moving their bytes one place on and writing
 * the length's second byte in place, as protobufjs 8's writer closes every long fork; a longer one by
 * a FIXUP entry, which finish() splices (moving each section's bytes once at each level of nesting
 * would cost a deep nesting of large messages its size times its depth). Without an entry, a field
 * keeps its bytes movable (`place`), and a message of parts below this size finishes with none.
 */
const SHIFT_MAX = 4096;

/** An error of writing, thrown on until protobufjs's conversions of what follows have run. */
class Deferred {
  /** @param {*} error What was thrown */
  constructor(error) {
    this.error = error;
  }
}

/**
 * @param {*} err What writing threw
 * @returns {Deferred} It, deferred (once)
 */
function deferred(err) {
  return err instanceof Deferred ? err : new Deferred(err);
}

/**
 * @param {*} err What a serializer's code threw
 * @returns {*} What `T.encode(T.fromObject(o))` throws in its place
 */
function unwrap(err) {
  return err instanceof Deferred ? err.error : err;
}

/**
 * Writes `m`, a message fromObject returned as it was (an instance of the Type's constructor), or
 * built with the Type's own `fromObject`, as protobufjs's encoder does: with the Type's `encode`.
 * @param {{type: object}} unit The serializer unit of its Type
 * @param {*} m The message
 * @param {RustWriter} w Writer, held
 * @param {number} p Position
 * @param {number} q The message's depth
 * @param {number} tag Its field's tag (a section), or 0 (the top level, or the content of a group)
 * @returns {number} Position after it
 */
function instance(unit, m, w, p, q, tag) {
  const type = unit.type;
  try {
    return tag !== 0 ? rt.nestedVia(type, m, w, p, q - 1, tag) : rt.via(w, p, type.encode, type, m, w, q);
  } catch (err) {
    throw deferred(err);
  }
}

/**
 * A message the serializer does not convert itself: `type.fromObject(d, q)` (its errors are
 * conversion errors), then written by {@link instance}.
 * @param {{type: object}} unit Serializer unit
 * @param {*} d The plain object
 * @param {RustWriter} w Writer, held
 * @param {number} p Position
 * @param {number} q Depth
 * @param {number} tag Tag, or 0
 * @returns {number} Position after it
 */
function slow(unit, d, w, p, q, tag) {
  return instance(unit, unit.type.fromObject(d, q), w, p, q, tag);
}

/**
 * Whether a unit's compiled code still mirrors its Type: the Type's `fromObject` is the one the
 * code was compiled from, and its `encode` one the encoders' compiler set (remembered while it stays
 * the same function).
 * @param {object} unit Serializer unit
 * @returns {boolean} Whether
 */
function ready(unit) {
  const type = unit.type;
  if (type.fromObject !== unit.compiledFrom || unit.compiledFrom === null) return false;
  if (!ownsEncode(type)) return false;
  unit.okEncode = type.encode;
  return true;
}

/**
 * The length `Array(n)` gives an array, as protobufjs 8's `m.f=Array(d.f.length)`: n itself, or a
 * RangeError thrown by `Array` itself, or 1 for a length that is no number (`[n]`).
 * @param {*} n `d.f.length`
 * @returns {number} Length
 */
function arrayLength(n) {
  if (typeof n !== 'number') return 1;
  if (n !== n >>> 0) Array(n); // throws protobufjs's RangeError (Invalid array length)
  return n;
}

/**
 * The elements of a repeated message field of protobufjs 8 that `Array(d.f.length)` holds beyond
 * those fromObject assigned (a length that changed while it read, or was no number): the encoder
 * writes each, which throws for a hole.
 * @param {object} unit Serializer unit of the element Type
 * @param {*} n `d.f.length` as first read
 * @param {number} from Elements assigned
 * @param {RustWriter} w Writer, held
 * @param {number} p Position
 * @param {number} q The elements' depth
 * @param {number} tag Their tag (0 in a group: see `group`)
 * @param {number} end A group's end tag, or 0
 * @returns {number} Position after them
 */
function trailing(unit, n, from, w, p, q, tag, end) {
  const length = arrayLength(n);
  for (let i = from; i < length; ++i) p = element(unit, i === 0 && typeof n !== 'number' ? n : undefined, w, p, q, tag, end);
  return p;
}

/**
 * A message element or field value given as an instance (or a hole): {@link instance}, as a group
 * where `end` is not 0.
 * @param {object} unit Serializer unit
 * @param {*} m Message
 * @param {RustWriter} w Writer, held
 * @param {number} p Position
 * @param {number} q Depth of the message
 * @param {number} tag Tag (a group's start tag)
 * @param {number} end A group's end tag, or 0
 * @returns {number} Position after it
 */
function element(unit, m, w, p, q, tag, end) {
  if (end === 0) return instance(unit, m, w, p, q, tag);
  p = rt.uint32(w, p, 0, tag);
  p = instance(unit, m, w, p, q, 0);
  return rt.uint32(w, p, 0, end);
}

/**
 * Whether keys are in the order `Object.keys` gives them for a fresh object they are set on in that
 * order (array indices first, ascending, then the others as set): so for any ordinary object, and
 * for a Proxy that lists them so. protobufjs's encoder writes a map's entries in the order of its
 * own object's keys: where `Object.keys(d.f)` is not in that order, the entries are written from an
 * object built as fromObject builds it.
 * @param {string[]} ks Keys
 * @returns {boolean} Whether
 */
function canonical(ks) {
  let last = -1;
  let others = false;
  for (let i = 0; i < ks.length; ++i) {
    const k = ks[i];
    const c = k.charCodeAt(0);
    if (c >= 48 && c <= 57) { // a digit: maybe an array index
      const n = +k;
      if (n >>> 0 === n && n !== 4294967295 && String(n) === k) {
        if (others || n <= last) return false;
        last = n;
        continue;
      }
    }
    others = true;
  }
  return true;
}

/**
 * `w.uint32(tag).bytes(v)` of a value fromObject passed through (a writing error is deferred).
 * @param {RustWriter} w Writer, held
 * @param {number} p Position
 * @param {number} tag Tag
 * @param {*} v Value
 * @returns {number} Position after it
 */
function bytes(w, p, tag, v) {
  try {
    return rt.bytes(w, p, tag, v);
  } catch (err) {
    throw deferred(err);
  }
}

/**
 * The same, under protobufjs 8's presence check for a field without presence (`m.f.length`).
 * @param {RustWriter} w Writer, held
 * @param {number} p Position
 * @param {number} tag Tag
 * @param {*} v Value
 * @returns {number} Position after it
 */
function bytesIfLength(w, p, tag, v) {
  try {
    return v.length ? rt.bytes(w, p, tag, v) : p;
  } catch (err) {
    throw deferred(err);
  }
}

/**
 * A repeated scalar field's elements, one `w.uint32(tag).<type>(a[i])` each.
 * @param {RustWriter} w Writer, held
 * @param {number} p Position
 * @param {function(RustWriter, number, number, *): number} write The type's helper (lib/encoders/runtime.js)
 * @param {number} tag Tag
 * @param {Array} a The array fromObject built
 * @returns {number} Position after it
 */
function repeated(w, p, write, tag, a) {
  try {
    for (let i = 0; i < a.length; ++i) p = write(w, p, tag, a[i]);
    return p;
  } catch (err) {
    throw deferred(err);
  }
}

/**
 * A packed field as protobufjs 7's encoder writes it: `w.uint32(tag).fork()`, `w.<type>(a[i])`
 * each, `w.ldelim()`.
 * @param {RustWriter} w Writer, held
 * @param {number} p Position
 * @param {function(RustWriter, number, number, *): number} write The element type's helper
 * @param {number} tag Tag
 * @param {Array} a The array fromObject built
 * @returns {number} Position after it
 */
function packedElements(w, p, write, tag, a) {
  try {
    p = rt.open(w, p, tag);
    const at = p - 1 - rt.heldStart(w);
    const from = rt.mark(w);
    const added = rt.addedMark(w);
    for (let i = 0; i < a.length; ++i) p = write(w, p, 0, a[i]);
    return close(w, p, at, from, added);
  } catch (err) {
    throw deferred(err);
  }
}

/**
 * A packed field as protobufjs 8's encoder writes it: `w.uint32(tag).<type>s(a)`.
 * @param {RustWriter} w Writer, held
 * @param {number} p Position
 * @param {function(RustWriter, number, number, Array): number} write lib/encoders/runtime.js `packed.<type>`
 * @param {number} tag Tag
 * @param {Array} a The array fromObject built
 * @returns {number} Position after it
 */
function packedMethod(w, p, write, tag, a) {
  try {
    return write(w, p, tag, a);
  } catch (err) {
    throw deferred(err);
  }
}

/**
 * A map entry of a scalar value: `w.uint32(tag).fork().uint32(keyTag).<keyType>(key)
 * .uint32(valueTag).<type>(value).ldelim()`.
 * @param {RustWriter} w Writer, held
 * @param {number} p Position
 * @param {number} tag The map field's tag
 * @param {Function} writeKey The key type's helper
 * @param {number} keyTag Key tag
 * @param {*} key Key, as the encoder converts it
 * @param {Function} writeValue The value type's helper
 * @param {number} valueTag Value tag
 * @param {*} value Value
 * @returns {number} Position after it
 */
function entry(w, p, tag, writeKey, keyTag, key, writeValue, valueTag, value) {
  try {
    p = rt.open(w, p, tag);
    const at = p - 1 - rt.heldStart(w);
    const from = rt.mark(w);
    const added = rt.addedMark(w);
    p = writeKey(w, p, keyTag, key);
    p = writeValue(w, p, valueTag, value);
    return close(w, p, at, from, added);
  } catch (err) {
    throw deferred(err);
  }
}

/**
 * A map entry of a message value fromObject returned as it was, or built with its Type's own
 * `fromObject`: `types[i].encode(value, w.uint32(18).fork(), q + 1).ldelim().ldelim()`.
 * @param {RustWriter} w Writer, held
 * @param {number} p Position
 * @param {number} tag The map field's tag
 * @param {Function} writeKey The key type's helper
 * @param {number} keyTag Key tag
 * @param {*} key Key, as the encoder converts it
 * @param {object} unit Serializer unit of the value Type
 * @param {*} value Message
 * @param {number} q Depth of the value
 * @returns {number} Position after it
 */
function messageEntry(w, p, tag, writeKey, keyTag, key, unit, value, q) {
  p = rt.open(w, p, tag);
  const at = p - 1 - rt.heldStart(w);
  const from = rt.mark(w);
  const added = rt.addedMark(w);
  p = writeKey(w, p, keyTag, key);
  p = instance(unit, value, w, p, q, 18);
  return close(w, p, at, from, added);
}

/**
 * Closes a section: fills its placeholder if its length fits and no entry was recorded inside; a
 * longer one without entries up to `SHIFT_MAX` bytes by moving its bytes on; else records an entry
 * (lib/writer/entries.js `closeSection`).
 * @param {RustWriter} w Writer, held
 * @param {number} p Where the section's content ends
 * @param {number} at Offset of its placeholder from the region's start
 * @param {number} from `mark(w)` when it was opened
 * @param {number} addedThen `addedMark(w)` when it was opened
 * @returns {number} Where it ends now
 */
function close(w, p, at, from, addedThen) {
  const len = p - heldStart(w) - at - 1;
  if (mark(w) === from) {
    if (len < 128) {
      heldBuffer(w)[heldStart(w) + at] = len;
      return p;
    }
    if (len <= SHIFT_MAX) {
      const more = varint32Len(len) - 1;
      if (p + more > heldEnd(w)) p = growHeld(w, p, more);
      const buf = heldBuffer(w);
      let q = heldStart(w) + at;
      buf.copyWithin(q + 1 + more, q + 1, p);
      let x = len;
      while (x > 127) {
        buf[q++] = (x & 127) | 128;
        x >>>= 7;
      }
      buf[q] = x;
      return p + more;
    }
  }
  entries.closeSection(w, at, len, from, addedThen);
  return p;
}

/** Where `place` keeps the shorter of two stretches it swaps (grown as needed). */
let spare = new Uint8Array(256);

/**
 * Moves a field's bytes before those of the fields with higher numbers written before it (its
 * message's bytes in field number order, as protobufjs's encoder writes them): swaps `[x, a)` and
 * `[a, p)`, with the entries recorded in either (at most one of the two has some: see the generated
 * code's use of `scratch`).
 * @param {RustWriter} w Writer, held
 * @param {number} x Offset (from the region's start) of the first field to come after it
 * @param {number} ex `mark(w)` when that field was written
 * @param {number} a Offset where the field's bytes start
 * @param {number} ea `mark(w)` then
 * @param {number} p Where its bytes end
 * @returns {undefined}
 */
function place(w, x, ex, a, ea, p) {
  const start = heldStart(w);
  const later = a - x;
  const own = p - start - a;
  if (later === 0 || own === 0) return;
  const buf = heldBuffer(w);
  const short = Math.min(later, own);
  if (spare.length < short) spare = new Uint8Array(Math.max(short, 2 * spare.length));
  if (own <= later) {
    spare.set(buf.subarray(start + a, p));
    buf.copyWithin(start + x + own, start + x, start + a);
    buf.set(spare.subarray(0, own), start + x);
  } else {
    spare.set(buf.subarray(start + x, start + a));
    buf.copyWithin(start + x, start + a, p);
    buf.set(spare.subarray(0, later), start + x + own);
  }
  if (ex !== ea && mark(w) !== ea) throw new Error('protobufjs-rustwriter: internal error: both stretches a serializer swaps hold entries');
  if (mark(w) !== ea) entries.moveEntries(w, ea, -later);
  else if (ex !== ea) entries.moveEntries(w, ex, own);
}

/**
 * A writer of its own for a field whose bytes must go before fields that hold entries (`place`
 * moves only one side's entries): its held write's start.
 * @returns {{w: RustWriter, p: number}} The writer, held, and where it writes
 */
function scratch() {
  const w = new RustWriter();
  return { w, p: rt.positionOf(w, rt.beginHeld(w)) };
}

/**
 * Ends a `scratch` writer's write and appends its bytes (finished: no entries) to the held writer.
 * @param {RustWriter} sw The scratch writer
 * @param {number} sp Where it wrote up to
 * @param {RustWriter} w The held writer
 * @param {number} p Its position
 * @returns {number} Position after the bytes
 */
function unscratch(sw, sp, w, p) {
  rt.endHeld(sw, sp);
  const bytes = sw.finish();
  if (p + bytes.length > heldEnd(w)) p = growHeld(w, p, bytes.length);
  heldBuffer(w).set(bytes, p);
  return p + bytes.length;
}

module.exports = {
  Deferred, deferred, unwrap, instance, slow, ready, arrayLength, trailing, element, canonical,
  bytes, bytesIfLength, repeated, packedElements, packedMethod, entry, messageEntry, close, place, scratch, unscratch,
  SHIFT_MAX,
};
