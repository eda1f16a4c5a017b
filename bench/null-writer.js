'use strict';

/**
 * The null writer of the breakdown: protobuf.js's whole Writer API, every method doing nothing but
 * `return this` (`finish()` returns an empty Buffer). Generated code driving it still does all of
 * its own work (presence checks, property reads, `Object.keys` of maps, loops, calls), so its time
 * per encode is the floor no writer can beat.
 */

const { WRITE_METHODS } = require('../lib/writer/methods');

const EMPTY = Buffer.alloc(0);

/** A writer that writes nothing. */
class NullWriter {
  constructor() {
    /** Always 0: protobufjs 7's `encodeDelimited` reads it. */
    this.len = 0;
    /** Always 0, as protobufjs 8's writer has it. */
    this.pos = 0;
  }

  /**
   * A new null writer, as `Writer.create()`.
   * @returns {NullWriter} Writer
   */
  static create() {
    return new NullWriter();
  }
}

/**
 * @returns {NullWriter} `this`
 */
function nothing() {
  return this;
}

for (const name of WRITE_METHODS) NullWriter.prototype[name] = nothing;

/**
 * @returns {Buffer} An empty Buffer (always the same one)
 */
NullWriter.prototype.finish = function finish() {
  return EMPTY;
};

/**
 * @param {Uint8Array} buf Target buffer
 * @returns {Uint8Array} `buf`, untouched
 */
NullWriter.prototype.finishInto = function finishInto(buf) {
  return buf;
};

module.exports = { NullWriter };
