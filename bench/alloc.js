'use strict';

/**
 * Bytes allocated per benchmark op, for one contender's op, measured in a child process of its
 * own: `node --expose-gc --max-semi-space-size=64 --min-semi-space-size=64 bench/alloc.js <case>
 * <contender>...` (ALLOC_FLAGS), which bench/index.js starts per case after timing it. The flags
 * are what the measurement needs and what the timing process must not have: a 64 MB new space
 * lets a window run without a scavenge, and under default flags it would also hide the cost of the
 * garbage every encode makes. The child builds the case from the same seed, warms each op, then
 * measures it.
 *
 * Method: after a full `gc()`, run the op N times in a window in which no GC may happen, and take
 * the growth of
 * - the JS heap: used bytes of V8's new, old and large-object spaces (not the code spaces, which
 *   only JIT compilation grows), and
 * - external memory: V8's `external_memory`, which counts every ArrayBuffer backing store, Node's
 *   (Buffer pool, `allocUnsafe`) and those RustWriter shares from Rust alike (`arrayBuffers`, Node's
 *   own allocations among them, is recorded too). Native memory Rust allocates without showing it
 *   to JS is not counted.
 * Without a GC in the window nothing is freed, so the growth is what the window allocated: every
 * result counts in full, whether or not it is kept (it is not, apart from the last). A pooled
 * allocation (Node's 8 KB Buffer pool, a RustWriter slab) counts in the window that creates it, so
 * it is spread over the ops that share it only when N is large; several windows give a spread.
 *
 * Needs `--expose-gc`, and a new space larger than a window's allocations
 * (`--min-semi-space-size`). A window in which a GC happened anyway (PerformanceObserver 'gc'
 * entries) is discarded and N halved.
 */

const { execFile } = require('child_process');
const v8 = require('v8');
const { PerformanceObserver, performance } = require('perf_hooks');
const { setTimeout: sleep } = require('timers/promises');

/**
 * Bytes a window may allocate: a quarter of the 64 MB new space, and half the ~32 MB of young
 * ArrayBuffers at which V8 was seen to scavenge (protobufjs's 1 MB case, Node 20).
 */
const WINDOW_BUDGET = 16 * 2 ** 20;
/** Ops per window at most: enough to spread pooled allocations, a few ms for the tiny case. */
const MAX_OPS = 20000;
/** Estimating windows grow by this factor until they allocate ESTIMATE_BYTES. */
const ESTIMATE_GROWTH = 8;
/** Enough allocation for a per-op estimate that the measurement's own few hundred bytes do not skew. */
const ESTIMATE_BYTES = 2 ** 20;
/** Windows per measurement; the median is reported. */
const WINDOWS = 5;
/** Windows tried at most, counting those a GC spoilt. */
const MAX_ATTEMPTS = 3 * WINDOWS;
/** A spread of more than this fraction of the median marks the result noisy. */
const NOISY_SPREAD = 0.1;
/** GC entries reach the observer asynchronously; this is ample. */
const GC_REPORT_DELAY_MS = 20;
/** Heap spaces that ops allocate in. */
const HEAP_SPACES = new Set(['new_space', 'new_large_object_space', 'old_space', 'large_object_space']);
/** Node flags of the child process (and only of it). */
const ALLOC_FLAGS = ['--expose-gc', '--max-semi-space-size=64', '--min-semi-space-size=64'];
/** Each op runs this long before it is measured, so that it runs optimized code (the timing process warmed its
 * own copy). */
const WARM_MS = 250;
/** A child measures a case's contenders in well under a minute; a hung one must not hang the benchmark. */
const CHILD_TIMEOUT_MS = 180000;
/** Room for the child's JSON answer. */
const CHILD_MAX_BUFFER = 1 << 20;

const gcEntries = [];
let observer = null;

/**
 * Checks that the process was started with the flags the measurement needs.
 * @returns {undefined}
 */
function assertSetUp() {
  if (typeof globalThis.gc !== 'function') throw new Error(`allocation measurement needs node ${ALLOC_FLAGS.join(' ')}`);
  const newSpace = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
  // V8 14 (Node 26) commits new-space pages as they fill: its space_size stays small, and what the
  // flags gave shows in space_available_size.
  if (Math.max(newSpace.space_size, newSpace.space_used_size + newSpace.space_available_size) < 2 * WINDOW_BUDGET) {
    throw new Error(`allocation measurement needs a large new space: node ${ALLOC_FLAGS.join(' ')}`);
  }
  if (!observer) {
    observer = new PerformanceObserver((list) => gcEntries.push(...list.getEntries()));
    observer.observe({ entryTypes: ['gc'] });
  }
}

/**
 * Used bytes of the heap spaces ops allocate in.
 * @returns {number} Bytes
 */
function heapUsed() {
  let used = 0;
  for (const space of v8.getHeapSpaceStatistics()) if (HEAP_SPACES.has(space.space_name)) used += space.space_used_size;
  return used;
}

/**
 * One window: `ops` runs of `fn` after a full GC.
 * @param {() => Uint8Array} fn Op
 * @param {number} ops Runs
 * @returns {{start: number, end: number, heap: number, external: number, arrayBuffers: number}} Bytes
 *   per op and the window's time span
 */
function runWindow(fn, ops) {
  // After a full GC, V8 was seen to leave young ArrayBuffers unaccounted in external_memory until
  // the next scavenge (Node 20); the scavenge makes the count exact (it then equals Node's
  // arrayBuffers delta for protobufjs, whose buffers all come from Node's allocator).
  globalThis.gc();
  globalThis.gc({ type: 'minor' });
  const external0 = v8.getHeapStatistics().external_memory;
  const arrayBuffers0 = process.memoryUsage().arrayBuffers;
  const heap0 = heapUsed();
  const start = performance.now();
  let last = null;
  for (let i = 0; i < ops; ++i) last = fn();
  const end = performance.now();
  const heap1 = heapUsed();
  const external1 = v8.getHeapStatistics().external_memory;
  const arrayBuffers1 = process.memoryUsage().arrayBuffers;
  if (!last) throw new Error('op returned nothing');
  return {
    start,
    end,
    heap: (heap1 - heap0) / ops,
    external: (external1 - external0) / ops,
    arrayBuffers: (arrayBuffers1 - arrayBuffers0) / ops,
  };
}

/**
 * Runs a window and reports whether a GC happened in it.
 * @param {() => Uint8Array} fn Op
 * @param {number} ops Runs
 * @returns {Promise<object>} runWindow's result and `gc`, whether a GC happened in the window
 */
async function observedWindow(fn, ops) {
  gcEntries.length = 0;
  const window = runWindow(fn, ops);
  await sleep(GC_REPORT_DELAY_MS);
  return { ...window, gc: gcEntries.some((e) => e.startTime >= window.start && e.startTime <= window.end) };
}

/**
 * Bytes one op allocates, roughly: windows of growing size until one allocates ESTIMATE_BYTES.
 * @param {() => Uint8Array} fn Op
 * @returns {number} Bytes per op (at least 1)
 */
function estimatePerOp(fn) {
  for (let ops = 1; ; ops *= ESTIMATE_GROWTH) {
    const w = runWindow(fn, ops);
    const perOp = Math.max(1, w.heap + w.external);
    if (perOp * ops >= ESTIMATE_BYTES || ops >= MAX_OPS) return perOp;
  }
}

/**
 * Median of a non-empty list.
 * @param {number[]} values Values
 * @returns {number} Median
 */
function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * Bytes allocated per op of `fn`, which should already be warm (optimized).
 * @param {() => Uint8Array} fn Op
 * @param {number} resultBytes Length of the op's result, reported apart
 * @returns {Promise<object>} `{heap, external, arrayBuffers, total, beyondResult, ops, windows, discarded,
 *   spread, noisy}`: medians in bytes per op (`total` the median of heap + external); `spread` is
 *   (max − min) / median of the windows' totals
 */
async function measureAllocation(fn, resultBytes) {
  assertSetUp();
  let ops = Math.max(1, Math.min(MAX_OPS, Math.floor(WINDOW_BUDGET / estimatePerOp(fn))));
  const windows = [];
  let discarded = 0;
  while (windows.length < WINDOWS && windows.length + discarded < MAX_ATTEMPTS) {
    const w = await observedWindow(fn, ops);
    if (w.gc) {
      discarded += 1;
      ops = Math.max(1, ops >> 1);
    } else {
      windows.push(w);
    }
  }
  if (!windows.length) return { error: `a GC happened in each of ${MAX_ATTEMPTS} windows` };
  const totals = windows.map((w) => w.heap + w.external);
  const total = median(totals);
  const spread = total > 0 ? (Math.max(...totals) - Math.min(...totals)) / total : 0;
  return {
    heap: median(windows.map((w) => w.heap)),
    external: median(windows.map((w) => w.external)),
    arrayBuffers: median(windows.map((w) => w.arrayBuffers)),
    total,
    beyondResult: total - resultBytes,
    ops,
    windows: windows.length,
    discarded,
    spread,
    noisy: spread > NOISY_SPREAD || windows.length < WINDOWS,
  };
}

/**
 * Runs `fn` for WARM_MS.
 * @param {() => *} fn Op
 * @returns {undefined}
 */
function warm(fn) {
  const end = performance.now() + WARM_MS;
  while (performance.now() < end) for (let i = 0; i < 10; ++i) fn();
}

/**
 * The child's work: builds a case, then warms and measures each named contender's op.
 * @param {string} id Case id
 * @param {string[]} keys Contender keys
 * @returns {Promise<Object<string, object>>} measureAllocation's result per key
 */
async function measureCase(id, keys) {
  assertSetUp();
  // Required here, in the child only: bench/cases.js loads the writers.
  const { CASES, PROTO_FILE, contendersOf, prepareCase } = require('./cases');
  const { loadStaticModules } = require('./static');
  const c = CASES.find((x) => x.id === id);
  if (!c) throw new Error(`unknown case ${id}`);
  const wanted = contendersOf(c).filter((contender) => keys.includes(contender.key));
  const statics = c.codegen === 'static' ? await loadStaticModules(PROTO_FILE, wanted) : null;
  const out = {};
  for (const { key, fn } of prepareCase(c, statics, keys)) {
    warm(fn);
    out[key] = await measureAllocation(fn, fn().length);
  }
  return out;
}

/**
 * Bytes allocated per op of some contenders of a case, measured in a child process with
 * ALLOC_FLAGS. Never rejects: a failed child gives every contender an `error`.
 * @param {string} id Case id
 * @param {string[]} keys Contender keys
 * @returns {Promise<Object<string, object>>} measureAllocation's result (or `{error}`) per key
 */
function measureInChild(id, keys) {
  const args = [...ALLOC_FLAGS, __filename, id, ...keys];
  return new Promise((resolve) => {
    const options = { timeout: CHILD_TIMEOUT_MS, maxBuffer: CHILD_MAX_BUFFER };
    execFile(process.execPath, args, options, (err, stdout, stderr) => {
      let result = null;
      if (!err) {
        try {
          result = JSON.parse(stdout);
        } catch (parseError) {
          err = parseError;
        }
      }
      if (err) {
        const why = `allocation child failed: ${(stderr || String(err)).trim().split('\n').pop()}`;
        result = Object.fromEntries(keys.map((key) => [key, { error: why }]));
      }
      resolve(result);
    });
  });
}

module.exports = { measureInChild, ALLOC_FLAGS };

if (require.main === module) {
  const [id, ...keys] = process.argv.slice(2);
  measureCase(id, keys).then((out) => process.stdout.write(`${JSON.stringify(out)}\n`), (err) => {
    process.stderr.write(`${err.stack || err}\n`);
    process.exitCode = 1;
  });
}
