'use strict';

/**
 * What RustWriter (the native addon, driven by protobufjs 8.8.1's generated code) should reach,
 * evaluated on one run: its ops/s over a protobufjs writer's, both timed in the same rounds, and
 * its bytes allocated per op against the last published run. A miss is reported, never an error.
 *
 * Every timing has a margin (±, bench/suite.js), so every ratio has a range: a miss whose range
 * still reaches the target is "within noise" (another run may well meet it); a miss whose whole
 * range falls short is real.
 */

/** Every case: RustWriter at least as fast as the faster of protobufjs 8.8.1 and 7.6.6. */
const EACH_VS_FASTER = 1.0;
/**
 * Per-case targets vs protobufjs 8.8.1. The messages protobuf.js users encode: the vector tile,
 * the ~80 B nested message, the ~16 KB one, the delimited stream. Bulk payloads: typed arrays go
 * to the native encoder whole; bytes and strings are bulk copies and UTF-8 encoding.
 */
const VS_8 = { tile: 1.25, common: 1.6, catalog: 1.6, stream: 1.3, 'packed-typed': 5.0, bytes: 1.5, strings: 1.5 };
/** Geometric mean over all cases of RustWriter vs protobufjs 8.8.1, and vs protobufjs 7.6.6. */
const GEOMEAN_VS_8 = 2.0;
const GEOMEAN_VS_7 = 3.0;
/**
 * RustWriter's bytes allocated per op (JS heap + external, bench/alloc.js) in the last published
 * run (bench/results/latest.json as committed with the README, measured on commit cd83ca3):
 * `[median, spread]` per case, the spread being (max − min) / median of its windows. No case may
 * allocate more now.
 */
const PUBLISHED_ALLOC = {
  commit: 'cd83ca3',
  date: '2026-11-23',
  bytes: {
    common: [325, 0.121], catalog: [90140, 0.115], tile: [131470, 0.019], tiny: [234, 0.03], small: [369, 0.129],
    strings: [66173, 0.002], 'int64-long': [4237, 0.685], 'int64-number': [8963, 0.246], 'int64-bigint': [4263, 0.807],
    'packed-array': [255039, 0.001], 'packed-typed': [174961, 0], bytes: [658413, 0], large: [1721278, 0.171],
    stream: [153000, 0.129], static: [436, 0.158],
  },
};

/** Verdicts, as the console, the JSON and the README say them; a miss within noise says whose margins. */
const VERDICTS = {
  met: 'met',
  noise: 'missed (within noise: the margins of the two timings overlap the target)',
  allocNoise: 'missed (within noise: the spreads of the two measurements overlap the target)',
  missed: 'missed',
};
/**
 * The least margin of an allocation measurement: a result slab or Node's Buffer pool shared by
 * many ops moves a case's bytes per op by about this much between runs even when its windows agree.
 */
const ALLOC_MIN_SPREAD = 0.01;

/**
 * Geometric mean of a non-empty list.
 * @param {number[]} values Positive values
 * @returns {number} Mean
 */
function geometricMean(values) {
  return Math.exp(values.reduce((sum, v) => sum + Math.log(v), 0) / values.length);
}

/**
 * The range of `a.hz / b.hz` when each moves within its margin of error.
 * @param {{hz: number, rme: number}} a Numerator timing (rme in %)
 * @param {{hz: number, rme: number}} b Denominator timing
 * @returns {[number, number]} Lowest and highest ratio
 */
function ratioRange(a, b) {
  const [ea, eb] = [a.rme / 100, b.rme / 100];
  return [(a.hz * Math.max(0, 1 - ea)) / (b.hz * (1 + eb)), eb >= 1 ? Infinity : (a.hz * (1 + ea)) / (b.hz * (1 - eb))];
}

/**
 * One target row with its verdict.
 * @param {object} spec `what` is compared, `short` name, `threshold`, `atMost` (the value must not
 *   exceed the threshold, else reach it), `value` measured, `range` [low, high] within the
 *   margins, `detail` on what was measured, `noise` the verdict of a miss within the margins
 * @returns {object} Row: the spec plus `status` (met, noise, missed) and `verdict`
 */
function row({ what, short, threshold, atMost = false, value, range, detail = '', noise = VERDICTS.noise }) {
  let status;
  if (atMost ? value <= threshold : value >= threshold) status = 'met';
  else if (atMost ? range[0] <= threshold : range[1] >= threshold) status = 'noise';
  else status = 'missed';
  return { what, short, threshold, atMost, value, range, detail, status, verdict: status === 'noise' ? noise : VERDICTS[status] };
}

/**
 * Per case: RustWriter vs the faster protobufjs of that case.
 * @param {object} c Case record (timed)
 * @param {{pbjs8: string, pbjs7: string}} names Contender names
 * @returns {object} Target row
 */
function fasterRow(c, names) {
  const what = `${c.title}: RustWriter vs the faster of ${names.pbjs8} and ${names.pbjs7}`;
  const short = `${c.id} vs the faster protobufjs`;
  const { rust, pbjs8, pbjs7 } = c.contenders;
  const [key, faster] = pbjs8.hz >= pbjs7.hz ? ['pbjs8', pbjs8] : ['pbjs7', pbjs7];
  return row({ what, short, threshold: EACH_VS_FASTER, value: rust.hz / faster.hz, range: ratioRange(rust, faster), detail: `faster here: ${names[key]}` });
}

/**
 * One case: RustWriter vs protobufjs 8.8.1.
 * @param {object} c Case record (timed)
 * @param {number} threshold Ratio to reach
 * @param {{pbjs8: string}} names Contender names
 * @returns {object} Target row
 */
function vs8Row(c, threshold, names) {
  const { rust, pbjs8 } = c.contenders;
  return row({ what: `${c.title}: RustWriter vs ${names.pbjs8}`, short: `${c.id} vs ${names.pbjs8}`, threshold, value: rust.hz / pbjs8.hz,
    range: ratioRange(rust, pbjs8) });
}

/**
 * Geometric mean of RustWriter vs one protobufjs over all cases; its range is the geometric mean
 * of the cases' ranges.
 * @param {object[]} cases Case records, every case timed
 * @param {string} key Contender key of the protobufjs writer
 * @param {string} name Its name
 * @param {number} threshold Ratio to reach
 * @returns {object} Target row
 */
function geomeanRow(cases, key, name, threshold) {
  const ranges = cases.map((c) => ratioRange(c.contenders.rust, c.contenders[key]));
  return row({
    what: `geometric mean over all ${cases.length} cases: RustWriter vs ${name}`,
    short: `geometric mean vs ${name}`,
    threshold,
    value: geometricMean(cases.map((c) => c.contenders.rust.hz / c.contenders[key].hz)),
    range: [geometricMean(ranges.map((r) => r[0])), geometricMean(ranges.map((r) => r[1]))],
  });
}

/**
 * Allocation: per case with a published figure, this run's bytes per op over the published ones,
 * both rounded to whole bytes; the row shows the worst case, a real miss before a miss within
 * noise (where the two measurements' spreads, at least ALLOC_MIN_SPREAD each, overlap).
 * @param {object[]} measured Case records with RustWriter's allocation measured
 * @returns {object} Target row
 */
function allocationRow(measured) {
  const cases = measured.map((c) => {
    const [before, spreadBefore] = PUBLISHED_ALLOC.bytes[c.id].map((v, i) => (i ? Math.max(ALLOC_MIN_SPREAD, v) : v));
    const total = Math.round(c.contenders.rust.alloc.total);
    const spread = Math.max(ALLOC_MIN_SPREAD, c.contenders.rust.alloc.spread);
    const range = [
      (total * (1 - spread)) / (before * (1 + spreadBefore)),
      (total * (1 + spread)) / (before * (1 - spreadBefore)),
    ];
    return { id: c.id, ratio: total / before, range, total, before };
  });
  const rank = (x) => (x.range[0] > 1 ? 2 : x.ratio > 1 ? 1 : 0);
  const worst = cases.reduce((w, x) => (rank(x) > rank(w) || (rank(x) === rank(w) && x.ratio > w.ratio) ? x : w));
  const more = cases.filter((x) => x.ratio > 1).map((x) => x.id);
  return row({
    what: `bytes RustWriter allocates per op, this run over the last published run (commit ${PUBLISHED_ALLOC.commit}, ` +
      `${PUBLISHED_ALLOC.date}), ${cases.length === 1 ? 'the one case run' : `the worst of ${cases.length} cases`}`,
    short: 'allocation vs the last published run',
    threshold: 1,
    atMost: true,
    value: worst.ratio,
    range: worst.range,
    detail: `${worst.id}: ${worst.total} B now, ${worst.before} B then${more.length ? `; more now on ${more.join(', ')}` : ''}`,
    noise: VERDICTS.allocNoise,
  });
}

/**
 * Evaluates every target a run's cases allow: per-case targets of the cases timed, the geometric
 * means only when every case was, allocation over the cases measured.
 * @param {object[]} cases Case records of bench/index.js (`id`, `title`, `error`, `contenders`)
 * @param {number} caseCount Cases the full suite has
 * @param {{pbjs8: string, pbjs7: string}} names Contender names
 * @returns {{targets: object[], skipped: string[]}} Target rows, and what could not be evaluated and why
 */
function evaluateTargets(cases, caseCount, names) {
  const timed = cases.filter((c) => !c.error);
  const allTimed = timed.length === caseCount;
  const allocated = timed.filter((c) => PUBLISHED_ALLOC.bytes[c.id] && c.contenders.rust.alloc &&
    !c.contenders.rust.alloc.error);
  const targets = [
    ...Object.entries(VS_8).flatMap(([id, threshold]) =>
      timed.filter((c) => c.id === id).map((c) => vs8Row(c, threshold, names))),
    ...timed.map((c) => fasterRow(c, names)),
    ...(allTimed ? [geomeanRow(timed, 'pbjs8', names.pbjs8, GEOMEAN_VS_8), geomeanRow(timed, 'pbjs7', names.pbjs7, GEOMEAN_VS_7)] : []),
    ...(allocated.length ? [allocationRow(allocated)] : []),
  ];
  const skipped = [];
  const untimed = Object.keys(VS_8).filter((id) => !timed.some((c) => c.id === id));
  if (untimed.length) skipped.push(`${untimed.join(', ')} vs ${names.pbjs8} (cases not timed)`);
  if (!allTimed) skipped.push(`the geometric means (they need all ${caseCount} cases timed)`);
  if (!allocated.length) skipped.push('allocation (no case measured)');
  return { targets, skipped };
}

module.exports = { evaluateTargets, VERDICTS, PUBLISHED_ALLOC };
