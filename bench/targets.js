'use strict';

/**
 * The speed targets of issue 3, evaluated on one run's ratios (RustWriter's ops/s over a
 * protobufjs writer's, same run). A miss is reported, never an error.
 */

/** Every case: RustWriter at least as fast as the faster protobufjs. */
const EACH_VS_FASTER = 1.0;
/** Geometric mean over the cases of RustWriter vs protobufjs 8.8.1. */
const GEOMEAN_VS_8 = 2.0;
/** packed-typed vs protobufjs 8.8.1: typed arrays can be handed to Rust whole. */
const PACKED_TYPED_VS_8 = 5.0;
/** bytes and strings vs protobufjs 8.8.1: bulk copies and UTF-8 encoding in Rust. */
const BULK_VS_8 = 1.5;

/**
 * Geometric mean of a non-empty list.
 * @param {number[]} values Positive values
 * @returns {number} Mean
 */
function geometricMean(values) {
  return Math.exp(values.reduce((sum, v) => sum + Math.log(v), 0) / values.length);
}

/**
 * One target row.
 * @param {string} label What is compared
 * @param {number|null} value Measured ratio, null if not measured
 * @param {number} threshold Ratio to reach
 * @param {string} [why] Why there is no value
 * @returns {{label: string, value: number|null, threshold: number, status: string}} Row
 */
function row(label, value, threshold, why) {
  const status = value === null ? `NOT MEASURED (${why})` : value >= threshold ? 'PASS' : 'MISS';
  return { label, value, threshold, status };
}

/**
 * Evaluates every target on a run's cases.
 * @param {object[]} cases Case records of bench/index.js (`id`, `error`, `ratios`)
 * @param {number} caseCount Cases the full suite has
 * @param {{pbjs8: string, pbjs7: string}} names Contender names
 * @returns {object[]} Target rows, in the order of issue 3
 */
function evaluateTargets(cases, caseCount, names) {
  const timed = cases.filter((c) => !c.error);
  const vs8 = (id, threshold) => {
    const c = cases.find((x) => x.id === id);
    const why = c ? 'bytes differ' : 'case not run';
    return row(`${id}: RustWriter vs ${names.pbjs8}`, c && !c.error ? c.ratios.pbjs8 : null, threshold, why);
  };
  return [
    ...cases.map((c) => row(`${c.id}: RustWriter vs the faster of ${names.pbjs8} / ${names.pbjs7}`,
      c.error ? null : c.ratios.faster, EACH_VS_FASTER, 'bytes differ')),
    row(`geometric mean of RustWriter vs ${names.pbjs8}, ${timed.length} of ${caseCount} cases`,
      timed.length ? geometricMean(timed.map((c) => c.ratios.pbjs8)) : null, GEOMEAN_VS_8, 'no case timed'),
    vs8('packed-typed', PACKED_TYPED_VS_8),
    vs8('bytes', BULK_VS_8),
    vs8('strings', BULK_VS_8),
  ];
}

module.exports = { evaluateTargets };
