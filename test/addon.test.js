'use strict';

/**
 * Finding the native addon (lib/writer/addon.js), and what the one warning says when none loads: for each
 * cause, the cause and the command that fixes it, never advice that does not fit. Each case runs
 * a copy of the package in a child process, placed as the case needs (a checkout,
 * `node_modules/protobufjs-rustwriter` of an app with or without a lockfile, or bundled into one
 * file by esbuild with the addon beside it or not).
 */

const assert = require('assert');
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { PREBUILT } = require('../lib/writer/addon');

const ROOT = path.join(__dirname, '..');
const { version, napi } = require('../package.json');
const PLATFORM = `${process.platform}-${process.arch}`;
/** The platform package npm would install here (on Linux, for this process's C library). */
const WANTED = `protobufjs-rustwriter-${(PREBUILT[PLATFORM] || ['none'])[0]}`;

/**
 * @param {object} table Platform names by `platform-arch`
 * @returns {object} The same, keys and names sorted
 */
const sorted = (table) => Object.fromEntries(Object.entries(table).map(([k, v]) => [k, v.slice().sort()]).sort());

/** Loads the package under test and prints whether the addon loaded. */
const LOAD = 'const { RustWriter } = require(process.env.UNDER_TEST); console.log(JSON.stringify({ native: RustWriter.native }));';

/**
 * A copy of the package without its addon, at `dir`. Installed (in a `node_modules`), its
 * package.json lists the platform packages as `npm run pack` writes them (scripts/pack.js); a
 * checkout's, or a plain `npm pack`'s (`plainPack`), lists none.
 * @param {string} dir Where
 * @param {{plainPack?: boolean}} [options] Whether to leave the platform packages out when installed
 * @returns {string} `dir`
 */
function copyPackage(dir, { plainPack = false } = {}) {
  fs.mkdirSync(dir, { recursive: true });
  for (const file of ['index.js', 'protocol.json', 'package.json', 'lib']) {
    fs.cpSync(path.join(ROOT, file), path.join(dir, file), { recursive: true });
  }
  if (dir.includes(`${path.sep}node_modules${path.sep}`) && !plainPack) {
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
    const names = fs.readdirSync(path.join(ROOT, 'npm')).map((platform) => `protobufjs-rustwriter-${platform}`);
    manifest.optionalDependencies = Object.fromEntries(names.map((name) => [name, version]));
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifest));
  }
  return dir;
}

/**
 * An app bundled by esbuild into `dir/bundle.js`, protobufjs-rustwriter inside it, as its
 * README section "Bundlers and serverless" does; the bundle loads the package and prints whether
 * the addon loaded.
 * @param {string} dir Where
 * @returns {string} The bundle's path
 */
function bundleInto(dir) {
  fs.mkdirSync(dir, { recursive: true });
  const entry = path.join(dir, 'entry.js');
  fs.writeFileSync(entry, `const { RustWriter } = require(${JSON.stringify(ROOT)}); console.log(JSON.stringify({ native: RustWriter.native }));\n`);
  const outfile = path.join(dir, 'bundle.js');
  require('esbuild').buildSync({ entryPoints: [entry], bundle: true, platform: 'node', outfile, logLevel: 'error' });
  fs.rmSync(entry);
  return outfile;
}

/**
 * The platform package as npm installs it, at `dir/node_modules/`, with this checkout's addon.
 * @param {string} dir The folder whose node_modules gets it
 * @returns {string} The package's folder
 */
function placePlatformPackage(dir) {
  const platform = WANTED.slice('protobufjs-rustwriter-'.length);
  const target = path.join(dir, 'node_modules', WANTED);
  fs.mkdirSync(target, { recursive: true });
  fs.copyFileSync(path.join(ROOT, 'npm', platform, 'package.json'), path.join(target, 'package.json'));
  fs.copyFileSync(path.join(ROOT, `protobufjs-rustwriter.${platform}.node`), path.join(target, `protobufjs-rustwriter.${platform}.node`));
  return target;
}

/**
 * Runs `code` with `UNDER_TEST` set to the package copy `dir`.
 * @param {string} dir The copy
 * @param {string} code Script
 * @param {object} [env] More environment
 * @param {string[]} [flags] Node flags
 * @returns {{status: number, stdout: string, stderr: string, warnings: string[]}} Result, with the
 * package's warning lines
 */
function run(dir, code, env = {}, flags = []) {
  const result = spawnSync(process.execPath, [...flags, '-e', code], {
    cwd: os.tmpdir(), encoding: 'utf8', env: { ...process.env, PROTOBUFJS_RUSTWRITER: '', ...env, UNDER_TEST: dir },
  });
  const warnings = result.stderr.split('\n').filter((line) => line.includes('ProtobufjsRustwriterWarning'));
  return { status: result.status, stdout: result.stdout, stderr: result.stderr, warnings };
}

/**
 * Asserts that loading the copy falls back to the JS path with exactly one warning matching `why`.
 * @param {string} dir The copy
 * @param {RegExp} why What the warning must say after the platform
 * @param {string} [prelude] Code run before the package loads
 * @returns {undefined}
 */
function assertFallback(dir, why, prelude = '') {
  const result = run(dir, `${prelude}${LOAD} require(process.env.UNDER_TEST);`);
  assert.strictEqual(result.status, 0, result.stderr);
  assert.deepStrictEqual(JSON.parse(result.stdout), { native: false });
  assert.strictEqual(result.warnings.length, 1, result.stderr);
  assert.match(result.warnings[0], /no native addon for [\w-]+, so RustWriter encodes in JavaScript \(same bytes; long packed fields slower\): /);
  assert.match(result.warnings[0], why);
  assert.doesNotMatch(result.warnings[0], /removing both package-lock\.json and node_modules/);
}

describe('finding the native addon, and saying why it is not there', function () {
  this.timeout(60000);

  let tmp;
  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rustwriter-addon-'));
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('knows exactly the platforms that have a platform package, with the os, cpu and libc npm matches them by', () => {
    const packages = {};
    for (const dir of fs.readdirSync(path.join(ROOT, 'npm'))) {
      const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'npm', dir, 'package.json'), 'utf8'));
      assert.strictEqual(manifest.name, `protobufjs-rustwriter-${dir}`);
      assert.strictEqual(manifest.main, `protobufjs-rustwriter.${dir}.node`);
      assert.strictEqual(manifest.os.length, 1);
      assert.strictEqual(manifest.cpu.length, 1);
      (packages[`${manifest.os[0]}-${manifest.cpu[0]}`] ||= []).push(dir);
      // npm installs a -gnu or -musl package only where its C library matches.
      const libc = { gnu: ['glibc'], musl: ['musl'] }[dir.split('-')[2]];
      assert.deepStrictEqual(manifest.libc, libc, dir);
    }
    assert.deepStrictEqual(sorted(PREBUILT), sorted(packages));
  });

  it('knows exactly the platforms package.json builds prebuilt addons for, by napi-rs\'s names', async function () {
    // @napi-rs/cli 3 loads on Node 20.12 and later only (node:util's styleText); the suite also
    // runs on Node 18 and on 20.11 (armv7 under qemu), where the test above still holds.
    const [major, minor] = process.versions.node.split('.').map(Number);
    if (major < 20 || (major === 20 && minor < 12)) this.skip();
    // import(), not require(): the CLI's CommonJS entry requires ES modules, which Node before
    // 20.19 cannot.
    const { parseTriple } = await import('@napi-rs/cli');
    const fromTargets = {};
    for (const triple of napi.targets) {
      const { platform, arch, platformArchABI } = parseTriple(triple);
      (fromTargets[`${platform}-${arch}`] ||= []).push(platformArchABI);
    }
    assert.deepStrictEqual(sorted(PREBUILT), sorted(fromTargets));
  });

  it('loads the addon of this checkout', function () {
    const result = run(ROOT, LOAD);
    assert.strictEqual(result.status, 0, result.stderr);
    assert.deepStrictEqual(JSON.parse(result.stdout), { native: true });
    assert.strictEqual(result.stderr, '');
  });

  it('says a checkout has no addon built, and that npm install builds it', () => {
    assertFallback(copyPackage(path.join(tmp, 'checkout')), /this checkout has no addon built for [\w-]+: npm install builds it, given a Rust toolchain/);
  });

  /**
   * Places a copy of the package in an app whose package-lock.json has entries for these platform packages.
   * @param {string[]} platforms Platform names (keys of the platform packages' folders in npm/)
   * @returns {string} The copy
   */
  const appWithLockfile = (platforms) => {
    const dir = copyPackage(path.join(tmp, 'app', 'node_modules', 'protobufjs-rustwriter'));
    const packages = { '': {}, 'node_modules/protobufjs-rustwriter': { version } };
    for (const platform of platforms) packages[`node_modules/protobufjs-rustwriter-${platform}`] = { version, optional: true };
    fs.writeFileSync(path.join(tmp, 'app', 'package-lock.json'), JSON.stringify({ lockfileVersion: 3, packages }));
    return dir;
  };
  /** A platform package of another os and cpu than this process's. */
  const OTHER = process.platform === 'darwin' && process.arch === 'arm64' ? 'linux-x64-gnu' : 'darwin-arm64';

  it('says npm before 11.3 wrote the lockfile on another platform when it lists only that platform\'s packages', function () {
    if (PREBUILT[PLATFORM] === undefined) this.skip(); // no platform package exists here
    assertFallback(appWithLockfile([OTHER]), new RegExp(`its package, ${WANTED}, is not installed: package-lock\\.json lists only ` +
      `protobufjs-rustwriter-${OTHER} of its platform packages, as npm before 11\\.3 writes it when it runs on another platform over ` +
      'an existing node_modules \\(npm/cli#4828\\); npm 11\\.3 or later lists them all and installs this one: npx npm@11 install'));
  });

  it('says npm could not fetch the package when the lockfile lists none of the platform packages, and the command that installs it', function () {
    if (PREBUILT[PLATFORM] === undefined) this.skip();
    assertFallback(appWithLockfile([]), new RegExp(`its package, ${WANTED}, is not installed: package-lock\\.json lists none of its ` +
      'platform packages, so npm could not fetch it \\(not published to the registry npm uses, or no network, or a proxy or mirror ' +
      `without it\\) and skipped it without a word, as it does an optional dependency it cannot fetch: npm install ${WANTED}@` +
      `${version.replace(/\./g, '\\.')}\\.`));
  });

  it('says npm could not fetch the package when the lockfile lists those of other platforms, not npm/cli#4828', function () {
    if (PREBUILT[PLATFORM] === undefined) this.skip();
    // npm 11.3 or later, or npm 10 without a node_modules, lists every platform package it could fetch.
    const others = Object.values(PREBUILT).flat().filter((platform) => `protobufjs-rustwriter-${platform}` !== WANTED);
    assertFallback(appWithLockfile(others), new RegExp(`its package, ${WANTED}, is not installed: package-lock\\.json lists others ` +
      `but not this one of its platform packages, so npm could not fetch it .*: npm install ${WANTED}@`));
  });

  it('says npm skipped optional dependencies, or could not fetch the package, when the lockfile lists it', function () {
    if (PREBUILT[PLATFORM] === undefined) this.skip();
    const platform = WANTED.slice('protobufjs-rustwriter-'.length);
    assertFallback(appWithLockfile([platform]), new RegExp(`its package, ${WANTED}, is not installed, though package-lock\\.json lists ` +
      'it: npm leaves out optional dependencies when told to \\(--omit=optional, or omit=optional in its config\\), and skips ' +
      `without a word one it cannot fetch \\(then npm install ${WANTED}@${version.replace(/\./g, '\\.')} says why\\): ` +
      'npm install --include=optional'));
  });

  it('names only the package to install for a lockfile of npm 6 or older, which has no entries by path', function () {
    if (PREBUILT[PLATFORM] === undefined) this.skip();
    const dir = copyPackage(path.join(tmp, 'app', 'node_modules', 'protobufjs-rustwriter'));
    fs.writeFileSync(path.join(tmp, 'app', 'package-lock.json'), JSON.stringify({
      lockfileVersion: 1, dependencies: { 'protobufjs-rustwriter': { version } },
    }));
    assertFallback(dir, new RegExp(`its package, ${WANTED}, is not installed \\(an optional dependency, which the package manager ` +
      `skipped\\): install ${WANTED}@`));
  });

  it('says npm misread the C library from /usr/bin/ldd when the lockfile lists the package, and the setting that fixes it', function () {
    if (process.platform !== 'linux' || PREBUILT[PLATFORM] === undefined) this.skip(); // npm reads /usr/bin/ldd on Linux only
    const dir = copyPackage(path.join(tmp, 'app', 'node_modules', 'protobufjs-rustwriter'));
    fs.writeFileSync(path.join(tmp, 'app', 'package-lock.json'), JSON.stringify({
      lockfileVersion: 3,
      packages: { '': {}, 'node_modules/protobufjs-rustwriter': { version }, [`node_modules/${WANTED}`]: { version, optional: true } },
    }));
    // An ldd whose text names neither C library, as npm reads it (npm-install-checks).
    const odd = "const fs = require('fs'); const read = fs.readFileSync; fs.readFileSync = function (file, ...rest) { " +
      "return file === '/usr/bin/ldd' ? '#!/bin/sh\\necho ldd\\n' : read.call(this, file, ...rest); };";
    const libc = WANTED.endsWith('-musl') ? 'musl' : 'glibc';
    assertFallback(dir, new RegExp(`its package, ${WANTED}, is not installed: package-lock\\.json lists it, but npm took this ${libc} ` +
      'system for neither glibc nor musl, as /usr/bin/ldd reads, so it skipped the package: ' +
      `npm config set libc=${libc} --location=project && npm install`), odd);
  });

  it('says a copy packed by a plain npm pack lists no platform packages, rather than blaming npm', function () {
    if (PREBUILT[PLATFORM] === undefined) this.skip();
    const dir = copyPackage(path.join(tmp, 'app', 'node_modules', 'protobufjs-rustwriter'), { plainPack: true });
    fs.writeFileSync(path.join(tmp, 'app', 'package-lock.json'), JSON.stringify({
      lockfileVersion: 3, packages: { '': {}, 'node_modules/protobufjs-rustwriter': { version } },
    }));
    assertFallback(dir, /this protobufjs-rustwriter lists no platform packages, as a plain npm pack of its git repository leaves them out: /);
  });

  it('reads no lockfile above the app that holds node_modules', function () {
    if (PREBUILT[PLATFORM] === undefined) this.skip();
    // A lockfile one folder above the app, which once made the warning blame npm/cli#4828.
    fs.writeFileSync(path.join(tmp, 'package-lock.json'), JSON.stringify({ lockfileVersion: 3, packages: { '': {} } }));
    const dir = copyPackage(path.join(tmp, 'app', 'node_modules', 'protobufjs-rustwriter'));
    assertFallback(dir, new RegExp(`its package, ${WANTED}, is not installed \\(an optional dependency, which the package manager skipped\\)`));
  });

  it('names the package to install when no npm lockfile tells more (yarn, pnpm, Bun)', function () {
    if (PREBUILT[PLATFORM] === undefined) this.skip();
    const dir = copyPackage(path.join(tmp, 'app', 'node_modules', 'protobufjs-rustwriter'));
    assertFallback(dir, new RegExp(`its package, ${WANTED}, is not installed \\(an optional dependency, which the package ` +
      `manager skipped\\): install ${WANTED}@${version.replace(/\./g, '\\.')}`));
  });

  it('says which installed package did not load, and why', function () {
    if (PREBUILT[PLATFORM] === undefined) this.skip();
    const dir = copyPackage(path.join(tmp, 'app', 'node_modules', 'protobufjs-rustwriter'));
    const broken = path.join(tmp, 'app', 'node_modules', WANTED);
    fs.mkdirSync(broken);
    fs.writeFileSync(path.join(broken, 'package.json'), JSON.stringify({ name: WANTED, version, main: 'addon.js' }));
    fs.writeFileSync(path.join(broken, 'addon.js'), "throw new Error('libc.musl-x86_64.so.1: cannot open shared object file');\n");
    assertFallback(dir, new RegExp(`${WANTED} is there but did not load \\(libc\\.musl-x86_64\\.so\\.1: cannot open shared object file\\); ` +
      'please report it at https://'));
  });

  it('says no prebuilt addon exists for a platform without one', () => {
    const dir = copyPackage(path.join(tmp, 'checkout'));
    assertFallback(dir, /no prebuilt addon exists for linux-mips \(prebuilt: [\w-]+(?:, [\w-]+)+\); a git clone of protobufjs-rustwriter builds one/,
      "Object.defineProperty(process, 'platform', { value: 'linux' }); Object.defineProperty(process, 'arch', { value: 'mips' });");
  });

  it('says no prebuilt addon exists for this C library where only the other one has one (Alpine on 32-bit Arm)', () => {
    const dir = copyPackage(path.join(tmp, 'checkout'));
    assertFallback(dir, /no prebuilt addon exists for linux-arm with musl \(prebuilt: [\w-]+(?:, [\w-]+)+\); a git clone of protobufjs-rustwriter builds one/,
      "Object.defineProperty(process, 'platform', { value: 'linux' }); Object.defineProperty(process, 'arch', { value: 'arm' }); " +
      "process.report.getReport = () => ({ header: {}, sharedObjects: ['/lib/ld-musl-armhf.so.1'] });");
  });

  it('says the permission model refused the addon, and the flag that allows it', function () {
    const flags = process.allowedNodeEnvironmentFlags;
    if (!flags.has('--allow-addons')) this.skip(); // a Node without addon permissions
    const permission = flags.has('--permission') ? '--permission' : '--experimental-permission'; // Node 20's name
    const result = run(ROOT, LOAD, {}, [permission, `--allow-fs-read=${ROOT}${path.sep}*`, `--allow-fs-read=${os.tmpdir()}${path.sep}*`]);
    assert.strictEqual(result.status, 0, result.stderr);
    assert.deepStrictEqual(JSON.parse(result.stdout), { native: false });
    assert.strictEqual(result.warnings.length, 1, result.stderr);
    assert.match(result.warnings[0], /the permission model does not allow native addons \(.*\): add --allow-addons to use the addon\.$/);
  });

  describe('bundled into one file (esbuild)', function () {
    // esbuild is a native binary of the platform npm ci ran on: test:cross's emulated runs use the
    // host's node_modules, where it cannot run, so these cases are pending there (they run on every
    // platform whose own npm ci installed esbuild).
    before(function () {
      try {
        require('esbuild').transformSync('0');
      } catch {
        this.skip();
      }
    });

    /**
     * Runs a bundle and returns what it printed and its package warnings.
     * @param {string} bundle Its path
     * @returns {{result: object, warnings: string[]}} What it reported
     */
    const runBundle = (bundle) => {
      const child = spawnSync(process.execPath, [bundle], { cwd: os.tmpdir(), encoding: 'utf8', env: { ...process.env, PROTOBUFJS_RUSTWRITER: '' } });
      assert.strictEqual(child.status, 0, child.stderr);
      return { result: JSON.parse(child.stdout), warnings: child.stderr.split('\n').filter((l) => l.includes('ProtobufjsRustwriterWarning')) };
    };

    it('loads the platform package deployed in node_modules beside the bundle', function () {
      if (PREBUILT[PLATFORM] === undefined) this.skip();
      const bundle = bundleInto(path.join(tmp, 'deploy'));
      placePlatformPackage(path.dirname(bundle));
      assert.deepStrictEqual(runBundle(bundle), { result: { native: true }, warnings: [] });
    });

    it('loads the addon file copied beside the bundle', function () {
      if (PREBUILT[PLATFORM] === undefined) this.skip();
      const bundle = bundleInto(path.join(tmp, 'deploy'));
      const platform = WANTED.slice('protobufjs-rustwriter-'.length);
      fs.copyFileSync(path.join(ROOT, `protobufjs-rustwriter.${platform}.node`), path.join(tmp, 'deploy', `protobufjs-rustwriter.${platform}.node`));
      assert.deepStrictEqual(runBundle(bundle), { result: { native: true }, warnings: [] });
    });

    it('looks in no folder above the bundle\'s, and says what to deploy beside it', function () {
      if (PREBUILT[PLATFORM] === undefined) this.skip();
      const bundle = bundleInto(path.join(tmp, 'app', 'dist'));
      // Both layouts one and two folders up, where the old loader looked and Node's resolution would.
      placePlatformPackage(path.join(tmp, 'app'));
      placePlatformPackage(tmp);
      const platform = WANTED.slice('protobufjs-rustwriter-'.length);
      fs.copyFileSync(path.join(ROOT, `protobufjs-rustwriter.${platform}.node`), path.join(tmp, `protobufjs-rustwriter.${platform}.node`));
      const { result, warnings } = runBundle(bundle);
      assert.deepStrictEqual(result, { native: false });
      assert.strictEqual(warnings.length, 1, warnings.join('\n'));
      assert.ok(warnings[0].includes(`protobufjs-rustwriter was bundled into ${bundle}, and that folder has neither node_modules/${WANTED} ` +
        `nor protobufjs-rustwriter.${platform}.node: copy node_modules/${WANTED} of an install on this platform into that folder, ` +
        'or keep protobufjs-rustwriter out of the bundle (README, "Bundlers and serverless")'), warnings[0]);
    });
  });

  it('fails with the same cause, not a guess, when PROTOBUFJS_RUSTWRITER=native', () => {
    const dir = copyPackage(path.join(tmp, 'checkout'));
    const result = run(dir, LOAD, { PROTOBUFJS_RUSTWRITER: 'native' });
    assert.notStrictEqual(result.status, 0);
    assert.match(result.stderr, /no native addon for [\w-]+ \(PROTOBUFJS_RUSTWRITER=native\): this checkout has no addon built/);
  });
});
