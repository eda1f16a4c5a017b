'use strict';

/**
 * The batch processes of both JS-side fuzzers (fuzz/js and fuzz/schemas), both ends: the parent
 * runs each batch.js in a child process that prints one JSON message a line (`send`); a process
 * silent for too long counts as hung and is killed, so a crash or a hang of the code under test
 * never takes the fuzzer down with it.
 */

const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawn } = require('child_process');

/**
 * Seconds a batch process may take to load before its silence counts as a hang: loading Node and
 * the modules takes seconds under an emulator (test:cross) or on a busy machine, so the stall
 * counts from the first output (each batch.js says `ready` once loaded).
 */
const STARTUP_SECONDS = 120;
/**
 * A stall (seconds) that a healthy batch does not reach: `STALL_MARGIN` times the longest silence
 * (`runBatch`'s `longestSilence`) of healthy batches run just before on the same machine, so that
 * it grows with the machine's load (and an emulator's slowness), and at least `STALL_FLOOR`. The
 * hang self-tests (test/fuzz-js.test.js, test/fuzz-schemas.test.js) use it; each hang they plant
 * costs two or three stalls of waiting. On a 2-core machine the healthy batches before them went
 * silent for at most 0.28 s (fuzz:js: its first 100 sequences in a cold process) and 0.11 s
 * (fuzz:schemas: one case), and 0.75 s and 0.11 s at a load average of 4 (two busy loops beside
 * other work): the stall (3 and 4 s) stays 5 to 27 times above them, where the fixed 5 s and 2 s
 * it replaced did not grow with the load.
 */
const STALL_MARGIN = 5;
const STALL_FLOOR = 3;

/**
 * @param {number} longestSilence Milliseconds: the longest silence of the healthy batches measured
 * @returns {number} Seconds of silence that count as a hang
 */
function stallOver(longestSilence) {
  return Math.max(STALL_FLOOR, Math.ceil(STALL_MARGIN * longestSilence / 1000));
}

/** The end of a batch's stderr that a report keeps. */
const STDERR_KEPT = 20000;

/**
 * Runs one batch process to its end.
 * @param {string} script The batch.js to run
 * @param {string[]} argv Its arguments
 * @param {Object<string, string>} env Variables on top of this process's
 * @param {{stall: number, onLine?: function(object): undefined}} options Seconds without output
 * before it counts as hung; a handler for each message
 * @returns {Promise<{messages: object[], code: number|null, signal: string|null, hung: boolean,
 *   stderr: string, longestSilence: number}>} What happened; `longestSilence`: the longest time (ms)
 *   between two outputs, from the first (what a hang's `stall` must stay well above)
 */
function runBatch(script, argv, env, options) {
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, ['--max-old-space-size=2048', script, ...argv], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const messages = [];
    let pending = '';
    let stderr = '';
    let hung = false;
    let timer = null;
    let last = null;
    let longestSilence = 0;
    const arm = (seconds) => {
      const now = Date.now();
      if (last !== null) longestSilence = Math.max(longestSilence, now - last);
      last = now;
      clearTimeout(timer);
      timer = setTimeout(() => {
        hung = true;
        proc.kill('SIGKILL');
      }, 1000 * seconds);
    };
    arm(Math.max(options.stall, STARTUP_SECONDS));
    last = null; // silences count from the first output
    proc.stdout.on('data', (chunk) => {
      arm(options.stall);
      pending += chunk;
      let nl;
      while ((nl = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        if (!line) continue;
        const message = JSON.parse(line);
        messages.push(message);
        if (options.onLine) options.onLine(message);
      }
    });
    proc.stderr.on('data', (chunk) => {
      arm(options.stall);
      stderr = (stderr + chunk).slice(-STDERR_KEPT);
    });
    proc.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ messages, code, signal, hung, stderr, longestSilence });
    });
  });
}

/**
 * Calls `run` with the path of a temporary JSON file that holds `value`, and removes the file after.
 * @param {string} prefix Start of the file's name (the fuzzer's)
 * @param {*} value Value
 * @param {function(string): Promise<object>} run Runs a batch with the file
 * @returns {Promise<object>} What `run` resolved to
 */
async function withJsonFile(prefix, value, run) {
  const file = path.join(os.tmpdir(), `${prefix}-${process.pid}-${Math.random().toString(36).slice(2)}.json`);
  fs.writeFileSync(file, JSON.stringify(value));
  try {
    return await run(file);
  } finally {
    fs.unlinkSync(file);
  }
}

/**
 * Runs `tasks` (each with a `count`), `jobs` at a time, until none is left; a task may push more
 * onto `tasks` as it ends (the rest of a batch that died). Once `deadline` has passed no task
 * starts: those left are counted.
 * @param {Array<{count: number}>} tasks Tasks, taken from the front
 * @param {number} jobs How many run at once
 * @param {number} deadline Time (ms since the epoch) after which none starts
 * @param {function(object): Promise<*>} runTask Runs one
 * @param {function(number): undefined} onTimeUp Told the count of what was not started
 * @returns {Promise<number>} The count not started
 */
async function runTasks(tasks, jobs, deadline, runTask, onTimeUp) {
  const running = new Set();
  let unstarted = 0;
  while (tasks.length > 0 || running.size > 0) {
    if (Date.now() > deadline && tasks.length > 0) {
      unstarted = tasks.reduce((sum, t) => sum + t.count, 0);
      tasks.length = 0;
      onTimeUp(unstarted);
      if (running.size === 0) break;
    }
    while (tasks.length > 0 && running.size < jobs) {
      const p = runTask(tasks.shift()).finally(() => running.delete(p));
      running.add(p);
    }
    await Promise.race(running);
  }
  return unstarted;
}

/**
 * A batch's command line: `--some-flag value` becomes `someFlag: value` (a number when it is an
 * integer), a flag without a value `true`.
 * @param {string[]} argv Arguments
 * @param {object} defaults Values of options not given
 * @returns {object} Options
 */
function parseArgs(argv, defaults = {}) {
  const out = { ...defaults };
  for (let i = 0; i < argv.length; i++) {
    const key = argv[i].replace(/^--/, '').replace(/-(\w)/g, (_, c) => c.toUpperCase());
    const next = argv[i + 1];
    if (next === undefined || next.startsWith('--')) out[key] = true;
    else {
      out[key] = /^-?\d+$/.test(next) ? Number(next) : next;
      i++;
    }
  }
  return out;
}

/**
 * Sends one message from a batch to the parent: a line on stdout, written synchronously so that
 * it is out before a crash.
 * @param {object} message To the parent
 * @returns {undefined}
 */
function send(message) {
  fs.writeSync(1, `${JSON.stringify(message)}\n`);
}

module.exports = { runBatch, withJsonFile, runTasks, parseArgs, send, stallOver };
