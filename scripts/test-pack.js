'use strict';

/**
 * `npm run test:pack` (run by .ci/run): packs the tarballs (scripts/pack.js), then installs them
 * into fresh temporary projects the way a user would, with cargo and rustc removed from the PATH
 * and no network (`--offline`: only the local tarballs and npm's cache), and checks:
 * 1. main + platform package: the addon loads, no warning, bytes identical to protobufjs;
 * 2. main package only (`--omit=optional`, as when optional dependencies are skipped): the JS path
 *    is used, its warning appears once, bytes identical to protobufjs.
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

/** PATH without any directory holding cargo or rustc. */
const PATH_WITHOUT_RUST = process.env.PATH.split(path.delimiter)
  .filter((dir) => !['cargo', 'rustc'].some((tool) => fs.existsSync(path.join(dir, tool))))
  .join(path.delimiter);

/** The user's program: encodes through install(), then through protobufjs's own writer. */
const PROGRAM = `
const protobuf = require('protobufjs');
const { RustWriter, install, uninstall } = require('protobufjs-rustwriter');
require('protobufjs-rustwriter');
const root = protobuf.parse('syntax = "proto3"; message M { uint64 id = 1; string name = 2; repeated sint32 d = 3; M child = 4; bytes blob = 5; }').root;
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

/**
 * Installs `tarballs` (and protobufjs) into a new project and runs the program there.
 * @param {string[]} tarballs Tarball paths
 * @param {string[]} flags Extra npm install flags
 * @returns {{result: object, stderr: string}} The program's report and its stderr
 */
function installAndRun(tarballs, flags) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rustwriter-pack-'));
  try {
    fs.writeFileSync(path.join(dir, 'package.json'), '{"name": "user-project", "version": "1.0.0", "private": true}\n');
    fs.writeFileSync(path.join(dir, 'program.js'), PROGRAM);
    const env = { ...process.env, PATH: PATH_WITHOUT_RUST };
    execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', ...flags, ...tarballs, PROTOBUFJS], {
      cwd: dir, env, stdio: ['ignore', 'ignore', 'inherit'],
    });
    const run = spawnSync(process.execPath, ['program.js'], { cwd: dir, env, encoding: 'utf8' });
    assert.strictEqual(run.status, 0, run.stderr);
    return { result: JSON.parse(run.stdout), stderr: run.stderr };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

assert.ok(!spawnSync('cargo', ['--version'], { env: { ...process.env, PATH: PATH_WITHOUT_RUST } }).stdout,
  'cargo is still reachable without the Rust directories on the PATH');
execFileSync(process.execPath, [path.join(__dirname, 'pack.js')], { stdio: 'inherit' });
const main = path.join(DIST, `protobufjs-rustwriter-${version}.tgz`);
const built = fs.readdirSync(DIST).find((f) => f.startsWith(`protobufjs-rustwriter-${process.platform}-${process.arch}`));
assert.ok(built, `no platform package for ${process.platform}-${process.arch} in dist/`);
const platform = path.join(DIST, built);

const withAddon = installAndRun([main, platform], []);
assert.deepStrictEqual(withAddon.result, { native: true, same: true });
assert.ok(!withAddon.stderr.includes('ProtobufjsRustwriterWarning'), withAddon.stderr);
process.stdout.write('installed with the platform package: the addon is used, bytes identical to protobufjs\n');

const withoutAddon = installAndRun([main], ['--omit=optional']);
assert.deepStrictEqual(withoutAddon.result, { native: false, same: true });
const warnings = withoutAddon.stderr.split('\n').filter((line) => line.includes('ProtobufjsRustwriterWarning'));
assert.strictEqual(warnings.length, 1, withoutAddon.stderr);
process.stdout.write('installed without it: the JS path is used, one warning, bytes identical to protobufjs\n');
