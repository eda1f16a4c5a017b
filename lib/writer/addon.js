'use strict';

/**
 * Finding and loading the native addon, and, when none loads, one sentence that names why and what
 * fixes it.
 *
 * The addon for a platform is a file `protobufjs-rustwriter.<platform>.node`, at the package root
 * in a git clone (`npm install` builds it there with cargo), or in the optional dependency
 * `protobufjs-rustwriter-<platform>` that npm installs for the platform it runs on. Bundled into
 * an app's one file (esbuild, webpack), this code is no longer in the package, so it looks in the
 * bundle's own folder only, in the two layouts napi-rs documents for bundles: the platform package
 * deployed beside the bundle (`node_modules/protobufjs-rustwriter-<platform>/`), or its `.node`
 * file copied there; never in a folder above the bundle's, which is outside the app. This loader
 * takes the place of the one napi-rs can generate (the build asks for none, `--no-js`, and only for
 * its types, binding.d.ts): that one reads environment variables and `/usr/bin/ldd`, which Deno
 * refuses without `--allow-env` and which some containers lack, and its error always gives npm's
 * optional dependencies bug as the cause.
 */

const fs = require('fs');
const { createRequire } = require('module');
const path = require('path');
const { envVar } = require('../env');

const NAME = 'protobufjs-rustwriter';
const { version: VERSION, bugs: BUGS, optionalDependencies: PLATFORM_PACKAGES } = require('../../package.json');

/**
 * The file this code runs from: lib/writer/addon.js of the package, or the bundle it was bundled
 * into (both esbuild and webpack keep `__filename` the output file's under Node); null where the
 * runtime gives none (an ES module bundle without a `__filename` of its own).
 */
const HERE = typeof __filename === 'string' ? __filename : null;
/** Whether this code runs from the package's own files rather than from a bundle. */
const IN_PACKAGE = HERE !== null && HERE.endsWith(`${path.sep}lib${path.sep}writer${path.sep}addon.js`);
/** The package root (null in a bundle). */
const ROOT = IN_PACKAGE ? path.join(path.dirname(HERE), '..', '..') : null;
/** The folder of the bundle this code was bundled into (null outside a bundle, or where unknown). */
const BUNDLE_DIR = !IN_PACKAGE && HERE !== null ? path.dirname(HERE) : null;
/**
 * Node's own `require`, relative to this file: a bundler's `require` (webpack's) cannot load a
 * file it did not bundle, and an addon is never bundled.
 */
const nodeRequire = createRequire(HERE !== null ? HERE : path.join(process.cwd(), 'bundle.js'));

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
 * The C library of this Linux process: under Deno, the one Deno was built for (`Deno.build.env`),
 * since its process report needs `--allow-sys` and asks for it at a terminal; elsewhere from the
 * process report; else from the musl dynamic loader's file in /lib.
 * @returns {'gnu'|'musl'|null} Which, or null when none tells
 */
function linuxLibc() {
  const deno = globalThis.Deno;
  if (deno !== undefined && deno !== null) {
    const env = deno.build && deno.build.env;
    if (env === 'gnu' || env === 'musl') return env;
  } else {
    try {
      const report = process.report.getReport();
      if (report.header && report.header.glibcVersionRuntime) return 'gnu';
      if (Array.isArray(report.sharedObjects) && report.sharedObjects.some((file) => /(?:libc\.musl-|ld-musl-)/.test(file))) {
        return 'musl';
      }
    } catch {
      // no report here: look at the files
    }
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
 * Where to look for the addon of one platform, in order: in the package, its file at the package
 * root, then its platform package as Node resolves it from here (in node_modules, as npm, pnpm,
 * yarn and Bun install it); in a bundle, its platform package in the bundle's folder's
 * node_modules, then its file beside the bundle.
 * @param {string} platform A platform name of PREBUILT
 * @returns {string[]} Module ids (absolute paths, or a package name)
 */
function placesFor(platform) {
  if (ROOT !== null) return [path.join(ROOT, `${NAME}.${platform}.node`), `${NAME}-${platform}`];
  if (BUNDLE_DIR === null) return [];
  return [path.join(BUNDLE_DIR, 'node_modules', `${NAME}-${platform}`), path.join(BUNDLE_DIR, `${NAME}.${platform}.node`)];
}

/**
 * Loads the addon: `NAPI_RS_NATIVE_LIBRARY_PATH` if set (napi-rs's override), else, for each
 * platform name to try here, the places `placesFor` gives.
 * @returns {{binding: object|null, failures: Array<{id: string, err: *}>}} The addon's exports,
 * or null and what was tried (modules that do not exist are not listed)
 */
function load() {
  const failures = [];
  const attempt = (id) => {
    try {
      return nodeRequire(id);
    } catch (err) {
      if (!notFound(err) || !String(err.message).includes(id)) failures.push({ id, err });
      return null;
    }
  };
  const override = envVar('NAPI_RS_NATIVE_LIBRARY_PATH');
  if (override) return { binding: attempt(override), failures };
  for (const platform of candidates()) {
    for (const id of placesFor(platform)) {
      const binding = attempt(id);
      if (binding !== null) return { binding, failures };
    }
  }
  return { binding: null, failures };
}

/**
 * The lockfile of the npm project that installed this package, if any: looked for from the folder
 * that holds the innermost `node_modules` up to the one that holds the outermost, the app's own
 * folder, and never above it.
 * @returns {{file: string, text: string}|null} Its path and text
 */
function projectLockfile() {
  const marker = `${path.sep}node_modules${path.sep}`;
  const inner = ROOT.lastIndexOf(marker);
  if (inner < 0) return null;
  // path.resolve keeps a root folder's separator ('/', 'C:\\') and drops any other's.
  const app = path.resolve(ROOT.slice(0, ROOT.indexOf(marker) + 1));
  for (let dir = path.resolve(ROOT.slice(0, inner + 1)); dir.length >= app.length; dir = path.dirname(dir)) {
    for (const name of ['package-lock.json', 'npm-shrinkwrap.json']) {
      try {
        const file = path.join(dir, name);
        return { file, text: fs.readFileSync(file, 'utf8') };
      } catch {
        // not here
      }
    }
    if (path.dirname(dir) === dir) break;
  }
  return null;
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
  const wanted = `${NAME}-${names[0]}`;
  if (ROOT === null) return whyNotBeside(wanted, names[0]);
  if (!ROOT.includes(`${path.sep}node_modules${path.sep}`)) {
    return `this checkout has no addon built for ${platform}: npm install builds it, given a Rust toolchain (cargo)`;
  }
  if (PLATFORM_PACKAGES === undefined) {
    // package.json names the platform packages only in the tarball `npm run pack` makes; the
    // repository refuses a plain `npm pack` (scripts/prepack.js), but --ignore-scripts gets past it.
    return `this ${NAME} lists no platform packages, as a plain npm pack of its git repository leaves them out: install ` +
      `the published package, or the tarballs \`npm run pack\` makes in dist/ of the clone (see its docs/platforms.md)`;
  }
  const lockfile = projectLockfile();
  const locked = lockfile === null ? null : lockedPlatforms(lockfile.text);
  if (locked !== null && !locked.includes(names[0])) return whyNotLocked(lockfile.file, wanted, locked);
  const npmSaw = libc === null ? null : npmLibc();
  if (locked !== null && npmSaw !== libc) {
    // npm's platform check failed the package's `libc` field: npm install --include=optional
    // does not help, the libc setting does (npm 10.1 and later).
    const libcName = (l) => ({ gnu: 'glibc', musl: 'musl' }[l]);
    return `its package, ${wanted}, is not installed: ${path.basename(lockfile.file)} lists it, but npm took this ` +
      `${libcName(libc)} system for ${npmSaw === null ? 'neither glibc nor musl' : libcName(npmSaw)}, as /usr/bin/ldd reads, ` +
      `so it skipped the package: npm config set libc=${libcName(libc)} --location=project && npm install`;
  }
  if (locked !== null) {
    return `its package, ${wanted}, is not installed, though ${path.basename(lockfile.file)} lists it: npm leaves out ` +
      'optional dependencies when told to (--omit=optional, or omit=optional in its config), and skips without a word one ' +
      `it cannot fetch (then npm install ${wanted}@${VERSION} says why): npm install --include=optional`;
  }
  return `its package, ${wanted}, is not installed (an optional dependency, which the package manager skipped): ` +
    `install ${wanted}@${VERSION}`;
}

/**
 * The platform packages an npm lockfile (`lockfileVersion` 2 or 3) has an entry for, found in its
 * text as `"node_modules/protobufjs-rustwriter-<platform>"` keys, at any depth.
 * @param {string} text The lockfile's text
 * @returns {string[]|null} Their platform names, or null for a lockfile npm 6 or older wrote (no
 * `packages`), which tells nothing of this
 */
function lockedPlatforms(text) {
  if (!/"packages"\s*:/.test(text)) return null;
  return Object.values(PREBUILT).flat().filter((platform) => text.includes(`node_modules/${NAME}-${platform}"`));
}

/**
 * Why the app's npm lockfile has no entry for this platform's package, from the entries it has
 * for the others. npm records no version of its own in a lockfile (npm 9 to 11 all write
 * `lockfileVersion` 3), but the entries tell: an npm that can fetch the platform packages lists
 * every one of them, whatever platform it runs on, except npm before 11.3 rewriting a lockfile
 * over an existing node_modules (npm/cli#4828), which lists only those it installed there, the
 * packages of one os and cpu. So entries for one os and cpu only are that bug's; entries for
 * none, or for several but not this one, mean npm could not fetch this one and skipped it.
 * @param {string} file The lockfile's path
 * @param {string} wanted This platform's package
 * @param {string[]} locked The platform names it lists (lockedPlatforms)
 * @returns {string} One sentence, without a final period
 */
function whyNotLocked(file, wanted, locked) {
  const lockName = path.basename(file);
  const machineOf = (platform) => Object.keys(PREBUILT).find((key) => PREBUILT[key].includes(platform));
  const machines = new Set(locked.map(machineOf));
  if (machines.size === 1) {
    return `its package, ${wanted}, is not installed: ${lockName} lists only ${locked.map((p) => `${NAME}-${p}`).join(' and ')} ` +
      'of its platform packages, as npm before 11.3 writes it when it runs on another platform over an existing ' +
      'node_modules (npm/cli#4828); npm 11.3 or later lists them all and installs this one: npx npm@11 install';
  }
  return `its package, ${wanted}, is not installed: ${lockName} lists ${locked.length === 0 ? 'none' : 'others but not this one'} ` +
    'of its platform packages, so npm could not fetch it (not published to the registry npm uses, or no network, or a ' +
    'proxy or mirror without it) and skipped it without a word, as it does an optional dependency it cannot fetch: ' +
    `npm install ${wanted}@${VERSION}`;
}

/**
 * Why a bundle has no addon: neither layout is in its folder.
 * @param {string} wanted The platform package to deploy
 * @param {string} platform Its platform name
 * @returns {string} One sentence, without a final period
 */
function whyNotBeside(wanted, platform) {
  if (BUNDLE_DIR === null) {
    return `${NAME} was bundled into code that has no __filename, so it cannot tell where the bundle is: set ` +
      'NAPI_RS_NATIVE_LIBRARY_PATH to the addon\'s file, or keep the package out of the bundle (README, "Bundlers and serverless")';
  }
  return `${NAME} was bundled into ${HERE}, and that folder has neither node_modules/${wanted} nor ` +
    `${NAME}.${platform}.node: copy node_modules/${wanted} of an install on this platform into that folder, or keep ` +
    `${NAME} out of the bundle (README, "Bundlers and serverless")`;
}

module.exports = { PREBUILT, load, refused, whyNoAddon };
