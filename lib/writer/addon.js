'use strict';

/**
 * Finding and loading the native addon, and, when none loads, one sentence that names why and what
 * fixes it.
 *
 * The addon for a platform is a file `protobufjs-rustwriter.<platform>.node`, at the package root
 * in a git clone (`npm install` builds it there with cargo), or in the optional dependency
 * `protobufjs-rustwriter-<platform>` that npm installs for the platform it runs on. This loader
 * replaces the one napi-rs generates (binding.js, kept for its types and for napi's tooling):
 * that one reads environment variables and `/usr/bin/ldd`, which Deno refuses without
 * `--allow-env` and which some containers lack, and its error always gives npm's optional
 * dependencies bug as the cause.
 */

const fs = require('fs');
const path = require('path');
const { envVar } = require('../env');

const NAME = 'protobufjs-rustwriter';
const ROOT = path.join(__dirname, '..', '..');
const { version: VERSION, bugs: BUGS } = require('../../package.json');

/**
 * The prebuilt addons, by `process.platform-process.arch`: napi-rs's names for the targets of
 * package.json `napi.targets` (test/addon.test.js checks the two agree). On Linux the C library
 * decides between `-gnu`/`-gnueabihf` (glibc) and `-musl`.
 */
const PREBUILT = {
  'linux-x64': ['linux-x64-gnu', 'linux-x64-musl'],
  'linux-arm64': ['linux-arm64-gnu', 'linux-arm64-musl'],
  'linux-arm': ['linux-arm-gnueabihf'],
  'freebsd-x64': ['freebsd-x64'],
  'darwin-x64': ['darwin-x64'],
  'darwin-arm64': ['darwin-arm64'],
  'win32-x64': ['win32-x64-msvc'],
  'win32-ia32': ['win32-ia32-msvc'],
  'win32-arm64': ['win32-arm64-msvc'],
};

/**
 * @param {string} name A Linux platform name of PREBUILT
 * @returns {'gnu'|'musl'} The C library its addon is linked against
 */
function libcOf(name) {
  return name.endsWith('-musl') ? 'musl' : 'gnu';
}

/**
 * The C library of this Linux process, from the process report (Deno refuses it without
 * `--allow-sys`) or the musl dynamic loader's file in /lib.
 * @returns {'gnu'|'musl'|null} Which, or null when neither tells
 */
function linuxLibc() {
  try {
    const report = process.report.getReport();
    if (report.header && report.header.glibcVersionRuntime) return 'gnu';
    if (Array.isArray(report.sharedObjects) && report.sharedObjects.some((file) => /(?:libc\.musl-|ld-musl-)/.test(file))) {
      return 'musl';
    }
  } catch {
    // no report here: look at the files
  }
  try {
    return fs.readdirSync('/lib').some((file) => file.startsWith('ld-musl-')) ? 'musl' : null;
  } catch {
    return null;
  }
}

/**
 * @returns {string[]} The platform names to try here, the likeliest first: on Linux those of this
 * process's C library (glibc when neither tells), then the others, in case the detection erred
 */
function candidates() {
  const names = PREBUILT[`${process.platform}-${process.arch}`] || [];
  if (process.platform !== 'linux') return names;
  const libc = linuxLibc() || 'gnu';
  return [...names.filter((n) => libcOf(n) === libc), ...names.filter((n) => libcOf(n) !== libc)];
}

/**
 * @param {*} err What `require` threw
 * @returns {boolean} Whether it says the module does not exist
 */
function notFound(err) {
  return err !== null && typeof err === 'object' && err.code === 'MODULE_NOT_FOUND';
}

/**
 * @param {*} err What loading an addon threw
 * @returns {boolean} Whether the runtime refused to load native code (Deno without `--allow-ffi`,
 * Node's permission model without `--allow-addons`)
 */
function refused(err) {
  return err !== null && typeof err === 'object' && (err.name === 'NotCapable' || err.code === 'ERR_DLOPEN_DISABLED');
}

/**
 * @param {*} err An error
 * @returns {string} Its message's first line
 */
function firstLine(err) {
  return String(err && err.message !== undefined ? err.message : err).split('\n')[0];
}

/**
 * Loads the addon: `NAPI_RS_NATIVE_LIBRARY_PATH` if set (napi-rs's override), else, for each
 * platform name to try here, the file at the package root, then the platform package.
 * @returns {{binding: object|null, failures: Array<{id: string, err: *}>}} The addon's exports,
 * or null and what was tried (modules that do not exist are not listed)
 */
function load() {
  const failures = [];
  const attempt = (id) => {
    try {
      return require(id);
    } catch (err) {
      if (!notFound(err) || !String(err.message).includes(id)) failures.push({ id, err });
      return null;
    }
  };
  const override = envVar('NAPI_RS_NATIVE_LIBRARY_PATH');
  if (override) return { binding: attempt(override), failures };
  for (const platform of candidates()) {
    const binding = attempt(path.join(ROOT, `${NAME}.${platform}.node`)) || attempt(`${NAME}-${platform}`);
    if (binding !== null) return { binding, failures };
  }
  return { binding: null, failures };
}

/**
 * The lockfile of the npm project that installed this package, if any.
 * @returns {{file: string, text: string}|null} Its path and text
 */
function projectLockfile() {
  const marker = `${path.sep}node_modules${path.sep}`;
  const at = ROOT.lastIndexOf(marker);
  if (at < 0) return null;
  for (let dir = ROOT.slice(0, at); ; dir = path.dirname(dir)) {
    for (const name of ['package-lock.json', 'npm-shrinkwrap.json']) {
      try {
        const file = path.join(dir, name);
        return { file, text: fs.readFileSync(file, 'utf8') };
      } catch {
        // not here
      }
    }
    if (path.dirname(dir) === dir) return null;
  }
}

/**
 * The C library npm takes this Linux system for when it installs packages with a `libc` field
 * (npm 10 and 11, npm-install-checks): from the text of `/usr/bin/ldd` if that file exists, else
 * from the process report, as `linuxLibc` tells. Only the warning asks this, to tell when npm
 * skipped the platform package because it read `/usr/bin/ldd` otherwise than the loader reads
 * this process; the loader itself never reads that file.
 * @returns {'gnu'|'musl'|null} Which (null: npm recognizes neither, and installs neither package)
 */
function npmLibc() {
  let text;
  try {
    text = fs.readFileSync('/usr/bin/ldd', 'utf8');
  } catch {
    return linuxLibc();
  }
  return text.includes('musl') ? 'musl' : text.includes('GNU C Library') ? 'gnu' : null;
}

/**
 * Why no addon loaded, and the one thing that fixes it.
 * @param {Array<{id: string, err: *}>} failures What `load` tried and saw fail
 * @returns {string} One sentence, without a final period
 */
function whyNoAddon(failures) {
  const platform = `${process.platform}-${process.arch}`;
  const denial = failures.find((f) => refused(f.err));
  if (denial !== undefined) {
    return process.versions.deno !== undefined
      ? 'Deno did not allow native code: run deno with --allow-ffi (and --allow-read) to use the addon'
      : `the permission model does not allow native addons (${firstLine(denial.err)}): add --allow-addons to use the addon`;
  }
  const names = candidates();
  if (names.length === 0) {
    return `no prebuilt addon exists for ${platform} (prebuilt: ${Object.values(PREBUILT).flat().join(', ')}); ` +
      `a git clone of ${NAME} builds one with npm install, given a Rust toolchain`;
  }
  const libc = process.platform === 'linux' ? linuxLibc() : null;
  if (libc !== null && !names.some((n) => libcOf(n) === libc)) {
    // e.g. Alpine on 32-bit Arm: the glibc addon npm may have installed cannot load on musl.
    return `no prebuilt addon exists for ${platform} with ${libc === 'musl' ? 'musl' : 'glibc'} (prebuilt: ` +
      `${Object.values(PREBUILT).flat().join(', ')}); a git clone of ${NAME} builds one with npm install, given a Rust toolchain`;
  }
  if (failures.length > 0) {
    const { id, err } = failures[0];
    return `${path.isAbsolute(id) ? path.relative(process.cwd(), id) || id : id} is there but did not load ` +
      `(${firstLine(err)}); please report it at ${BUGS.url}`;
  }
  if (!ROOT.includes(`${path.sep}node_modules${path.sep}`)) {
    return `this checkout has no addon built for ${platform}: npm install builds it, given a Rust toolchain (cargo)`;
  }
  const wanted = `${NAME}-${names[0]}`;
  const lockfile = projectLockfile();
  if (lockfile !== null && !lockfile.text.includes(`node_modules/${wanted}"`)) {
    return `its package, ${wanted}, is not installed: ${path.basename(lockfile.file)} has no entry for it, as npm before ` +
      '11.3 writes when it runs on another platform (npm/cli#4828); npm 11.3 or later adds it: npx npm@11 install';
  }
  const npmSaw = libc === null ? null : npmLibc();
  if (lockfile !== null && npmSaw !== libc) {
    // npm's platform check failed the package's `libc` field: npm install --include=optional
    // does not help, the libc setting does (npm 10.1 and later).
    const libcName = (l) => ({ gnu: 'glibc', musl: 'musl' }[l]);
    return `its package, ${wanted}, is not installed: ${path.basename(lockfile.file)} lists it, but npm took this ` +
      `${libcName(libc)} system for ${npmSaw === null ? 'neither glibc nor musl' : libcName(npmSaw)}, as /usr/bin/ldd reads, ` +
      `so it skipped the package: npm config set libc=${libcName(libc)} --location=project && npm install`;
  }
  if (lockfile !== null) {
    return `its package, ${wanted}, is not installed: ${path.basename(lockfile.file)} lists it, so npm skipped optional ` +
      'dependencies (--omit=optional, or omit=optional in its config): npm install --include=optional';
  }
  return `its package, ${wanted}, is not installed (an optional dependency, which the package manager skipped): ` +
    `install ${wanted}@${VERSION}`;
}

module.exports = { PREBUILT, load, refused, whyNoAddon };
