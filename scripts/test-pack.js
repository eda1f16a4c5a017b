'use strict';

/**
 * `npm run test:pack` (run by .ci/run): packs the tarballs (scripts/pack.js), checks that none
 * of them can run anything at install (no install scripts, no binding.gyp: so nothing but npm
 * packages is ever fetched), then installs them into fresh temporary projects the way a user
 * would, with cargo and rustc removed from the PATH (`--prefer-offline`: the local tarballs, npm's
 * cache, and the npm registry for protobufjs when the cache lacks it), and checks:
 * 1. main package, with every platform package npm would fetch from the registry resolved to its
 *    tarball in dist/ instead (package.json `overrides`): npm picks by os/cpu/libc as it would
 *    from the registry, and the only platform package installed must be this machine's; the
 *    addon loads, no warning, bytes identical to protobufjs;
 * 2. main package only (`--omit=optional`, as when optional dependencies are skipped): no
 *    platform package, the JS path is used, its warning appears once, bytes identical to
 *    protobufjs.
 * In both, `npx protobufjs-rustwriter measure ... --json` runs on the app's protobufjs 8 (found
 * from the app's directory) and on protobufjs 7 (`--protobufjs`, installed beside it under an
 * alias) and reports identical bytes, timings, and whether the addon is loaded.
 */

const assert = require('assert');
const { execFileSync, spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

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

/** The user's schema. */
const SCHEMA = 'syntax = "proto3"; message M { uint64 id = 1; string name = 2; repeated sint32 d = 3; M child = 4; bytes blob = 5; }';

/** The user's program: encodes through install(), then through protobufjs's own writer. */
const PROGRAM = `
const protobuf = require('protobufjs');
const { RustWriter, install, uninstall } = require('protobufjs-rustwriter');
require('protobufjs-rustwriter');
const root = protobuf.parse(${JSON.stringify(SCHEMA)}).root;
const M = root.lookupType('M');
const messages = [
  { id: 1, name: 'x' },
  { id: '18446744073709551615', name: 'é'.repeat(50), d: [-1, 2, -3], child: { name: 'y'.repeat(300) }, blob: Buffer.alloc(70000, 7) },
];
install(protobuf);
const ours = messages.map((m) => Buffer.from(M.encode(M.fromObject(m)).finish()).toString('hex'));
uninstall(protobuf);
const theirs = messages.map((m) => Buffer.from(M.encode(M.fromObject(m)).finish()).toString('hex'));
console.log(JSON.stringify({ native: RustWriter.native, same: ours.join() === theirs.join() }));
`;

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
 * Runs `npx protobufjs-rustwriter measure` on the schema in `dir` and checks its `--json` report.
 * @param {string} dir Project
 * @param {object} env Environment
 * @param {string[]} args Extra arguments
 * @returns {object} The report
 */
function measure(dir, env, args) {
  const run = spawnSync('npx', ['--no', 'protobufjs-rustwriter', 'measure', 'schema.proto', '--type', 'M', '--time', '0.5', '--json', ...args], {
    cwd: dir, env, encoding: 'utf8',
  });
  assert.strictEqual(run.status, 0, run.stderr);
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
 * Installs `tarballs` (and protobufjs 8, and 7 under an alias) into a new project and runs the
 * program and `measure` there.
 * @param {string[]} tarballs Tarball paths
 * @param {string[]} flags Extra npm install flags
 * @param {object} [overrides] The project's package.json `overrides`
 * @returns {{result: object, stderr: string, platforms: string[], measured: object[]}} The
 * program's report, its stderr, the platform packages installed, and `measure`'s reports on
 * protobufjs 8 and 7
 */
function installAndRun(tarballs, flags, overrides = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rustwriter-pack-'));
  try {
    const project = { name: 'user-project', version: '1.0.0', private: true, overrides };
    fs.writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify(project, null, 2)}\n`);
    fs.writeFileSync(path.join(dir, 'program.js'), PROGRAM);
    fs.writeFileSync(path.join(dir, 'schema.proto'), SCHEMA);
    const env = { ...process.env, PATH: PATH_WITHOUT_RUST };
    execFileSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', ...flags, ...tarballs, PROTOBUFJS, PROTOBUFJS7], {
      cwd: dir, env, stdio: ['ignore', 'ignore', 'inherit'],
    });
    const platforms = fs.readdirSync(path.join(dir, 'node_modules')).filter((name) => name.startsWith('protobufjs-rustwriter-'));
    const run = spawnSync(process.execPath, ['program.js'], { cwd: dir, env, encoding: 'utf8' });
    assert.strictEqual(run.status, 0, run.stderr);
    const measured = [measure(dir, env, []), measure(dir, env, ['--protobufjs', 'node_modules/protobufjs7'])];
    return { result: JSON.parse(run.stdout), stderr: run.stderr, platforms, measured };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `measure`'s speed-ups, for the log.
 * @param {object[]} reports `--json` reports
 * @returns {string} e.g. "8.8.1 1.31x 1.20x 1.12x, 7.6.6 …"
 */
function speedups(reports) {
  return reports.map((m) => `${m.protobufjs} ${m.results.map((r) => `${r.speedup}x`).join(' ')}`).join(', ');
}

assert.ok(!spawnSync('cargo', ['--version'], { env: { ...process.env, PATH: PATH_WITHOUT_RUST } }).stdout,
  'cargo is still reachable without the Rust directories on the PATH');
execFileSync(process.execPath, [path.join(__dirname, 'pack.js')], { stdio: 'inherit' });
const main = path.join(DIST, `protobufjs-rustwriter-${version}.tgz`);
const libc = process.platform !== 'linux' ? '' : process.report.getReport().header.glibcVersionRuntime ? '-gnu' : '-musl';
const abi = process.platform === 'win32' ? '-msvc' : libc;
const local = `protobufjs-rustwriter-${process.platform}-${process.arch}${abi}`;
assert.ok(fs.existsSync(path.join(DIST, `${local}-${version}.tgz`)), `no platform package ${local} in dist/`);
const tarballs = fs.readdirSync(DIST).filter((f) => f.endsWith('.tgz'));
for (const tarball of tarballs) assertRunsNothingAtInstall(path.join(DIST, tarball));
// Each platform package of the main package's optionalDependencies that is in dist/ (all six
// after `npm run build:all`), resolved to its tarball.
const overrides = Object.fromEntries(tarballs.filter((f) => f !== path.basename(main))
  .map((f) => [f.slice(0, -`-${version}.tgz`.length), `file:${path.join(DIST, f)}`]));
process.stdout.write(`platform packages offered to npm: ${Object.keys(overrides).join(', ')}\n`);

const withAddon = installAndRun([main], [], overrides);
assert.deepStrictEqual(withAddon.result, { native: true, same: true });
assert.deepStrictEqual(withAddon.platforms, [local]);
assert.ok(!withAddon.stderr.includes('ProtobufjsRustwriterWarning'), withAddon.stderr);
assert.deepStrictEqual(withAddon.measured.map((m) => [m.protobufjs, m.native]), [[require('protobufjs/package.json').version, true], [VERSION_7, true]]);
process.stdout.write(`installed: npm chose ${local} of ${Object.keys(overrides).length}, the addon is used, bytes identical to protobufjs; ` +
  `measure on protobufjs 8 and 7: ${speedups(withAddon.measured)}\n`);

const withoutAddon = installAndRun([main], ['--omit=optional']);
assert.deepStrictEqual(withoutAddon.result, { native: false, same: true });
assert.deepStrictEqual(withoutAddon.platforms, []);
const warnings = withoutAddon.stderr.split('\n').filter((line) => line.includes('ProtobufjsRustwriterWarning'));
assert.strictEqual(warnings.length, 1, withoutAddon.stderr);
assert.deepStrictEqual(withoutAddon.measured.map((m) => [m.protobufjs, m.native]), [[require('protobufjs/package.json').version, false], [VERSION_7, false]]);
process.stdout.write(`installed without it: the JS path is used, one warning, bytes identical to protobufjs; measure: ${speedups(withoutAddon.measured)}\n`);
