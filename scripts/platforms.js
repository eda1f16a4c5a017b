'use strict';

/**
 * The platforms, how each addon is built on a Linux x64 machine, and the tools that takes,
 * installed on first use from the package registries only (rustup, PyPI, Debian, npm) into
 * `target/cross/` (ignored by git, like all of target/), so later runs reuse them. Used by
 * scripts/build-all.js, scripts/test-cross.js and scripts/test-pack.js.
 */

const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const ROOT = path.join(__dirname, '..');
const CACHE = path.join(ROOT, 'target', 'cross');
const { napi } = require('../package.json');

/** Pinned tool versions: a new version is a deliberate change here, not a surprise in CI. */
const ZIGLANG = '0.17.1';
const CARGO_ZIGBUILD = '0.24.0';
/**
 * Node for the emulated runs, from the npm registry: the release the CI machine runs (20.x) where
 * the registry has it; for armv7, whose package the registry stopped at 20.11.0, that one.
 */
const NODE_VERSION = '20.20.2';
const NODE_ARMV7_VERSION = '20.11.0';

/**
 * One entry per platform package (npm/<platform>). `triple` is the Rust target that is compiled,
 * `cargoTarget` what is given to `napi build --target` (zig's `.2.17` suffix sets the glibc floor),
 * `via` the linker: `zig` (`napi build -x`, cargo-zigbuild), `zig-cc` (zig as the linker of a
 * plain `napi build`, for a target `-x` refuses) or `mingw` (Debian's mingw-w64, `mingw` its
 * tool prefix). `loaderTriple` is the napi target whose file and package name the loader looks
 * for, where it differs from what is compiled. `glibc`, `freebsd` and `macos` are the oldest
 * release each loads on (test:cross checks them); `run` says where test:cross runs it.
 */
const PLATFORMS = [
  { platform: 'linux-x64-gnu', triple: 'x86_64-unknown-linux-gnu', cargoTarget: 'x86_64-unknown-linux-gnu.2.17', via: 'zig', glibc: '2.17' },
  { platform: 'linux-arm64-gnu', triple: 'aarch64-unknown-linux-gnu', cargoTarget: 'aarch64-unknown-linux-gnu.2.17', via: 'zig', glibc: '2.17' },
  { platform: 'linux-x64-musl', triple: 'x86_64-unknown-linux-musl', cargoTarget: 'x86_64-unknown-linux-musl', via: 'zig' },
  { platform: 'linux-arm64-musl', triple: 'aarch64-unknown-linux-musl', cargoTarget: 'aarch64-unknown-linux-musl', via: 'zig' },
  // 32-bit Arm, hard-float ABI (Raspberry Pi OS and Debian armhf): ARMv7-A with NEON is the
  // baseline of Rust's target; the varint kernel here is the scalar one.
  { platform: 'linux-arm-gnueabihf', triple: 'armv7-unknown-linux-gnueabihf', cargoTarget: 'armv7-unknown-linux-gnueabihf.2.17', via: 'zig', glibc: '2.17' },
  // FreeBSD's libc symbol versions: FBSD_1.5 is FreeBSD 12.0.
  { platform: 'freebsd-x64', triple: 'x86_64-unknown-freebsd', cargoTarget: 'x86_64-unknown-freebsd', via: 'zig', freebsd: '1.5' },
  { platform: 'darwin-x64', triple: 'x86_64-apple-darwin', cargoTarget: 'x86_64-apple-darwin', via: 'zig', macos: '10.13' },
  { platform: 'darwin-arm64', triple: 'aarch64-apple-darwin', cargoTarget: 'aarch64-apple-darwin', via: 'zig', macos: '11.0' },
  // Named win32-*-msvc because those are the files and packages the loader (lib/writer/addon.js) looks
  // for on Windows; compiled for the GNU ABI targets (docs/platforms.md "Windows, honestly"):
  // x64 and ia32 with mingw-w64, arm64 (aarch64-pc-windows-gnullvm, the LLVM flavour of MinGW)
  // linked by zig, which ships the MinGW import libraries for arm64.
  { platform: 'win32-x64-msvc', triple: 'x86_64-pc-windows-gnu', cargoTarget: 'x86_64-pc-windows-gnu', via: 'mingw', mingw: 'x86_64-w64-mingw32', loaderTriple: 'x86_64-pc-windows-msvc' },
  { platform: 'win32-ia32-msvc', triple: 'i686-pc-windows-gnu', cargoTarget: 'i686-pc-windows-gnu', via: 'mingw', mingw: 'i686-w64-mingw32', loaderTriple: 'i686-pc-windows-msvc' },
  { platform: 'win32-arm64-msvc', triple: 'aarch64-pc-windows-gnullvm', cargoTarget: 'aarch64-pc-windows-gnullvm', via: 'zig-cc', zigTarget: 'aarch64-windows-gnu', loaderTriple: 'aarch64-pc-windows-msvc' },
];
for (const p of PLATFORMS) {
  p.file = `${napi.binaryName}.${p.platform}.node`;
  if (!napi.targets.includes(p.loaderTriple || p.triple)) throw new Error(`${p.triple} is not in package.json napi.targets`);
}
if (PLATFORMS.length !== napi.targets.length) throw new Error('package.json napi.targets and scripts/platforms.js disagree');

/**
 * Runs a command with inherited output; throws on failure.
 * @param {string} command Program
 * @param {string[]} args Arguments
 * @param {object} [options] spawnSync options
 */
function run(command, args, options = {}) {
  process.stdout.write(`$ ${command} ${args.join(' ')}\n`);
  const child = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit', ...options });
  if (child.error) throw child.error;
  if (child.status !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${child.status ?? child.signal}`);
}

/**
 * @param {string} command Program
 * @param {string[]} args Arguments
 * @param {object} [options] spawnSync options
 * @returns {string|null} Its stdout, or null if it could not run or failed
 */
function probe(command, args, options = {}) {
  const child = spawnSync(command, args, { encoding: 'utf8', ...options });
  return child.error || child.status !== 0 ? null : child.stdout;
}

/** @returns {boolean} Whether a command is on the PATH */
function has(command) {
  return probe('sh', ['-c', `command -v ${command}`]) !== null;
}

/**
 * Installs Debian packages when missing (`commands`: one program each provides, to tell). As root
 * through apt-get; otherwise throws with the command to run.
 * @param {string[]} packages Debian package names
 * @param {() => boolean} present Whether they are already there
 * @param {string} why What they are for
 */
function ensureApt(packages, present, why) {
  if (present()) return;
  if (process.platform !== 'linux' || typeof process.getuid !== 'function' || process.getuid() !== 0 || !has('apt-get')) {
    throw new Error(`${why} needs the Debian packages ${packages.join(' ')}: run as root \`apt-get install ${packages.join(' ')}\`` +
      ' (or your distribution\'s equivalent), then run this again');
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  run('apt-get', ['update', '-qq'], { env });
  run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...packages], { env });
  if (!present()) throw new Error(`apt-get installed ${packages.join(' ')}, but ${why} still lacks them`);
}

/** Adds the Rust targets `rustup` lacks (rust-std from the Rust distribution server). */
function ensureRustTargets(triples) {
  const installed = (probe('rustup', ['target', 'list', '--installed'], { cwd: ROOT }) || '').split('\n');
  const missing = triples.filter((t) => !installed.includes(t));
  if (missing.length) run('rustup', ['target', 'add', ...missing]);
}

/**
 * zig and cargo-zigbuild from PyPI into a venv under target/cross (cargo-zigbuild runs zig as
 * `python3 -m ziglang`, so the venv's bin goes first on the PATH).
 * @returns {string} The venv's bin directory
 */
function ensureZig() {
  const venv = path.join(CACHE, 'venv');
  const bin = path.join(venv, 'bin');
  const stamp = path.join(venv, `.ziglang-${ZIGLANG}-cargo-zigbuild-${CARGO_ZIGBUILD}`);
  if (!fs.existsSync(stamp)) {
    if (probe('python3', ['-m', 'venv', '--help']) === null || probe('python3', ['-c', 'import ensurepip']) === null) {
      ensureApt(['python3', 'python3-venv'], () => probe('python3', ['-c', 'import venv, ensurepip']) !== null, 'a venv for zig');
    }
    fs.rmSync(venv, { recursive: true, force: true });
    run('python3', ['-m', 'venv', venv]);
    run(path.join(bin, 'pip'), ['install', '-q', '--disable-pip-version-check', `ziglang==${ZIGLANG}`, `cargo-zigbuild==${CARGO_ZIGBUILD}`]);
    fs.writeFileSync(stamp, '');
  }
  return bin;
}

/**
 * mingw-w64's gcc and binutils for a tool prefix (`x86_64-w64-mingw32`, `i686-w64-mingw32`): the
 * linker rustc uses for *-pc-windows-gnu, and strip.
 * @param {string} [prefix] Tool prefix
 */
function ensureMingw(prefix = 'x86_64-w64-mingw32') {
  const arch = prefix.split('-')[0].replace(/_/g, '-');
  ensureApt([`gcc-mingw-w64-${arch}`, `binutils-mingw-w64-${arch}`],
    () => has(`${prefix}-gcc`) && has(`${prefix}-strip`), `the Windows build (${prefix})`);
}

/**
 * An npm package's tarball extracted under target/cross/npm/<name>-<version>, fetched with
 * `npm pack` (which checks its integrity against the registry) and never installed, so its
 * os/cpu fields and scripts do not matter.
 * @param {string} name Package name
 * @param {string} version Exact version
 * @returns {string} The extracted `package` directory
 */
function npmPackage(name, version) {
  const dir = path.join(CACHE, 'npm', `${name}-${version}`);
  const pkgDir = path.join(dir, 'package');
  if (fs.existsSync(path.join(pkgDir, 'package.json'))) return pkgDir;
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const cli = process.env.npm_execpath;
  const [command, prefix] = cli ? [process.execPath, [cli]] : ['npm', []];
  const out = spawnSync(command, [...prefix, 'pack', '--silent', `${name}@${version}`], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (out.status !== 0) throw new Error(`npm pack ${name}@${version} failed`);
  const tarball = out.stdout.trim().split('\n').pop();
  run('tar', ['-xzf', tarball], { cwd: dir });
  fs.rmSync(path.join(dir, tarball));
  return pkgDir;
}

module.exports = {
  ROOT, CACHE, PLATFORMS, NODE_VERSION, NODE_ARMV7_VERSION,
  run, probe, has, ensureApt, ensureRustTargets, ensureZig, ensureMingw, npmPackage,
};
