'use strict';

/**
 * Progress of a run on stderr (stdout carries the results): a line when the run starts, and when
 * each case starts and ends, with the time elapsed and an estimate of the time left.
 *
 * The estimate weighs each case by its expected cost: its benchmarks (contenders × rounds, each
 * ~SECONDS_PER_BENCHMARK), its contenders' processes and its allocation measurement. Before any
 * case has ended it is that budget; then it is the budget of the cases left, scaled by how the
 * cases done so far compared with theirs (a loaded machine runs every case slower alike).
 */

const format = require('./format');

/**
 * Seconds one benchmark takes: benchmark.js samples for BENCH_OPTIONS.maxTime (0.4 s) after
 * ~0.4 s of compiling and calibrating its loop (bench/worker.js; measured on 2 cores).
 */
const SECONDS_PER_BENCHMARK = 0.8;
/** Seconds of an allocation child: starting Node and building the case, then per contender warming and windows. */
const ALLOC_CHILD_SECONDS = 1.5;
const ALLOC_SECONDS_PER_CONTENDER = 1;
/** Seconds per contender of starting its process and warming its op (bench/worker.js, bench/suite.js WARM_MS). */
const WORKER_SECONDS = 1.5;
/** Seconds pbjs takes to generate the static case's modules (bench/static.js). */
const STATIC_SECONDS = 2;
/**
 * Seconds of one fresh process of the first-encode measurement (bench/cold.js): Node's start, the
 * schema, the first encode and STEADY_MS (1 s) of encodes; 1.3–1.75 s measured on 2 cores.
 */
const COLD_CHILD_SECONDS = 1.6;
/** Extra seconds per contender's process to build a real-workload case (a wide schema's Root, every encoder of it). */
const REAL_WORKER_SECONDS = 2.5;

/**
 * Expected seconds of one case.
 * @param {object} c Case of bench/cases.js
 * @param {object[]} contenders Its contenders (bench/cases.js contendersOf)
 * @param {number} rounds Rounds of timing
 * @param {boolean} [alloc] Whether allocation is measured (default true)
 * @param {number} [coldRounds] Rounds of the first-encode measurement (bench/cold.js; default none)
 * @returns {number} Seconds
 */
function budgetOf(c, contenders, rounds, alloc = true, coldRounds = 0) {
  const checked = contenders.filter((x) => x.checked).length;
  const worker = WORKER_SECONDS + (c.group === 'real' ? REAL_WORKER_SECONDS : 0);
  return contenders.length * (rounds * SECONDS_PER_BENCHMARK + worker) +
    (alloc ? ALLOC_CHILD_SECONDS + checked * (ALLOC_SECONDS_PER_CONTENDER + (c.group === 'real' ? REAL_WORKER_SECONDS : 0)) : 0) +
    (c.codegen === 'static' ? STATIC_SECONDS : 0) +
    (c.cold ? coldRounds * c.cold.length * COLD_CHILD_SECONDS : 0);
}

/** Progress of one run over a list of cases. */
class Progress {
  /**
   * @param {Array<{id: string, budget: number}>} cases Cases in run order with their expected seconds
   * @param {NodeJS.WritableStream} [out] Where to write (stderr)
   */
  constructor(cases, out = process.stderr) {
    this._cases = cases;
    this._out = out;
    this._started = Date.now();
    this._caseStarted = 0;
    this._done = 0;
    this._budgetDone = 0;
  }

  /**
   * Seconds since the run started.
   * @returns {number} Seconds
   */
  elapsed() {
    return (Date.now() - this._started) / 1000;
  }

  /**
   * Estimated seconds left, from the budget of the cases not yet done.
   * @returns {number} Seconds
   */
  _left() {
    const budgetLeft = this._cases.slice(this._done).reduce((sum, c) => sum + c.budget, 0);
    const pace = this._done ? this.elapsed() / this._budgetDone : 1;
    return budgetLeft * pace;
  }

  /**
   * The opening line.
   * @param {string} what What the run does
   * @returns {undefined}
   */
  start(what) {
    this._out.write(`${what}; about ${format.duration(this._left())} (progress on stderr, results on stdout)\n`);
  }

  /**
   * The next case starts.
   * @param {string} text What it does
   * @returns {undefined}
   */
  caseStart(text) {
    this._caseStarted = Date.now();
    this._out.write(`${this._prefix()} ${text}; ${format.duration(this.elapsed())} elapsed, about ${format.duration(this._left())} left\n`);
  }

  /**
   * The case that started last has ended.
   * @returns {undefined}
   */
  caseEnd() {
    const prefix = this._prefix();
    const took = (Date.now() - this._caseStarted) / 1000;
    this._budgetDone += this._cases[this._done].budget;
    this._done += 1;
    const rest = this._done < this._cases.length ? `about ${format.duration(this._left())} left` : 'all cases done';
    this._out.write(`${prefix}: done in ${format.duration(took)}; ${format.duration(this.elapsed())} elapsed, ${rest}\n`);
  }

  /**
   * `[k/n] id` of the case under way.
   * @returns {string} Prefix
   */
  _prefix() {
    return `[${this._done + 1}/${this._cases.length}] ${this._cases[this._done].id}`;
  }
}

module.exports = { Progress, budgetOf };
