'use strict';

/**
 * What RustWriter should reach, evaluated on one run (issue 24's targets, and what held before them):
 * ratios of ops/s of two contenders timed in the same rounds, and RustWriter's bytes allocated per
 * op against the last published run. "RustWriter" is what an app gets: RustWriter installed into
 * protobufjs 8.8.1 with its compiled encoders (contender `rust`); against protobufjs 7.6.6 it is
 * RustWriter installed into protobufjs 7.6.6 (`rust7`), each protobufjs under its own reflection
 * code. A miss is reported, never an error.
 *
 * Every timing has a margin (±, bench/suite.js), so every ratio has a range: a miss whose range
 * still reaches the target is "within noise" (another run may well meet it); a miss whose whole
 * range falls short is real.
 */

/** protobuf.js's own three bench messages: its bench.json (`common`), the vector tile, the ~16 KB one (`catalog`). */
const OWN_THREE = ['common', 'catalog', 'tile'];
/** The everyday cases: the messages protobuf.js users encode, and a delimited stream of them. */
const EVERYDAY = ['common', 'catalog', 'tile', 'stream'];
/**
 * Issue 24: geometric mean of RustWriter vs protobufjs 8.8.1 over OWN_THREE (and issue 46: over
 * EVERYDAY, EVERYDAY_VS_8), none of EVERYDAY below LEAST_VS_8.
 */
const GEOMEAN_VS_8 = 1.7;
const EVERYDAY_VS_8 = 1.8;
const LEAST_VS_8 = 1.4;
/** Issue 24: geometric mean of RustWriter vs protobufjs 7.6.6, under its own reflection code, over the same sets. */
const GEOMEAN_VS_7 = 3.0;
/**
 * What held before (nothing may regress): per-case ratios vs protobufjs 8.8.1 on bulk payloads
 * (typed arrays go to the native encoder whole; bytes and strings are bulk copies and UTF-8), and
 * every case at least as fast as the faster of protobufjs 8.8.1 and 7.6.6 (packed arrays among them).
 *
 * `packed-typed` was 5x while the bench ran every case in one process: protobufjs 8.8.1's packed
 * loops had by then seen `packed-array`'s plain arrays and took 3.3x the time on typed arrays
 * (RustWriter 1.1x: `node bench/probes/after-case.js packed-typed packed-array`, Node 20 and 26).
 * Each case in processes of its own (bench/worker.js), the same RustWriter code measures 2.0–2.3x
 * in the probe and 2.22x, 1.29x and 1.62x in the first three full runs (17709df, 6cda775 twice),
 * whose timings of this case spread ±10–25%: the floor is the other bulk cases' 1.5x.
 */
const VS_8 = { 'packed-typed': 1.5, bytes: 1.5, strings: 1.5 };
const EACH_VS_FASTER = 1.0;
/**
 * Issue 37, the real workloads (bench/cases.js group `real`). On the wide-schema cases (`wide`:
 * Temporal's, 1,061 types), RustWriter at least as fast as protobufjs 8.8.1 (WIDE_VS_8) and as its own
 * Writer-API path (WIDE_VS_API, within noise). On the real decoded vector tile, REAL_TILE_VS_8, as on
 * the modelled one. On every real case with a first-encode measurement (bench/cold.js), RustWriter
 * through the preload (in protobufjs 8.8.1, and in 7.6.6 where the case runs it) against protobufjs of
 * the same major alone: the time from process start to the first encoded result at most
 * FIRST_RESULT_VS_OWN times protobufjs's; on the wide cases, whose compiled code was what cost memory,
 * also peak RSS at most PEAK_RSS_MB above it. (Elsewhere peak RSS is reported, not targeted: in a loop
 * that allocates nothing else, V8 frees large results only when their external memory calls for a
 * GC, where protobufjs's own garbage brings scavenges that free them sooner: the real tile's peak is
 * ~25 MB above protobufjs's, the Writer-API path's alike.)
 */
const WIDE_VS_8 = 1.0;
const WIDE_VS_API = 1.0;
const REAL_TILE_VS_8 = 1.5;
const FIRST_RESULT_VS_OWN = 1.2;
const PEAK_RSS_MB = 15;
/**
 * Issue 46, every Type of the wide schemas compiled: per real case, RustWriter vs protobufjs 8.8.1
 * (REAL_VS_8; the real tile's with both contenders under glibc's raised trim threshold, `tile-real-trim`,
 * the fault-free figure, `tile-real` beside it) and vs its own Writer-API path (REAL_VS_API); on the
 * wide cases, the first encoded result at most FIRST_RESULT_WIDE times protobufjs's.
 */
const REAL_VS_8 = { temporal: 1.4, 'temporal-decoded': 1.5, firestore: 1.4, conformance: 1.6, 'tile-real-trim': REAL_TILE_VS_8 };
const REAL_VS_API = { temporal: 1.2 };
const FIRST_RESULT_WIDE = 1.1;
/**
 * Issue 47, the `grpc` group (@grpc/proto-loader's serializer, bench/grpc.js): RustWriter with compiled
 * serializers against protobufjs of the same version alone, per case (GRPC_VS_7 for 7.6.6, the copy
 * proto-loader and google-gax bring; GRPC_VS_8 for 8.8.1); and from a fresh process under the preload
 * (bench/cold.js), the first serialized result at most GRPC_FIRST_RESULT_VS_OWN times protobufjs's and
 * peak RSS at most GRPC_PEAK_RSS_MB above it.
 */
const GRPC_VS_7 = { 'grpc-firestore': 2.5, 'grpc-pubsub': 4 };
const GRPC_VS_8 = { 'grpc-firestore': 1.5, 'grpc-pubsub': 1.5 };
const GRPC_FIRST_RESULT_VS_OWN = 1.1;
const GRPC_PEAK_RSS_MB = 10;
/** The preload contenders the first-encode targets apply to, with their protobufjs (bench/cold.js OWN). */
const COLD_TARGETED = ['rust', 'rust7'];

/**
 * RustWriter's bytes allocated per op (JS heap + external, bench/alloc.js) in the last published
 * run on each Node line (bench/results/latest.json as committed with the README): `[median, spread]`
 * per case, the spread being (max − min) / median of its windows. No case may allocate more now, on
 * the same line: V8's heap accounting and Node's Buffer pool differ between lines. Node 20's figures
 * are the Writer API's, before the compiled encoders (commit cd83ca3); Node 26's the compiled
 * encoders' (commit 8ad6b05, the first run published from Node 26).
 */
const PUBLISHED_ALLOC = {
  20: {
    commit: 'cd83ca3',
    date: '2026-11-23',
    bytes: {
      common: [325, 0.121], catalog: [90140, 0.115], tile: [131470, 0.019], tiny: [234, 0.03], small: [369, 0.129],
      strings: [66173, 0.002], 'int64-long': [4237, 0.685], 'int64-number': [8963, 0.246], 'int64-bigint': [4263, 0.807],
      'packed-array': [255039, 0.001], 'packed-typed': [174961, 0], bytes: [658413, 0], large: [1721278, 0.171],
      stream: [153000, 0.129], static: [436, 0.158],
    },
  },
  26: {
    commit: '8ad6b05',
    date: '2026-11-25',
    bytes: {
      common: [330, 0.117], catalog: [93106, 0.133], tile: [134137, 0.01], tiny: [241, 0.035], small: [380, 0.114],
      strings: [56159, 0], 'int64-long': [7507, 0.016], 'int64-number': [14183, 0.062], 'int64-bigint': [6611, 0.159],
      'packed-array': [332676, 0.199], 'packed-typed': [175169, 0], bytes: [659459, 0], large: [1895515, 0.111],
      stream: [151177, 0.127], static: [427, 0.08],
    },
  },
};

/**
 * @param {string} version A Node version (`process.version`)
 * @returns {object|undefined} The published allocation figures of its line
 */
function publishedAllocOf(version) {
  return PUBLISHED_ALLOC[/^v?(\d+)/.exec(version)[1]];
}

/** Verdicts, as the console, the JSON and the README say them; a miss within noise says whose margins. */
const VERDICTS = {
  met: 'met',
  noise: 'missed (within noise: the margins of the two timings overlap the target)',
  allocNoise: 'missed (within noise: the spreads of the two measurements overlap the target)',
  coldNoise: 'missed (within noise: the bests of the fresh processes reach the target)',
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
 *   margins, `detail` on what was measured, `noise` the verdict of a miss within the margins,
 *   `unit` of value and threshold (`x`, a ratio, unless `MB`)
 * @returns {object} Row: the spec plus `status` (met, noise, missed) and `verdict`
 */
function row({ what, short, threshold, atMost = false, value, range, detail = '', noise = VERDICTS.noise, unit = 'x' }) {
  let status;
  if (atMost ? value <= threshold : value >= threshold) status = 'met';
  else if (atMost ? range[0] <= threshold : range[1] >= threshold) status = 'noise';
  else status = 'missed';
  return {
    what, short, threshold, atMost, value, range, detail, status, verdict: status === 'noise' ? noise : VERDICTS[status],
    ...(unit !== 'x' && { unit }),
  };
}

/**
 * Whether a case record timed all these contenders.
 * @param {object} c Case record
 * @param {string[]} keys Contender keys
 * @returns {boolean} Timed
 */
function timedAll(c, keys) {
  return !c.error && keys.every((key) => c.contenders[key]);
}

/**
 * Per case: RustWriter vs the faster protobufjs of that case.
 * @param {object} c Case record (timed)
 * @param {Object<string, string>} names Contender names by key
 * @returns {object} Target row
 */
function fasterRow(c, names) {
  const what = `${c.title}: ${names.rust} vs the faster of ${names.pbjs8} and ${names.pbjs7}`;
  const short = `${c.id} vs the faster protobufjs`;
  const { rust, pbjs8, pbjs7 } = c.contenders;
  const [key, faster] = pbjs8.hz >= pbjs7.hz ? ['pbjs8', pbjs8] : ['pbjs7', pbjs7];
  return row({ what, short, threshold: EACH_VS_FASTER, value: rust.hz / faster.hz, range: ratioRange(rust, faster), detail: `faster here: ${names[key]}` });
}

/**
 * One case: one contender vs another.
 * @param {object} c Case record (timed)
 * @param {string} of Contender key of the numerator
 * @param {string} over Contender key of the denominator
 * @param {number} threshold Ratio to reach
 * @param {Object<string, string>} names Contender names by key
 * @param {string} [why] What the target is, for its short name
 * @returns {object} Target row
 */
function caseRow(c, of, over, threshold, names, why = '') {
  const [a, b] = [c.contenders[of], c.contenders[over]];
  return row({ what: `${c.title}: ${names[of]} vs ${names[over]}${why ? ` (${why})` : ''}`, short: `${c.id} vs ${names[over]}${why ? ` (${why})` : ''}`,
    threshold, value: a.hz / b.hz, range: ratioRange(a, b) });
}

/**
 * Geometric mean of one contender vs another over some cases; its range is the geometric mean of
 * the cases' ranges.
 * @param {object[]} cases Case records, each timed with both
 * @param {string} of Contender key of the numerator
 * @param {string} over Contender key of the denominator
 * @param {string} setName What the cases are, in words
 * @param {number} threshold Ratio to reach
 * @param {Object<string, string>} names Contender names by key
 * @returns {object} Target row
 */
function geomeanRow(cases, of, over, setName, threshold, names) {
  const ranges = cases.map((c) => ratioRange(c.contenders[of], c.contenders[over]));
  return row({
    what: `geometric mean over ${setName} (${cases.map((c) => c.id).join(', ')}): ${names[of]} vs ${names[over]}`,
    short: `geometric mean over ${setName} vs ${names[over]}`,
    threshold,
    value: geometricMean(cases.map((c) => c.contenders[of].hz / c.contenders[over].hz)),
    range: [geometricMean(ranges.map((r) => r[0])), geometricMean(ranges.map((r) => r[1]))],
  });
}

/**
 * Allocation: per case with a published figure, this run's bytes per op over the published ones,
 * both rounded to whole bytes; the row shows the worst case, a real miss before a miss within
 * noise (where the two measurements' spreads, at least ALLOC_MIN_SPREAD each, overlap).
 * @param {object[]} measured Case records with RustWriter's allocation measured
 * @param {object} published The figures of this Node line (PUBLISHED_ALLOC)
 * @returns {object} Target row
 */
function allocationRow(measured, published) {
  const cases = measured.map((c) => {
    const [before, spreadBefore] = published.bytes[c.id].map((v, i) => (i ? Math.max(ALLOC_MIN_SPREAD, v) : v));
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
    what: `bytes RustWriter allocates per op, this run over the last published run on this Node line (commit ${published.commit}, ` +
      `${published.date}), ${cases.length === 1 ? 'the one case run' : `the worst of ${cases.length} cases`}`,
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
 * The first-encode targets of one case's cold record, for each targeted contender it measured. A
 * figure of fresh processes has no margin of error; its range is what the ratio of the medians and
 * the ratio of the bests span (this machine's bursts of noise slow whole processes: a miss whose
 * best-of reaches the target is called noise).
 * @param {object} c Case record with `cold`
 * @returns {object[]} Target rows
 */
function coldRows(c) {
  const rows = [];
  const span = (f) => [Math.min(f.median, f.best), Math.max(f.median, f.best)];
  for (const key of COLD_TARGETED) {
    const r = c.cold.ratios[key];
    if (!r) continue;
    const [name, over] = [c.cold.contenders[key].name, c.cold.contenders[r.over].name];
    const grpc = c.group === 'grpc';
    rows.push(row({
      what: `${c.title}: ${name} vs ${over}, time from process start to the first encoded result (medians; bests in the range)`,
      short: `${c.id} first result, ${key} vs ${r.over}`,
      threshold: grpc ? GRPC_FIRST_RESULT_VS_OWN : c.wide ? FIRST_RESULT_WIDE : FIRST_RESULT_VS_OWN,
      atMost: true,
      value: r.firstResult.median,
      range: span(r.firstResult),
      detail: `${r.firstResultDeltaMs.median < 0 ? '−' : '+'}${Math.abs(Math.round(r.firstResultDeltaMs.median))} ms; first encode call alone ` +
        `${r.firstEncode.median.toFixed(2)}x`,
      noise: VERDICTS.coldNoise,
    }));
    if (!c.wide && !grpc) continue;
    rows.push(row({
      what: `${c.title}: ${name} vs ${over}, peak RSS above protobufjs's, MB (medians; bests in the range)`,
      short: `${c.id} peak RSS, ${key} vs ${r.over}`,
      threshold: grpc ? GRPC_PEAK_RSS_MB : PEAK_RSS_MB, atMost: true, value: r.rssPeakMB.median, range: span(r.rssPeakMB), unit: 'MB',
      noise: VERDICTS.coldNoise,
    }));
  }
  return rows;
}

/**
 * Evaluates every target a run's cases allow: a geometric mean when every case of its set was timed
 * with both its contenders, a per-case target on each case timed with its contenders, allocation
 * over the cases measured.
 * @param {object[]} cases Case records of bench/index.js (`id`, `title`, `error`, `contenders`)
 * @param {Object<string, string>} names Contender names by key
 * @param {string} [version] The Node version that ran them
 * @returns {{targets: object[], skipped: string[]}} Target rows, and what could not be evaluated and why
 */
function evaluateTargets(cases, names, version = process.version) {
  const byId = new Map(cases.filter((c) => !c.error).map((c) => [c.id, c]));
  const targets = [];
  const skipped = [];
  const sets = [['protobuf.js\'s own three cases', OWN_THREE], ['the everyday cases', EVERYDAY]];
  const geomeans = [['rust', 'pbjs8', [GEOMEAN_VS_8, EVERYDAY_VS_8]], ['rust7', 'pbjs7', [GEOMEAN_VS_7, GEOMEAN_VS_7]]];
  for (const [of, over, thresholds] of geomeans) {
    sets.forEach(([setName, ids], k) => {
      const timed = ids.map((id) => byId.get(id)).filter((c) => c && timedAll(c, [of, over]));
      if (timed.length === ids.length) targets.push(geomeanRow(timed, of, over, setName, thresholds[k], names));
      else skipped.push(`the geometric mean over ${setName} of ${of} vs ${over} (it needs ${ids.join(', ')} timed with both)`);
    });
  }
  const least = EVERYDAY.map((id) => byId.get(id)).filter((c) => c && timedAll(c, ['rust', 'pbjs8']));
  targets.push(...least.map((c) => caseRow(c, 'rust', 'pbjs8', LEAST_VS_8, names, 'an everyday case')));
  for (const [id, threshold] of Object.entries(VS_8)) {
    const c = byId.get(id);
    if (c && timedAll(c, ['rust', 'pbjs8'])) targets.push(caseRow(c, 'rust', 'pbjs8', threshold, names));
  }
  targets.push(...[...byId.values()].filter((c) => timedAll(c, ['rust', 'pbjs8', 'pbjs7'])).map((c) => fasterRow(c, names)));
  const measured = (c) => c.contenders.rust && c.contenders.rust.alloc && !c.contenders.rust.alloc.error;
  const published = publishedAllocOf(version);
  const allocated = published ? [...byId.values()].filter((c) => published.bytes[c.id] && measured(c)) : [];
  if (allocated.length) targets.push(allocationRow(allocated, published));
  else if (!published) skipped.push(`allocation (no run published from Node ${version}'s line to compare with)`);
  else skipped.push('allocation (no case measured)');
  for (const c of byId.values()) {
    const vs8 = Math.max(c.wide ? WIDE_VS_8 : 0, REAL_VS_8[c.id] || 0);
    const vsApi = Math.max(c.wide ? WIDE_VS_API : 0, REAL_VS_API[c.id] || 0);
    const why = c.wide ? 'a wide schema' : 'real data';
    if (vs8 > 0 && timedAll(c, ['rust', 'pbjs8'])) targets.push(caseRow(c, 'rust', 'pbjs8', vs8, names, why));
    if (vsApi > 0 && timedAll(c, ['rust', 'rust-api'])) targets.push(caseRow(c, 'rust', 'rust-api', vsApi, names, why));
  }
  for (const [table, of, over] of [[GRPC_VS_7, 'rust7', 'pbjs7'], [GRPC_VS_8, 'rust', 'pbjs8']]) {
    for (const [id, threshold] of Object.entries(table)) {
      const c = byId.get(id);
      if (c && timedAll(c, [of, over])) targets.push(caseRow(c, of, over, threshold, names, 'gRPC\'s serializer'));
    }
  }
  for (const c of byId.values()) if (c.cold && !c.cold.error) targets.push(...coldRows(c));
  const untimed = Object.keys(VS_8).filter((id) => !byId.has(id));
  if (untimed.length) skipped.push(`${untimed.join(', ')} vs ${names.pbjs8} (cases not timed)`);
  return { targets, skipped };
}

module.exports = {
  evaluateTargets, geometricMean, ratioRange, targetRow: row, VERDICTS, PUBLISHED_ALLOC, OWN_THREE, EVERYDAY,
  GEOMEAN_VS_8, EVERYDAY_VS_8, LEAST_VS_8, GEOMEAN_VS_7, WIDE_VS_8, WIDE_VS_API, REAL_VS_8, REAL_VS_API,
  FIRST_RESULT_VS_OWN, FIRST_RESULT_WIDE, PEAK_RSS_MB, GRPC_VS_7, GRPC_VS_8, GRPC_FIRST_RESULT_VS_OWN, GRPC_PEAK_RSS_MB,
};
