'use strict';

/**
 * KNOWN BUGS: failures of RustWriter that `npm run fuzz:js` finds and that are not fixed yet, each
 * with a name, a predicate that recognises its failures (`match`, over check.js's failure
 * records) and its minimal sequence (`repro`, from the shrinker: `{path, desc}`).
 *
 * A failure this list recognises is reported as "KNOWN BUG", never as passing: test/fuzz-js.test.js
 * marks its run pending and prints the count, and fails once an entry's `repro` no longer fails,
 * so that the list only ever holds bugs that are there. It is empty: the bugs found so far are
 * fixed (fuzz/js/fixed-bugs.js keeps their sequences as regressions).
 */

/**
 * @type {Array<{bug: string, title: string, match: function(object): boolean,
 *   repro: {path: string, desc: object}}>}
 */
const KNOWN_BUGS = [];

/**
 * @param {object} failure Failure record (check.js)
 * @returns {object|null} The known bug it is, or null
 */
function classify(failure) {
  for (const bug of KNOWN_BUGS) if (bug.match(failure)) return bug;
  return null;
}

module.exports = { KNOWN_BUGS, classify };
