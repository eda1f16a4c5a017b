'use strict';

/**
 * `npm run test:bundle` (run by .ci/run after `npm run pack`): the recipes of README "Bundlers and
 * serverless", run as written with the real bundlers (this repository's esbuild, webpack and
 * webpack-cli, linked into the app as its dev dependencies). The app is installed as a user
 * installs it: `npm install protobufjs-rustwriter` from a local registry (scripts/registry.js)
 * holding the tarballs of dist/ (npm skips the platform packages dist/ lacks). Its program
 * (scripts/user-app.js) calls `install(protobuf)` on the protobufjs the bundle holds, and also
 * prints `status()`'s copies. Each layout must load the addon with no warning, give protobufjs's
 * bytes, and get compiled encoders for the bundled protobufjs:
 * - esbuild, everything in the bundle, the platform package copied beside it, zipped, and run from
 *   the unzipped folder alone (a function's zip);
 * - esbuild with protobufjs-rustwriter external, run from the app's folder;
 * - webpack (webpack.config.js as README gives it), the platform package beside the bundle, run
 *   from a copy of dist/ alone;
 * - webpack with the package external (the config's `externals` line), run from the app's folder.
 */

const assert = require('assert');
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { startRegistry, publish } = require('./registry');
const { ensureApt, has } = require('./platforms');
const { PROGRAM } = require('./user-app');

const ROOT = path.join(__dirname, '..');
const DIST = path.join(ROOT, 'dist');
const { version } = require('../package.json');
const PROTOBUFJS = require('protobufjs/package.json').version;
const README = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8').replace(/\r\n/g, '\n');

/** The README's commands, each checked to be there as written. */
const ESBUILD = 'npx esbuild app.js --bundle --platform=node --outfile=dist/app.js';
const ESBUILD_EXTERNAL = `${ESBUILD} --external:protobufjs-rustwriter`;
const BESIDE = 'mkdir -p dist/node_modules && cp -R node_modules/protobufjs-rustwriter-* dist/node_modules/';
const ZIP = 'cd dist && zip -qr ../function.zip . && cd ..';
const WEBPACK = 'npx webpack';
/** The line of the README's webpack.config.js that keeps the package external, commented out there. */
const EXTERNALS = "externals: { 'protobufjs-rustwriter': 'commonjs protobufjs-rustwriter' },";

/** Text of the package's loader, which a minifier keeps: whether the package is in a bundle. */
const PACKAGE_TEXT = 'was bundled into code that has no __filename';

/** The app's program: the install tests' (its one JSON line), then `status()`'s copies as they were installed. */
const APP = `${PROGRAM.replace('\nuninstall(protobuf);', "\nconst copies = require('protobufjs-rustwriter').status().copies;\nuninstall(protobuf);")}` +
  'console.log(JSON.stringify(copies));\n';

/**
 * @returns {string} The webpack.config.js README gives, found after the line that names it
 */
function webpackConfig() {
  const match = README.match(/```js\n\/\/ webpack\.config\.js\n([\s\S]*?)```/);
  assert.ok(match, 'README.md has no ```js block starting "// webpack.config.js"');
  return match[1];
}

/**
 * Runs a shell command in `dir`; throws with its output if it fails.
 * @param {string} dir Folder
 * @param {string} command Command line
 * @returns {{stdout: string, stderr: string}} Its output
 */
function sh(dir, command) {
  const run = spawnSync('sh', ['-c', command], { cwd: dir, encoding: 'utf8', timeout: 300000, env: { ...process.env, npm_config_yes: 'false' } });
  if (run.error) throw run.error;
  assert.strictEqual(run.status, 0, `${command} failed in ${dir}:\n${run.stdout}\n${run.stderr}`);
  return run;
}

/**
 * Runs the app's bundle with node and checks what it reports.
 * @param {string} cwd Where it runs from
 * @param {string} file The bundle
 * @returns {string} A line for the log
 */
function assertRuns(cwd, file) {
  const run = sh(cwd, `'${process.execPath}' ${file}`);
  const [result, copies] = run.stdout.trim().split('\n').map((line) => JSON.parse(line));
  const warnings = run.stderr.split('\n').filter((line) => line.includes('ProtobufjsRustwriterWarning'));
  assert.deepStrictEqual(warnings, [], run.stderr);
  assert.deepStrictEqual(result, { native: true, same: true });
  assert.deepStrictEqual(copies.map((c) => [c.installed, c.compiled]), [[true, true]], JSON.stringify(copies));
  const bundled = copies[0].path === null;
  return `the addon loads, compiled encoders${bundled ? ' (protobufjs bundled: no package.json)' : ''}, protobufjs's bytes`;
}

/**
 * A user's app installed from the registry, with this repository's bundlers linked in as its dev
 * dependencies.
 * @param {{url: string}} registry The local registry
 * @param {string} cache npm's cache for the run
 * @returns {string} Its folder
 */
function makeApp(registry, cache) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rustwriter-bundle-app-'));
  const manifest = { name: 'user-service', version: '1.0.0', private: true, dependencies: { protobufjs: PROTOBUFJS } };
  fs.writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  fs.writeFileSync(path.join(dir, '.npmrc'), `registry=${registry.url}\ncache=${cache}\naudit=false\nfund=false\n`);
  fs.writeFileSync(path.join(dir, 'app.js'), APP);
  sh(dir, 'npm install protobufjs-rustwriter');
  const modules = path.join(dir, 'node_modules');
  for (const name of ['esbuild', '@esbuild', 'webpack', 'webpack-cli']) {
    fs.symlinkSync(path.join(ROOT, 'node_modules', name), path.join(modules, name), 'dir');
  }
  fs.mkdirSync(path.join(modules, '.bin'), { recursive: true });
  for (const bin of ['esbuild', 'webpack']) fs.symlinkSync(fs.realpathSync(path.join(ROOT, 'node_modules', '.bin', bin)), path.join(modules, '.bin', bin));
  return dir;
}

/**
 * Copies `dir/dist` to a new folder of its own, as a deployment has it, or unzips `zip` there.
 * @param {string} dir The app
 * @param {string|null} zip A zip of dist/ to unzip instead
 * @returns {string} The deployed folder
 */
function deploy(dir, zip) {
  const target = fs.mkdtempSync(path.join(os.tmpdir(), 'rustwriter-deployed-'));
  if (zip) sh(target, `unzip -q '${zip}'`);
  else fs.cpSync(path.join(dir, 'dist'), target, { recursive: true });
  return target;
}

async function main() {
  const started = Date.now();
  for (const line of [ESBUILD, ESBUILD_EXTERNAL, BESIDE, ZIP, `// ${EXTERNALS}`]) {
    assert.ok(README.includes(`\n${line}\n`) || README.includes(`\n  ${line}\n`), `README.md does not give \`${line}\` on a line of its own`);
  }
  assert.ok(README.includes(`\`${WEBPACK}\``), `README.md does not give \`${WEBPACK}\``);
  ensureApt(['zip', 'unzip'], () => has('zip') && has('unzip'), 'the function zip recipe');
  const main = path.join(DIST, `protobufjs-rustwriter-${version}.tgz`);
  const platforms = fs.existsSync(DIST) ? fs.readdirSync(DIST).filter((f) => f.endsWith('.tgz') && f !== path.basename(main)) : [];
  if (!fs.existsSync(main) || platforms.length === 0) throw new Error('test:bundle installs the tarballs of dist/: run npm run pack first');
  const registry = await startRegistry();
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'rustwriter-bundle-cache-'));
  const folders = [cache];
  const log = [];
  const layout = (title, body) => {
    const t0 = Date.now();
    const dir = makeApp(registry, cache);
    folders.push(dir);
    log.push(`✔ ${title}: ${body(dir)} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
    process.stdout.write(`${log[log.length - 1]}\n`);
  };
  try {
    publish(registry, [...platforms.map((f) => path.join(DIST, f)), main]);
    layout('esbuild, everything bundled, the platform package beside it, a function\'s zip', (dir) => {
      for (const command of [ESBUILD, BESIDE, ZIP]) sh(dir, command);
      assert.ok(fs.readFileSync(path.join(dir, 'dist', 'app.js'), 'utf8').includes(PACKAGE_TEXT), 'the package is not in the bundle');
      const deployed = deploy(dir, path.join(dir, 'function.zip'));
      folders.push(deployed);
      return assertRuns(deployed, 'app.js');
    });
    layout('esbuild, protobufjs-rustwriter external', (dir) => {
      sh(dir, ESBUILD_EXTERNAL);
      assert.ok(!fs.readFileSync(path.join(dir, 'dist', 'app.js'), 'utf8').includes(PACKAGE_TEXT), 'the package was bundled');
      return assertRuns(dir, 'dist/app.js');
    });
    layout('webpack, everything bundled, the platform package beside it', (dir) => {
      fs.writeFileSync(path.join(dir, 'webpack.config.js'), webpackConfig());
      for (const command of [WEBPACK, BESIDE]) sh(dir, command);
      assert.ok(fs.readFileSync(path.join(dir, 'dist', 'app.js'), 'utf8').includes(PACKAGE_TEXT), 'the package is not in the bundle');
      const deployed = deploy(dir, null);
      folders.push(deployed);
      return assertRuns(deployed, 'app.js');
    });
    layout('webpack, protobufjs-rustwriter external', (dir) => {
      const config = webpackConfig();
      assert.ok(config.includes(`// ${EXTERNALS}`), 'the webpack config has no externals line to uncomment');
      fs.writeFileSync(path.join(dir, 'webpack.config.js'), config.replace(`// ${EXTERNALS}`, EXTERNALS));
      sh(dir, WEBPACK);
      assert.ok(!fs.readFileSync(path.join(dir, 'dist', 'app.js'), 'utf8').includes(PACKAGE_TEXT), 'the package was bundled');
      return assertRuns(dir, 'dist/app.js');
    });
  } finally {
    registry.stop();
    for (const dir of folders) fs.rmSync(dir, { recursive: true, force: true });
  }
  process.stdout.write(`test:bundle: ${log.length} layouts passed in ${Math.round((Date.now() - started) / 1000)} s\n`);
}

main().catch((err) => {
  process.stderr.write(`${err.stack}\n`);
  process.exitCode = 1;
});
