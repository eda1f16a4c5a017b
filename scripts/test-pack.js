'use strict';

/**
 * `npm run test:pack` (run by .ci/run): packs the tarballs (scripts/pack.js), checks that none
 * of them can run anything at install (no install scripts, no binding.gyp: so nothing but npm
 * packages is ever fetched), then installs them into fresh temporary projects the way users do
 * and the ways such installs are known to fail, with cargo and rustc removed from the PATH, and
 * with two npm releases fetched from the npm registry (scripts/package-managers.js): npm 10 (the line
 * Node 22 bundles) and npm 11. In every project but case 6's the platform packages npm would
 * fetch from the registry resolve to their tarballs in dist/ instead (package.json `overrides`),
 * so npm picks by os/cpu/libc as it would from the registry; case 6 installs from a local
 * registry instead.
 *
 * Each case ends in one of two ways: the addon loads (no warning, only this machine's platform
 * package installed), or the JS path runs with exactly one warning, which must name the case's
 * cause; then the command the warning ends with is run as printed (with that npm first on the
 * PATH, and npx's "Ok to proceed?" answered yes) and the addon must load. Always, the bytes are
 * identical to protobufjs's.
 * 1. npm 10 install, npm 11 install: the addon loads. Also `npx protobufjs-rustwriter measure
 *    --json` runs on the app's protobufjs 8 and on protobufjs 7 (`--protobufjs`, installed
 *    beside it under an alias) and reports identical bytes and that the addon is used.
 * 2. npm 11 install --omit=optional: the JS path (measure again), the lockfile lists the package:
 *    `npm install --include=optional`.
 * 3. npm/cli#4828: a lockfile written by npm 10 on another platform (`--os darwin --cpu arm64`,
 *    then reinstalled over its node_modules, which drops the other platforms' entries), then
 *    `npm ci` here with npm 10: the JS path, the lockfile lists darwin-arm64's package alone:
 *    `npx npm@11 install`. (npm 11's `npm ci` refuses that lockfile outright, naming the missing
 *    packages; checked too.) The same with npm 11 writing the lockfile on the other platform:
 *    npm 10's `npm ci` here loads the addon.
 * 4. A plain `npm pack` of the repository: refused (package.json `prepack`); past that with
 *    `--ignore-scripts`, its tarball installs the JS path, with a warning that says what it lacks.
 * 5. The C library as npm reads it, in a mount namespace of its own (root; `unshare`, an overlay
 *    over /usr/bin): no /usr/bin/ldd (distroless and Nix-built images), where npm asks the process
 *    report, with npm 10 and 11: the addon loads; a /usr/bin/ldd whose text names neither glibc
 *    nor musl, where npm installs neither package, with npm 10: the JS path,
 *    `npm config set libc=glibc --location=project && npm install`, and `npm ci` keeps it.
 * 6. The platform packages cannot be fetched (not published, as before the first release; a
 *    mirror or proxy without them): a local registry (verdaccio on 127.0.0.1, scripts/registry.js)
 *    that has the main package alone, `npm install protobufjs-rustwriter` with npm 10 and 11: the
 *    JS path, the lockfile lists no platform package: `npm install protobufjs-rustwriter-<platform>@<version>`,
 *    which fails with npm's 404 naming the package; once the platform packages are published
 *    there, the same command loads the addon.
 */

const assert = require('assert');
const { execFileSync, spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { NPM, npmBin } = require('./package-managers');
const { startRegistry, publish } = require('./registry');
const { SCHEMA, PROGRAM } = require('./user-app');

const ROOT = path.join(__dirname, '..');
const DIST = path.join(ROOT, 'dist');
const { version } = require('../package.json');
const PROTOBUFJS = `protobufjs@${require('protobufjs/package.json').version}`;
const VERSION_7 = require('protobufjs7/package.json').version;
const PROTOBUFJS7 = `protobufjs7@npm:protobufjs@${VERSION_7}`;

/** PATH without any directory holding cargo or rustc. */
const PATH_WITHOUT_RUST = process.env.PATH.split(path.delimiter)
  .filter((dir) => !['cargo', 'rustc'].some((tool) => fs.existsSync(path.join(dir, tool))))
  .join(path.delimiter);

/** Lifecycle scripts npm runs when it installs a package. */
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall'];

/**
 * Throws if installing `tarball` could run anything: a lifecycle script, or node-gyp (which npm
 * runs for a package with a binding.gyp and no install script).
 * @param {string} tarball Tarball path
 */
function assertRunsNothingAtInstall(tarball) {
  const files = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).split('\n');
  assert.ok(!files.includes('package/binding.gyp'), `${tarball} has a binding.gyp`);
  const manifest = JSON.parse(execFileSync('tar', ['-xOzf', tarball, 'package/package.json'], { encoding: 'utf8' }));
  const scripts = INSTALL_SCRIPTS.filter((name) => manifest.scripts && name in manifest.scripts);
  assert.deepStrictEqual(scripts, [], `${tarball} has install scripts`);
}

/**
 * How /usr/bin/ldd looks to a command, in a mount namespace of its own: an overlay on /usr/bin
 * in which ldd is deleted (`absent`) or replaced by a script whose text names no C library
 * (`unknown`). Nothing changes outside that namespace.
 */
const LDD_SCRIPT = `
set -e
mount -t overlay overlay -o "lowerdir=/usr/bin,upperdir=$OVERLAY/upper,workdir=$OVERLAY/work" /usr/bin
rm /usr/bin/ldd
if [ "$0" = unknown ]; then printf '#!/bin/sh\\necho "ldd of an unknown C library"\\n' > /usr/bin/ldd; chmod +x /usr/bin/ldd; fi
exec "$@"
`;

/**
 * Runs `command` in the project `dir` with cargo off the PATH and the npm release `major` first
 * on it; with `ldd`, in a namespace where /usr/bin/ldd is as `ldd` says (LDD_SCRIPT).
 * @param {string} dir Project
 * @param {string} command Shell command
 * @param {{major?: string, ldd?: string, check?: boolean}} [options] npm release, ldd, whether a
 * failure throws (default true)
 * @returns {{status: number, stdout: string, stderr: string}} What it did
 */
function sh(dir, command, { major = '11', ldd, check = true } = {}) {
  // npm_config_yes: npx's prompt answered yes, as a user would at the terminal.
  const env = { ...process.env, PATH: `${npmBin(major)}${path.delimiter}${PATH_WITHOUT_RUST}`, npm_config_yes: 'true' };
  let args = ['sh', '-c', command];
  let overlay = null;
  if (ldd) {
    overlay = fs.mkdtempSync(path.join(os.tmpdir(), 'rustwriter-ldd-'));
    for (const sub of ['upper', 'work']) fs.mkdirSync(path.join(overlay, sub));
    env.OVERLAY = overlay;
    args = ['unshare', '--mount', '--propagation', 'private', 'sh', '-c', LDD_SCRIPT, ldd, ...args];
  }
  try {
    const child = spawnSync(args[0], args.slice(1), { cwd: dir, env, encoding: 'utf8' });
    if (child.error) throw child.error;
    if (check) assert.strictEqual(child.status, 0, `${command} failed:\n${child.stderr}`);
    return child;
  } finally {
    if (overlay) fs.rmSync(overlay, { recursive: true, force: true });
  }
}

/** Flags of every npm install here: the local tarballs, npm's cache, quiet. */
const QUIET = '--prefer-offline --no-audit --no-fund';

/**
 * A new project of the user's, with the program and schema, whose `overrides` resolve each
 * platform package to its tarball in dist/.
 * @param {object} overrides package.json `overrides`
 * @returns {string} Its directory
 */
function project(overrides) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rustwriter-pack-'));
  const manifest = { name: 'user-project', version: '1.0.0', private: true, overrides };
  fs.writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  fs.writeFileSync(path.join(dir, 'program.js'), PROGRAM);
  fs.writeFileSync(path.join(dir, 'schema.proto'), SCHEMA);
  return dir;
}

/**
 * Runs `npx protobufjs-rustwriter measure` on the schema in `dir` and checks its `--json` report.
 * @param {string} dir Project
 * @param {string[]} args Extra arguments
 * @returns {object} The report
 */
function measure(dir, args) {
  const command = ['npx', '--no', 'protobufjs-rustwriter', 'measure', 'schema.proto', '--type', 'M', '--time', '0.5', '--json', ...args];
  const run = sh(dir, command.join(' '));
  const report = JSON.parse(run.stdout);
  assert.deepStrictEqual(Object.keys(report).slice(0, 2), ['protobufjs', 'native']);
  assert.strictEqual(report.results.length, 3, run.stdout); // the sample messages
  for (const r of report.results) {
    assert.strictEqual(r.type, 'M');
    assert.strictEqual(r.identical, true);
    assert.ok(r.bytes > 0 && r.protobufjs_ns > 0 && r.rustwriter_ns > 0 && r.speedup > 0, run.stdout);
  }
  return report;
}

/**
 * `measure` on the app's protobufjs 8 and on protobufjs 7, each reporting whether the addon is
 * used as `native` says.
 * @returns {string} Their speed-ups, for the log: e.g. "8.8.1 1.31x 1.20x 1.12x, 7.6.6 …"
 */
function measureBoth(dir, native) {
  const reports = [measure(dir, []), measure(dir, ['--protobufjs', 'node_modules/protobufjs7'])];
  assert.deepStrictEqual(reports.map((m) => [m.protobufjs, m.native]), [[require('protobufjs/package.json').version, native], [VERSION_7, native]]);
  return reports.map((m) => `${m.protobufjs} ${m.results.map((r) => `${r.speedup}x`).join(' ')}`).join(', ');
}

/**
 * Runs the program in `dir`.
 * @returns {{result: object, warnings: string[], platforms: string[]}} Its report, the package's
 * warning lines, the platform packages installed
 */
function runProgram(dir, options) {
  const run = sh(dir, `'${process.execPath}' program.js`, options);
  const warnings = run.stderr.split('\n').filter((line) => line.includes('ProtobufjsRustwriterWarning'));
  const platforms = fs.readdirSync(path.join(dir, 'node_modules')).filter((name) => name.startsWith('protobufjs-rustwriter-'));
  return { result: JSON.parse(run.stdout), warnings, platforms, stderr: run.stderr };
}

/**
 * Asserts that the addon loads in `dir`, from this machine's platform package, the only one
 * installed but for `also`.
 * @returns {string[]} The platform packages installed
 */
function assertAddon(dir, local, options = {}, also = []) {
  const { result, warnings, platforms, stderr } = runProgram(dir, options);
  assert.deepStrictEqual(result, { native: true, same: true }, stderr);
  assert.deepStrictEqual(warnings, []);
  assert.deepStrictEqual(platforms, [local, ...also].sort());
  return platforms;
}

/**
 * Asserts that `dir` runs the JS path with one warning matching `why`, then runs the command the
 * warning ends with and asserts that the addon then loads.
 * @returns {{warning: string, command: string}} The warning's cause and command, for the log
 */
function assertFallbackAndFix(dir, local, why, options = {}, also = []) {
  const { result, warnings, platforms } = runProgram(dir, options);
  assert.deepStrictEqual(result, { native: false, same: true });
  assert.deepStrictEqual(platforms, []);
  assert.strictEqual(warnings.length, 1, warnings.join('\n'));
  assert.match(warnings[0], why);
  // "... JavaScript (same bytes; long packed fields slower): <cause>: <command>. Set PROTOBUFJS_RUSTWRITER=js ..."
  const [, cause, command] = warnings[0].match(/slower\): (.*): ([^:]*?)\. Set PROTOBUFJS_RUSTWRITER=js/);
  sh(dir, command, options);
  assertAddon(dir, local, options, also);
  return { cause, command };
}

/**
 * The platform package entries of the project's lockfile.
 * @returns {string[]} Their names
 */
function lockedPlatforms(dir) {
  const { packages } = JSON.parse(fs.readFileSync(path.join(dir, 'package-lock.json'), 'utf8'));
  return Object.keys(packages).map((key) => key.replace(/^node_modules\//, '')).filter((name) => name.startsWith('protobufjs-rustwriter-'));
}

/** The cases (see the top of this file), each returning a line for the log. */
function cases(main, local, overrides) {
  const install = `npm install ${QUIET} ${main} ${PROTOBUFJS}`;
  const log = [];
  const inProject = (title, body) => {
    const dir = project(overrides);
    try {
      log.push(`✔ ${title}: ${body(dir)}`);
      process.stdout.write(`${log[log.length - 1]}\n`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  };

  for (const major of ['10', '11']) {
    inProject(`npm ${NPM[major]} install`, (dir) => {
      sh(dir, `${install} ${PROTOBUFJS7}`, { major });
      assertAddon(dir, local);
      return `npm chose ${local} of ${Object.keys(overrides).length}, the addon loads; measure on protobufjs 8 and 7: ${measureBoth(dir, true)}`;
    });
  }

  inProject(`npm ${NPM[11]} install --omit=optional`, (dir) => {
    sh(dir, `${install} ${PROTOBUFJS7} --omit=optional`);
    const measured = measureBoth(dir, false);
    const { cause, command } = assertFallbackAndFix(dir, local,
      /though package-lock\.json lists it: npm leaves out optional dependencies when told to \(--omit=optional/);
    return `the JS path (measure: ${measured}), "${cause}"; \`${command}\` then loads the addon`;
  });

  // npm/cli#4828: written on darwin-arm64, then rewritten over that node_modules.
  const otherPlatform = '--os=darwin --cpu=arm64';
  inProject(`a lockfile npm ${NPM[10]} wrote on darwin-arm64 (npm/cli#4828), npm ci here`, (dir) => {
    sh(dir, `${install} ${otherPlatform}`, { major: '10' });
    // Without a node_modules, npm 10 lists every platform package it can fetch (the loader counts on it).
    assert.deepStrictEqual(lockedPlatforms(dir).sort(), Object.keys(overrides).sort(), 'npm 10 left platforms out of a new lockfile');
    sh(dir, `rm package-lock.json && npm install ${QUIET} ${otherPlatform}`, { major: '10' });
    assert.deepStrictEqual(lockedPlatforms(dir), ['protobufjs-rustwriter-darwin-arm64'], 'npm 10 no longer drops the other platforms');
    sh(dir, 'rm -r node_modules');
    const refused = sh(dir, `npm ci ${QUIET}`, { check: false });
    assert.notStrictEqual(refused.status, 0, 'npm 11 ci accepted a lockfile without this platform\'s package');
    assert.match(refused.stderr, new RegExp(`Missing: ${local}@${version.replace(/\./g, '\\.')} from lock file`));
    sh(dir, `npm ci ${QUIET}`, { major: '10' });
    const { cause, command } = assertFallbackAndFix(dir, local, new RegExp('package-lock\\.json lists only protobufjs-rustwriter-darwin-arm64 ' +
      'of its platform packages, as npm before 11\\.3 writes it when it runs on another platform over an existing node_modules ' +
      '\\(npm/cli#4828\\); npm 11\\.3 or later lists them all and installs this one: npx npm@11 install'), { major: '10' });
    return `npm ${NPM[11]} ci refuses it ("Missing: ${local}@${version} from lock file"); npm ${NPM[10]} ci installs the JS path, ` +
      `"${cause}"; \`${command}\` then loads the addon`;
  });
  inProject(`a lockfile npm ${NPM[11]} wrote on darwin-arm64, npm ${NPM[10]} ci here`, (dir) => {
    sh(dir, `${install} ${otherPlatform}`);
    sh(dir, `rm package-lock.json && npm install ${QUIET} ${otherPlatform}`);
    assert.deepStrictEqual(lockedPlatforms(dir).sort(), Object.keys(overrides).sort(), 'npm 11 dropped platforms from the lockfile');
    sh(dir, `rm -r node_modules && npm ci ${QUIET}`, { major: '10' });
    assertAddon(dir, local);
    return `the lockfile keeps all ${lockedPlatforms(dir).length} platforms, the addon loads`;
  });

  inProject(`plain npm pack of the repository, npm ${NPM[11]}`, (dir) => {
    const refused = sh(ROOT, 'npm pack --dry-run', { check: false });
    assert.notStrictEqual(refused.status, 0, 'npm pack of the repository was not refused');
    assert.match(refused.stderr, /makes a package without its platform packages, which installs without the native addon\. Run `npm run pack` instead/);
    // Past the refusal: the tarball installs, and the warning names what it lacks.
    const tarball = sh(ROOT, `npm pack --ignore-scripts --silent --pack-destination '${dir}'`).stdout.trim().split('\n').pop();
    sh(dir, `npm install ${QUIET} ./${tarball} ${PROTOBUFJS}`);
    const { result, warnings, platforms } = runProgram(dir);
    assert.deepStrictEqual([result, platforms, warnings.length], [{ native: false, same: true }, [], 1], warnings.join('\n'));
    assert.match(warnings[0], /this protobufjs-rustwriter lists no platform packages, as a plain npm pack of its git repository leaves them out/);
    return 'refused by its prepack script; packed with --ignore-scripts, it installs the JS path, and the warning says why';
  });

  if (process.platform === 'linux') {
    for (const major of ['10', '11']) {
      inProject(`no /usr/bin/ldd, npm ${NPM[major]} install`, (dir) => {
        sh(dir, install, { major, ldd: 'absent' });
        assertAddon(dir, local, { major, ldd: 'absent' });
        return 'npm reads the process report, the loader too: the addon loads';
      });
    }
    for (const major of ['10', '11']) {
      inProject(`a /usr/bin/ldd that names no C library, npm ${NPM[major]} install`, (dir) => {
        const options = { major, ldd: 'unknown' };
        sh(dir, install, options);
        const libc = local.endsWith('-musl') ? 'musl' : 'glibc';
        // npm 10 with libc set installs the other C library's package too (its ideal tree checks
        // the platform without the setting); the loader tries this process's first.
        const other = major === '10' ? Object.keys(overrides).filter((name) => name !== local && name.startsWith(local.replace(/-\w+$/, '-'))) : [];
        const { cause, command } = assertFallbackAndFix(dir, local,
          new RegExp(`package-lock\\.json lists it, but npm took this ${libc} system for neither glibc nor musl, as /usr/bin/ldd reads`),
          options, other);
        sh(dir, `rm -r node_modules && npm ci ${QUIET}`, options);
        assertAddon(dir, local, options, other);
        return `the JS path, "${cause}"; \`${command}\` then loads the addon, and so does npm ci after it` +
          `${other.length ? ` (npm ${NPM[major]} installs ${other.join(', ')} too, unused)` : ''}`;
      });
    }
  }
  return log;
}

/**
 * Case 6 (see the top of this file): installs from a local registry that has the main package but
 * none of its platform packages, with npm 10 and 11; then publishes the platform packages of dist/
 * and runs the warning's command again.
 * @param {string} main The main tarball
 * @param {string} local This machine's platform package
 * @param {string[]} platformTarballs The platform tarballs of dist/
 * @returns {Promise<string[]>} Lines for the log
 */
async function unfetchable(main, local, platformTarballs) {
  const registry = await startRegistry();
  const dirs = [];
  const log = [];
  try {
    publish(registry, [main]);
    const fixes = [];
    for (const major of ['10', '11']) {
      const dir = project({});
      dirs.push(dir);
      // The registry, and a cache of the project's own: nothing of another run's registry in it.
      fs.writeFileSync(path.join(dir, '.npmrc'), `registry=${registry.url}\ncache=${path.join(dir, '.npm-cache')}\n`);
      sh(dir, `npm install --no-audit --no-fund protobufjs-rustwriter ${PROTOBUFJS}`, { major });
      assert.deepStrictEqual(lockedPlatforms(dir), [], `npm ${NPM[major]} listed platform packages the registry does not have`);
      const { result, warnings, platforms } = runProgram(dir, { major });
      assert.deepStrictEqual([result, platforms, warnings.length], [{ native: false, same: true }, [], 1], warnings.join('\n'));
      assert.match(warnings[0], new RegExp(`its package, ${local}, is not installed: package-lock\\.json lists none of its platform ` +
        'packages, so npm could not fetch it \\(not published to the registry npm uses'));
      const [, command] = warnings[0].match(/slower\): .*: ([^:]*?)\. Set PROTOBUFJS_RUSTWRITER=js/);
      assert.strictEqual(command, `npm install ${local}@${version}`);
      // Run before the package is there, it shows npm's reason, which the install kept to itself.
      const failed = sh(dir, command, { major, check: false });
      assert.notStrictEqual(failed.status, 0, `${command} succeeded before ${local} was published`);
      assert.match(failed.stderr, new RegExp(`E404[\\s\\S]*${local}`), failed.stderr);
      fixes.push({ major, dir, command });
    }
    publish(registry, platformTarballs);
    for (const { major, dir, command } of fixes) {
      sh(dir, command, { major });
      assertAddon(dir, local, { major });
      log.push(`✔ a registry without the platform packages, npm ${NPM[major]} install: the JS path, the lockfile lists none of them, ` +
        `\`${command}\` fails with npm's 404, then, once they are published, loads the addon`);
      process.stdout.write(`${log[log.length - 1]}\n`);
    }
  } finally {
    registry.stop();
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  }
  return log;
}

async function main() {
  assert.ok(!spawnSync('cargo', ['--version'], { env: { ...process.env, PATH: PATH_WITHOUT_RUST } }).stdout,
    'cargo is still reachable without the Rust directories on the PATH');
  if (process.platform === 'linux') {
    const probe = spawnSync('unshare', ['--mount', 'true']);
    assert.strictEqual(probe.status, 0, 'test:pack tries npm\'s C library detection in a mount namespace of its own: run it as root ' +
      `(unshare --mount failed: ${probe.error ? probe.error.message : probe.stderr})`);
  }
  const t0 = Date.now();
  execFileSync(process.execPath, [path.join(__dirname, 'pack.js')], { stdio: 'inherit' });
  const main = path.join(DIST, `protobufjs-rustwriter-${version}.tgz`);
  const libc = process.platform !== 'linux' ? '' : process.report.getReport().header.glibcVersionRuntime ? '-gnu' : '-musl';
  const abi = process.platform === 'win32' ? '-msvc' : libc;
  const local = `protobufjs-rustwriter-${process.platform}-${process.arch}${abi}`;
  assert.ok(fs.existsSync(path.join(DIST, `${local}-${version}.tgz`)), `no platform package ${local} in dist/`);
  const tarballs = fs.readdirSync(DIST).filter((f) => f.endsWith('.tgz'));
  for (const tarball of tarballs) assertRunsNothingAtInstall(path.join(DIST, tarball));
  // Each platform package of the main package's optionalDependencies that is in dist/ (all of
  // them after `npm run build:all`), resolved to its tarball.
  const overrides = Object.fromEntries(tarballs.filter((f) => f !== path.basename(main))
    .map((f) => [f.slice(0, -`-${version}.tgz`.length), `file:${path.join(DIST, f)}`]));
  process.stdout.write(`platform packages offered to npm: ${Object.keys(overrides).join(', ')}\n`);
  const log = cases(main, local, overrides);
  const platformTarballs = tarballs.filter((f) => f !== path.basename(main)).map((f) => path.join(DIST, f));
  log.push(...await unfetchable(main, local, platformTarballs));
  process.stdout.write(`test:pack: ${log.length} install cases passed in ${Math.round((Date.now() - t0) / 1000)} s\n`);
}

main().catch((err) => {
  process.stderr.write(`${err.stack}\n`);
  process.exitCode = 1;
});
