'use strict';

/**
 * What compiled encoders (lib/encoders/compile.js) call: the writer's public pieces a held write
 * uses (lib/writer/region.js "A held write", lib/writer/entries.js's marks and sections), its byte
 * and string writers, and the two steps composed of them here: handing one field to a writer
 * method (`via`) and rolling a write back (`abort`).
 *
 * An encode holds its writer from start to end (lib/writer/region.js, "Holding"), since reading the
 * message runs user code (getters, `valueOf`, Proxies) that could reach the writer or create another
 * one: the region stays the encode's. A field the encode does not write itself (`bytes`, a
 * non-string `string`, a long packed field, `$unknowns`, a nested message whose Type is not
 * compiled) goes through the writer's own method or the Type's `encode` (`via`), which keeps
 * protobuf.js's semantics and the native path for long packed fields. A nested message is a
 * section: a one-byte length placeholder, filled when the section is closed if its length fits and
 * no entry was recorded inside, else closed by an entry (`closeSection`).
 *
 * An encode that throws leaves the writer as it was before the encode (`abort`): position and
 * entries rolled back.
 */

const region = require('../writer/region');
const entries = require('../writer/entries');
const { BITS, longBits, decimalBits } = require('../writer/long');
const { longPacked, shortVarints, SHORT, BULK_FLOATS_MIN } = require('../writer/packed');
const { putString } = require('../writer/bytes');
const loops = require('../writer/loops');
const {
  putVarint32, putZigzag64, putNegativeInt32, putFixed32, putFloat, putDouble,
} = require('../writer/varint');

const { lend, takeBack, abortHeld } = region;

/**
 * Writes one field through something that writes with the writer's API (a writer method, a packed
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

module.exports = {
  hasRegion: region.hasRegion, beginHeld: region.beginHeld, heldBuffer: region.heldBuffer, heldEnd: region.heldEnd,
  growHeld: region.growHeld, heldStart: region.heldStart, positionOf: region.positionOf, endHeld: region.endHeld,
  mark: entries.mark, addedMark: entries.addedMark, fixup: entries.fixup, closeSection: entries.closeSection,
  via, abort, putString, longPacked, shortVarints, SHORT, BULK_FLOATS_MIN, loops,
  BITS, longBits, decimalBits, putVarint32, putZigzag64, putNegativeInt32, putFixed32, putFloat, putDouble,
};
