'use strict';

/**
 * `npm run test:registry` (run by .ci/run after `npm run pack`): installs the package as users do,
 * from a registry. A local registry (verdaccio on 127.0.0.1, scripts/registry.js) gets the twelve
 * tarballs of dist/ published into it, the platform packages first; then, for each package
 * manager, a fresh app (a package.json that depends on protobufjs, a `.npmrc` or `.yarnrc.yml`
 * that points at the registry, its own cache) runs the README's install command as written
 * (`npm install protobufjs-rustwriter`, `pnpm add …`, `yarn add …`, `bun add …`), with cargo and
 * rustc off the PATH, and then its program (scripts/user-app.js) must load the addon, with no
 * warning, and give protobufjs's bytes; only this platform's package may be installed. The
 * package managers: npm 10 and 11, pnpm 10 and yarn 4 (berry, Plug'n'Play, its default), fetched
 * from the npm registry (scripts/package-managers.js), and Bun (scripts/runtimes.js), whose app
 * runs under both Node and Bun.
 */

const assert = require('assert');
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { NPM, PNPM, YARN, npmBin, pnpmBin, yarnBin } = require('./package-managers');
const { startRegistry, publish } = require('./registry');
const runtimes = require('./runtimes');
const { PROGRAM } = require('./user-app');

const ROOT = path.join(__dirname, '..');
const DIST = path.join(ROOT, 'dist');
const { version, napi } = require('../package.json');
const PROTOBUFJS = require('protobufjs/package.json').version;
const README = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8').replace(/\r\n/g, '\n');

/** PATH without any directory holding cargo or rustc: nothing may be built at install. */
const PATH_WITHOUT_RUST = process.env.PATH.split(path.delimiter)
  .filter((dir) => !['cargo', 'rustc'].some((tool) => fs.existsSync(path.join(dir, tool))))
  .join(path.delimiter);

/**
 * Runs a shell command in `dir` with `bin` first on the PATH.
 * @param {string} dir App folder
 * @param {string} command Command line
 * @param {string} bin Folder of the package manager's commands
 * @param {object} [env] More environment
 * @returns {{stdout: string, stderr: string}} Its output; throws if it failed
 */
function sh(dir, command, bin, env = {}) {
  const run = spawnSync('sh', ['-c', command], {
    cwd: dir, encoding: 'utf8', timeout: 300000,
    env: { ...process.env, ...env, PATH: `${bin}${path.delimiter}${PATH_WITHOUT_RUST}` },
  });
  if (run.error) throw run.error;
  assert.strictEqual(run.status, 0, `${command} failed in ${dir}:\n${run.stdout}\n${run.stderr}`);
  return run;
}

/**
 * The package managers, each with the README's install command, how it is pointed at the registry,
 * how the app then runs, and where its installed platform packages show.
 * @param {{url: string}} registry The local registry
 * @param {string} cache A folder for the managers' caches
 * @returns {object[]} Cases
 */
function managers(registry, cache) {
  const npmrc = (extra) => ({ '.npmrc': `registry=${registry.url}\n${extra}` });
  const bun = runtimes.bun();
  const nodeModules = (dir) => fs.readdirSync(path.join(dir, 'node_modules'));
  return [
    ...Object.keys(NPM).map((major) => ({
      name: `npm ${NPM[major]}`, bin: npmBin(major), command: 'npm install protobufjs-rustwriter',
      files: npmrc(`cache=${path.join(cache, `npm-${major}`)}\naudit=false\nfund=false\n`),
      run: [`'${process.execPath}' program.js`], installed: nodeModules,
    })),
    {
      name: `pnpm ${PNPM}`, bin: pnpmBin(), command: 'pnpm add protobufjs-rustwriter',
      files: npmrc(`store-dir=${path.join(cache, 'pnpm')}\n`),
      run: [`'${process.execPath}' program.js`],
      installed: (dir) => fs.readdirSync(path.join(dir, 'node_modules', '.pnpm')).map((entry) => entry.split('@')[0]),
    },
    {
      // Plug'n'Play: the app runs through `yarn node`. The registry is plain http on 127.0.0.1, and
      // its packages are seconds old, younger than yarn's age gate for new releases.
      name: `yarn ${YARN}`, bin: yarnBin(), command: 'yarn add protobufjs-rustwriter',
      files: {
        // Its global folder too is the run's own: yarn keeps the registry's metadata there by host, without the
        // port, and would take an earlier run's tarball URLs (another port of 127.0.0.1) for this registry's.
        '.yarnrc.yml': [`npmRegistryServer: "${registry.url.replace(/\/$/, '')}"`, 'unsafeHttpWhitelist: ["127.0.0.1"]',
          'npmMinimalAgeGate: 0', 'enableTelemetry: false', 'enableGlobalCache: false',
          `globalFolder: ${JSON.stringify(path.join(cache, 'yarn'))}`, ''].join('\n'),
      },
      run: ['yarn node program.js'],
      installed: (dir) => fs.readdirSync(path.join(dir, '.yarn', 'cache')).map((file) => file.replace(/-npm-.*$/, '')),
    },
    {
      name: bun.name, bin: path.dirname(bun.bin), command: 'bun add protobufjs-rustwriter',
      files: npmrc(''), env: { BUN_INSTALL_CACHE_DIR: path.join(cache, 'bun') },
      run: [`'${process.execPath}' program.js`, 'bun program.js'], installed: nodeModules,
    },
  ];
}

/**
 * @returns {string[]} The tarballs to publish: the eleven platform packages, then the main one
 */
function tarballs() {
  const main = `protobufjs-rustwriter-${version}.tgz`;
  const found = fs.existsSync(DIST) ? fs.readdirSync(DIST).filter((f) => f.endsWith('.tgz')) : [];
  const platforms = found.filter((f) => f !== main);
  if (!found.includes(main) || platforms.length !== napi.targets.length) {
    throw new Error(`test:registry publishes npm run pack's ${napi.targets.length + 1} tarballs, and dist/ has ${found.length}: ` +
      'run npm run build:all && npm run pack first (yarn resolves every optional dependency, so all must be there)');
  }
  return [...platforms.sort(), main].map((f) => path.join(DIST, f));
}

async function main() {
  const started = Date.now();
  const local = `protobufjs-rustwriter-${process.platform}-${process.arch}${process.platform === 'linux'
    ? (process.report.getReport().header.glibcVersionRuntime ? '-gnu' : '-musl') : process.platform === 'win32' ? '-msvc' : ''}`;
  const files = tarballs();
  const registry = await startRegistry();
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'rustwriter-pm-cache-'));
  const failed = [];
  const log = [];
  try {
    publish(registry, files);
    process.stdout.write(`published ${files.length} tarballs to ${registry.url} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
    for (const pm of managers(registry, cache)) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rustwriter-registry-app-'));
      const t0 = Date.now();
      try {
        assert.ok(README.includes(`\n${pm.command}`), `README.md's Install does not give \`${pm.command}\``);
        const manifest = { name: 'user-app', version: '1.0.0', private: true, dependencies: { protobufjs: PROTOBUFJS } };
        fs.writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
        fs.writeFileSync(path.join(dir, 'program.js'), PROGRAM);
        for (const [name, text] of Object.entries(pm.files)) fs.writeFileSync(path.join(dir, name), text);
        sh(dir, pm.command, pm.bin, pm.env);
        const platforms = pm.installed(dir).filter((name) => name.startsWith('protobufjs-rustwriter-'));
        assert.deepStrictEqual([...new Set(platforms)], [local], `${pm.name} installed these platform packages`);
        for (const command of pm.run) {
          const run = sh(dir, command, pm.bin, pm.env);
          const warnings = run.stderr.split('\n').filter((line) => line.includes('ProtobufjsRustwriterWarning'));
          assert.deepStrictEqual(warnings, [], `${command}: ${run.stderr}`);
          assert.deepStrictEqual(JSON.parse(run.stdout), { native: true, same: true }, `${command}: ${run.stdout}`);
        }
        log.push(`✔ ${pm.name}: \`${pm.command}\` installs ${local} alone; ${pm.run.map((c) => `\`${c.replace(`'${process.execPath}'`, 'node')}\``)
          .join(' and ')}: the addon loads, protobufjs's bytes (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
        process.stdout.write(`${log[log.length - 1]}\n`);
      } catch (err) {
        failed.push(`${pm.name}: ${err.message}`);
        process.stderr.write(`✘ ${pm.name}: ${err.message}\n`);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    }
  } finally {
    registry.stop();
    fs.rmSync(cache, { recursive: true, force: true });
  }
  const seconds = Math.round((Date.now() - started) / 1000);
  if (failed.length > 0) {
    process.stderr.write(`\ntest:registry failed:\n${failed.map((f) => `  ${f}\n`).join('')}`);
    process.exitCode = 1;
  } else {
    process.stdout.write(`test:registry: ${log.length} package managers installed from the registry, in ${seconds} s\n`);
  }
}

main().catch((err) => {
  process.stderr.write(`${err.stack}\n`);
  process.exitCode = 1;
});
