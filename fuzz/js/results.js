'use strict';

/**
 * Results RustWriter returned, each kept with its hash taken when it was returned: a reservoir
 * (a uniform sample of fixed size over a batch) re-checked periodically and at the end of the
 * batch; no result may ever change.
 */

const crypto = require('crypto');

/**
 * @param {Uint8Array} bytes Bytes
 * @returns {string} Their hash
 */
function digest(bytes) {
  // crypto.hash is Node 20.12+ (and 21.7+); the suite also runs on Node 18 and on armv7's 20.11.
  return crypto.createHash('sha1').update(bytes).digest('base64');
}

class ResultStore {
  /**
   * @param {number} size Results kept at most
   * @param {function(): number} random Generator for the sampling
   */
  constructor(size, random) {
    this.size = size;
    this.random = random;
    /** @type {Array<{bytes: Uint8Array, digest: string, seed: number}>} */
    this.kept = [];
    this.seen = 0;
    /** @type {number|undefined} when set, only this sequence's results are kept */
    this.only = undefined;
  }

  /**
   * Offers a result to the sample (reservoir sampling, algorithm R).
   * @param {Uint8Array} bytes Result
   * @param {string} hash Its hash at return
   * @param {number} seed Sequence that returned it
   * @returns {undefined}
   */
  add(bytes, hash, seed) {
    if (this.only !== undefined && seed !== this.only) return;
    const entry = { bytes, digest: hash, seed };
    if (this.kept.length < this.size) this.kept.push(entry);
    else {
      const j = Math.floor(this.random() * (this.seen + 1));
      if (j < this.size) this.kept[j] = entry;
    }
    this.seen++;
  }

  /**
   * Drops the results of a sequence that failed (what they become is that failure's business).
   * @param {number} seed Sequence
   * @returns {undefined}
   */
  forget(seed) {
    this.kept = this.kept.filter((e) => e.seed !== seed);
  }

  /**
   * Checks every kept result; those that changed are reported once, then dropped.
   * @returns {Array<{seed: number, length: number}>} The kept results whose bytes changed
   */
  check() {
    const changed = [];
    this.kept = this.kept.filter((e) => {
      if (digest(e.bytes) === e.digest) return true;
      changed.push({ seed: e.seed, length: e.bytes.length });
      return false;
    });
    return changed;
  }
}

module.exports = { ResultStore, digest };
