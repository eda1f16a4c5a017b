'use strict';

/**
 * An app with two protobufjs copies, as real apps have them (OpenTelemetry's exporters on their
 * own protobufjs 7.x, the app on 8.x): test/fixtures/twocopies/app depends on protobufjs 8.8.1
 * and on a package that depends on protobufjs 7.6.6, installed from npm into a cache under
 * node_modules/.cache (npm's own cache makes it offline after the first run). Each copy encodes
 * through static and reflection code. Run as child processes: with the preload (`-r`,
 * `--import`, NODE_OPTIONS, and required after one copy is loaded), both copies must write
 * through RustWriter, with the bytes of the run without it.
 */

const assert = require('assert');
const { spawnSync } = require('child_process');
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');

const ROOT = path.join(__dirname, '..');
const FIXTURE = path.join(__dirname, 'fixtures', 'twocopies');

/**
 * @param {string} link A symbolic link
 * @returns {boolean} Whether it resolves to this checkout (false if it resolves to nothing)
 */
function linksHere(link) {
  try {
    return fs.realpathSync(link) === fs.realpathSync(ROOT);
  } catch {
    return false;
  }
}

/**
 * Installs the fixture app (once per fixture content) and returns its directory.
 * @returns {string} The installed app's directory
 */
function installApp() {
  const hash = crypto.createHash('sha256');
  for (const dir of ['app', 'exporter']) {
    for (const file of fs.readdirSync(path.join(FIXTURE, dir)).sort()) {
      hash.update(`${dir}/${file}\0`).update(fs.readFileSync(path.join(FIXTURE, dir, file)));
    }
  }
  const base = path.join(ROOT, 'node_modules', '.cache', 'protobufjs-rustwriter-twocopies', hash.digest('hex').slice(0, 16));
  const app = path.join(base, 'app');
  const link = path.join(app, 'node_modules', 'protobufjs-rustwriter');
  // Ready, and linked to this checkout (a node_modules copied from, or shared with, another checkout links to
  // that one, which may since have been deleted).
  if (fs.existsSync(path.join(base, 'ready')) && linksHere(link)) return app;
  fs.rmSync(base, { recursive: true, force: true });
  fs.cpSync(FIXTURE, base, { recursive: true });
  const npm = spawnSync('npm', ['install', '--install-links', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts',
    '--no-package-lock'], { cwd: app, encoding: 'utf8', shell: process.platform === 'win32' });
  assert.strictEqual(npm.status, 0, `npm install of the fixture app failed:\n${npm.stderr}`);
  // The package under test, as an installed dependency of the app.
  fs.symlinkSync(ROOT, link, 'junction');
  fs.writeFileSync(path.join(base, 'ready'), '');
  return app;
}

describe('an app with protobufjs 8.8.1 and a dependency on protobufjs 7.6.6', function () {
  this.timeout(120000);
  let app;
  let without;

  /**
   * Runs the app's main.js with `args` before it and `env` added.
   * @param {string[]} args Node options
   * @param {Object<string, string>} [env] Environment additions
   * @returns {{out: object, stderr: string}} Its output, parsed, and its stderr
   */
  function run(args, env = {}) {
    const r = spawnSync(process.execPath, [...args, 'main.js'], {
      cwd: app, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '', ...env },
    });
    assert.strictEqual(r.status, 0, r.stderr);
    return { out: JSON.parse(r.stdout), stderr: r.stderr };
  }

  before(() => {
    app = installApp();
    const pkg = (dir) => JSON.parse(fs.readFileSync(path.join(app, dir, 'package.json'), 'utf8')).version;
    assert.strictEqual(pkg('node_modules/protobufjs'), '8.8.1');
    assert.strictEqual(pkg('node_modules/telemetry-exporter/node_modules/protobufjs'), '7.6.6');
    without = run([]).out;
    assert.deepStrictEqual(without.writers, { app: 'BufferWriter', exporter: 'BufferWriter' });
    // The two copies' codegens agree on these bytes, and static code agrees with reflection.
    assert.strictEqual(without.app.static, without.app.reflection);
    assert.strictEqual(without.exporter.static, without.app.static);
    assert.strictEqual(without.exporter.reflection, without.app.static);
  });

  /**
   * Checks a run with the preload: both copies installed, same bytes as without.
   * @param {{out: object}} result The run
   * @returns {undefined}
   */
  function checkInstalled({ out }) {
    assert.deepStrictEqual(out.writers, { app: 'RustWriter', exporter: 'RustWriter' });
    assert.deepStrictEqual({ app: out.app, exporter: out.exporter }, { app: without.app, exporter: without.exporter });
    assert.strictEqual(out.status.preload, true);
    const copies = out.status.copies.map((c) => [c.version, path.relative(app, c.path), c.installed]).sort();
    assert.deepStrictEqual(copies, [
      ['7.6.6', path.join('node_modules', 'telemetry-exporter', 'node_modules', 'protobufjs'), true],
      ['8.8.1', path.join('node_modules', 'protobufjs'), true],
    ]);
  }

  it('writes through RustWriter in both copies with node -r protobufjs-rustwriter/register', () => {
    checkInstalled(run(['-r', 'protobufjs-rustwriter/register'], { WITH_STATUS: '1' }));
  });

  it('does the same with node --import protobufjs-rustwriter/register', () => {
    checkInstalled(run(['--import', 'protobufjs-rustwriter/register'], { WITH_STATUS: '1' }));
  });

  it('does the same through NODE_OPTIONS, and prints the status once with PROTOBUFJS_RUSTWRITER_STATUS=1', () => {
    const result = run([], { NODE_OPTIONS: '-r protobufjs-rustwriter/register', WITH_STATUS: '1', PROTOBUFJS_RUSTWRITER_STATUS: '1' });
    checkInstalled(result);
    const lines = result.stderr.trim().split('\n');
    assert.strictEqual(lines.length, 3, result.stderr);
    assert.match(lines[0], /^protobufjs-rustwriter: (native addon|JS path \(no addon\)), preload on, 2 protobufjs copies seen$/);
    // Each copy's three Types, set up and cold: each encoded fewer times than promoteAfter.
    assert.ok(lines.some((l) => /protobufjs 7\.6\.6 at .*telemetry-exporter.*: RustWriter, compiled encoders \(Types: 0 compiled, 3 cold\)$/.test(l)), result.stderr);
    assert.ok(lines.some((l) => /protobufjs 8\.8\.1 at .*: RustWriter, compiled encoders \(Types: 0 compiled, 3 cold\)$/.test(l)), result.stderr);
  });

  it('installs into the copy already loaded when the preload is required late', () => {
    checkInstalled(run([], { LATE: '1', WITH_STATUS: '1' }));
  });
});
