'use strict';

/**
 * One contender of one case in a process of its own, as an app runs one protobufjs and one writer:
 * the child builds the case for that contender alone (bench/cases.js prepareCase) and then does
 * what the parent asks, one JSON line in, one JSON line out, until its stdin closes:
 *
 *   {"do":"bytes"}              → {"bytes": base64 of one op's result, or null for a breakdown contender}
 *   {"do":"warm","ms":N}        → {}: ops for N ms of the process's CPU time
 *   {"do":"time"}               → {"hz", "rme", "samples"}: one benchmark.js benchmark of the op
 *   {"do":"nativeCalls","ops":N} → {"calls"}: native calls per op over N ops (the addon counts them)
 *
 * or {"error": message}. Why a process each: contenders timed in one process slow each other down,
 * by sharing generated code (docs/benchmark.md, "Timing") and beyond it (RustWriter's compiled
 * encoder on the tile ran 17% slower beside the other contenders than alone under Node 26, protobufjs
 * 8.8.1 not at all: `node bench/probes/trap.js tile 3 --node 26 --keys pbjs8,rust --modes alone,beside`),
 * and no app runs ten writers side by side.
 *
 * No benchmark starts with a forced GC: the garbage a contender makes, in any round, is its own
 * cost, as its process is its own, and a forced `gc()` does what no GC of V8's own does: after it,
 * RustWriter's compiled encoder of Temporal's message took 2x its time for ~2 s under Node 26, where
 * after the mark-compacts V8 started itself it took its usual time from the first ops (protobufjs's
 * encoder took ~1.4x for ~20 ops after either): `node bench/probes/after-gc.js temporal rust --node 26`.
 * The process runs with Node's default flags.
 */

const { spawn } = require('child_process');
const readline = require('readline');

/**
 * benchmark.js options per benchmark. maxTime is the sampling time (s) after which benchmark.js
 * stops once minSamples are in; each benchmark also spends ~0.4 s compiling and calibrating its
 * loop (measured on 2 cores), so a benchmark takes ~0.8 s (bench/progress.js estimates a run from
 * that). 150 benchmarks × ROUNDS (bench/suite.js; TARGET_ROUNDS for the four everyday cases), each
 * contender's process starting and warming its op, and the allocation child processes (~5 s a case)
 * make `npm run bench` ~18.5 minutes on 2 idle cores.
 */
const BENCH_OPTIONS = { minSamples: 5, maxTime: 0.4 };

/**
 * The child's side: builds the case's op for one contender, then answers requests.
 * @param {string} id Case id
 * @param {string} key Contender key
 * @returns {Promise<undefined>} When stdin closes
 */
async function serve(id, key) {
  const Benchmark = require('benchmark');
  // Required in the child only: bench/cases.js loads the writers.
  const { CASES, PROTO_FILE, contendersOf, prepareCase } = require('./cases');
  const { loadStaticModules } = require('./static');
  const { _testing: { nativeCalls } } = require('..');

  const c = CASES.find((x) => x.id === id);
  if (!c) throw new Error(`unknown case ${id}`);
  const contender = contendersOf(c, [key])[0];
  if (!contender) throw new Error(`unknown contender ${key}`);
  const statics = c.codegen === 'static' ? await loadStaticModules(PROTO_FILE, [contender]) : null;
  const [{ fn }] = prepareCase(c, statics, [key]);

  const handlers = {
    bytes: () => {
      const result = fn();
      return { bytes: contender.checked ? Buffer.from(result).toString('base64') : null };
    },
    time: () => {
      const bench = new Benchmark(contender.name, fn, BENCH_OPTIONS);
      bench.run({ async: false });
      if (bench.error) throw bench.error;
      return { hz: bench.hz, rme: bench.stats.rme, samples: bench.stats.sample.length };
    },
    warm: ({ ms }) => {
      const used = () => {
        const { user, system } = process.cpuUsage();
        return (user + system) / 1000;
      };
      const until = used() + ms;
      while (used() < until) for (let i = 0; i < 10; ++i) fn();
      return {};
    },
    nativeCalls: ({ ops }) => {
      const before = nativeCalls();
      for (let i = 0; i < ops; ++i) fn();
      return { calls: ((nativeCalls() - before) >>> 0) / ops };
    },
  };
  process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
  for await (const line of readline.createInterface({ input: process.stdin })) {
    const request = JSON.parse(line);
    let answer;
    try {
      answer = handlers[request.do](request);
    } catch (err) {
      answer = { error: String((err && err.message) || err) };
    }
    process.stdout.write(`${JSON.stringify(answer)}\n`);
  }
}

/** The parent's handle on one contender's process. */
class Worker {
  /**
   * Starts the process; `ready()` resolves once it has built its op.
   * @param {string} id Case id
   * @param {{key: string, name: string, checked?: boolean}} contender Entry of bench/cases.js CONTENDERS
   */
  constructor(id, contender) {
    this.key = contender.key;
    this.name = contender.name;
    this.checked = Boolean(contender.checked);
    // A case may run its contenders under environment variables of its own (bench/cases.js `env`).
    const { env } = require('./cases').CASES.find((c) => c.id === id) || {};
    this._child = spawn(process.execPath, [__filename, id, contender.key],
      { stdio: ['pipe', 'pipe', 'inherit'], env: env ? { ...process.env, ...env } : process.env });
    this._pending = [];
    this._exit = null;
    const lines = readline.createInterface({ input: this._child.stdout });
    lines.on('line', (line) => {
      const pending = this._pending.shift();
      if (pending) pending.resolve(JSON.parse(line));
    });
    this._child.on('exit', (code, signal) => {
      this._exit = `${this.name}'s process exited (${signal || `code ${code}`})`;
      for (const pending of this._pending.splice(0)) pending.reject(new Error(this._exit));
    });
    this._ready = this._next();
  }

  /**
   * The process's next line.
   * @returns {Promise<object>} Parsed answer
   */
  _next() {
    if (this._exit) return Promise.reject(new Error(this._exit));
    return new Promise((resolve, reject) => this._pending.push({ resolve, reject }));
  }

  /**
   * Sends one request and waits for its answer.
   * @param {object} request Request
   * @returns {Promise<object>} Answer (an `{error}` answer rejects)
   */
  async _ask(request) {
    await this._ready;
    const answer = this._next();
    this._child.stdin.write(`${JSON.stringify(request)}\n`);
    const result = await answer;
    if (result.error) throw new Error(`${this.name}: ${result.error}`);
    return result;
  }

  /**
   * Resolves once the process has built its op.
   * @returns {Promise<undefined>}
   */
  async ready() {
    await this._ready;
  }

  /**
   * One op's result, or null for a contender whose bytes are not checked.
   * @returns {Promise<Buffer|null>} Bytes
   */
  async bytes() {
    const { bytes } = await this._ask({ do: 'bytes' });
    return bytes === null ? null : Buffer.from(bytes, 'base64');
  }

  /**
   * Runs the op for `ms` of the process's CPU time (CPU time: on a loaded machine a wall-clock
   * budget would warm some contenders far less than others).
   * @param {number} ms Milliseconds
   * @returns {Promise<undefined>}
   */
  async warm(ms) {
    await this._ask({ do: 'warm', ms });
  }

  /**
   * One benchmark of the op.
   * @returns {Promise<{hz: number, rme: number, samples: number}>} Ops/s, relative margin of error (%), samples
   */
  time() {
    return this._ask({ do: 'time' });
  }

  /**
   * Native calls per op, over `ops` ops, outside any timing.
   * @param {number} ops Ops
   * @returns {Promise<number>} Calls per op
   */
  async nativeCalls(ops) {
    return (await this._ask({ do: 'nativeCalls', ops })).calls;
  }

  /**
   * Ends the process (its stdin closes) and waits for it.
   * @returns {Promise<undefined>}
   */
  close() {
    if (this._exit) return Promise.resolve();
    return new Promise((resolve) => {
      this._child.once('exit', () => resolve());
      this._child.stdin.end();
    });
  }
}

module.exports = { Worker, BENCH_OPTIONS };

if (require.main === module) {
  const [id, key] = process.argv.slice(2);
  serve(id, key).catch((err) => {
    process.stderr.write(`${err.stack || err}\n`);
    process.exitCode = 1;
  });
}
