'use strict';

/**
 * `npm run fuzz [-- options]`: runs the libFuzzer target over the native run encoder (fuzz/,
 * target `runs`) through cargo-fuzz, seeded with the committed corpus (fuzz/corpus/runs, which it
 * only reads: new inputs go to a temporary directory).
 *
 *   --runs N     executions (default 5,000,000: the short run CI does, under a minute once built)
 *   --time S     stop after S seconds instead (libFuzzer's -max_total_time)
 *   --seed N     libFuzzer seed (default 1, so CI's run is reproducible; 0 = random)
 *   --asan       AddressSanitizer on a nightly toolchain (`cargo +nightly`); without it the
 *                target is built with the active (stable) toolchain, coverage and debug
 *                assertions but no sanitizer, which cargo-fuzz supports on stable
 *
 * cargo-fuzz is used from the PATH if there; otherwise it is installed once, pinned and --locked
 * from crates.io, into fuzz/target/tools (ignored by git), never into the user's cargo home.
 * A crash exits non-zero and libFuzzer prints the input and its file under fuzz/artifacts/.
 */

const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const ROOT = path.join(__dirname, '..');
const CORPUS = path.join(ROOT, 'fuzz', 'corpus', 'runs');
const TOOLS = path.join(ROOT, 'fuzz', 'target', 'tools');
const CARGO_FUZZ_VERSION = '0.13.2';

/**
 * @param {string[]} argv Command-line arguments
 * @returns {{runs: number, time: number, seed: number, asan: boolean}} Options
 */
function parse(argv) {
  const options = { runs: 5e6, time: 0, seed: 1, asan: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--asan') options.asan = true;
    else if (arg === '--runs' || arg === '--time' || arg === '--seed') {
      const value = Number(argv[++i]);
      if (!Number.isSafeInteger(value) || value < 0) throw new Error(`${arg} needs a non-negative integer`);
      options[arg.slice(2)] = value;
    } else {
      throw new Error(`unknown option ${arg} (see the comment at the top of scripts/fuzz.js)`);
    }
  }
  if (options.time > 0 && !argv.includes('--runs')) options.runs = 0;
  return options;
}

/**
 * Runs a command with inherited output.
 * @param {string} command Program
 * @param {string[]} args Arguments
 * @param {object} env Environment
 * @returns {number} Exit status
 */
function run(command, args, env) {
  process.stdout.write(`$ ${command} ${args.join(' ')}\n`);
  const child = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit', env });
  if (child.error) throw child.error;
  return child.status === null ? 1 : child.status;
}

/**
 * @param {object} env Environment
 * @returns {boolean} Whether `cargo fuzz` runs with this environment
 */
function hasCargoFuzz(env) {
  const probe = spawnSync('cargo', ['fuzz', '--version'], { cwd: ROOT, env, encoding: 'utf8' });
  return !probe.error && probe.status === 0;
}

function main() {
  const options = parse(process.argv.slice(2));
  const env = { ...process.env, PATH: `${path.join(TOOLS, 'bin')}${path.delimiter}${process.env.PATH}` };
  if (!hasCargoFuzz(env)) {
    const status = run('cargo', ['install', '--locked', '--version', CARGO_FUZZ_VERSION, '--root', TOOLS, 'cargo-fuzz'], env);
    if (status !== 0 || !hasCargoFuzz(env)) {
      process.stderr.write(`fuzz: could not install cargo-fuzz ${CARGO_FUZZ_VERSION} into ${TOOLS}\n`);
      return 1;
    }
  }
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'rustwriter-fuzz-'));
  try {
    const toolchain = options.asan ? ['+nightly'] : [];
    const sanitizer = options.asan ? [] : ['--sanitizer', 'none'];
    const libfuzzer = [`-seed=${options.seed}`, '-print_final_stats=1'];
    if (options.runs > 0) libfuzzer.push(`-runs=${options.runs}`);
    if (options.time > 0) libfuzzer.push(`-max_total_time=${options.time}`);
    return run('cargo', [...toolchain, 'fuzz', 'run', ...sanitizer, 'runs', scratch, CORPUS, '--', ...libfuzzer], env);
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

process.exitCode = main();
