'use strict';

/**
 * `npm run pack`: packs the main package and the platform packages built here into `dist/`,
 * ready for `npm publish <tarball>`:
 * - dist/protobufjs-rustwriter-<version>.tgz: the JS, types and protocol, with every platform
 *   package of package.json's `napi.targets` in `optionalDependencies` (npm installs the one that
 *   matches the user's os/cpu/libc and skips the others);
 * - dist/protobufjs-rustwriter-<platform>-<version>.tgz for each platform whose binary exists
 *   at the package root: all of them after `npm run build:all` (on Linux x64), only this machine's
 *   after `npm run build`.
 */

const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const ROOT = path.join(__dirname, '..');
const DIST = path.join(ROOT, 'dist');
const NPM_DIRS = path.join(ROOT, 'npm');
const pkg = require('../package.json');

/**
 * Runs npm with `args` in `cwd` and returns its stdout.
 * @param {string[]} args Arguments
 * @param {string} cwd Directory
 * @returns {string} Output
 */
function npm(args, cwd) {
  const cli = process.env.npm_execpath;
  const [command, prefix] = cli ? [process.execPath, [cli]] : [process.platform === 'win32' ? 'npm.cmd' : 'npm', []];
  return execFileSync(command, [...prefix, ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
}

/**
 * Copies `from` (a file or directory) to `to`.
 * @param {string} from Source
 * @param {string} to Destination
 * @returns {undefined}
 */
function copy(from, to) {
  fs.cpSync(from, to, { recursive: true });
}

fs.rmSync(DIST, { recursive: true, force: true });
fs.mkdirSync(DIST);

// Platform packages: each npm/<platform> dir (from `napi create-npm-dirs`) whose binary was built.
const platforms = [];
for (const dir of fs.readdirSync(NPM_DIRS).sort()) {
  const platformPkg = JSON.parse(fs.readFileSync(path.join(NPM_DIRS, dir, 'package.json'), 'utf8'));
  if (platformPkg.version !== pkg.version) throw new Error(`npm/${dir} is version ${platformPkg.version}, not ${pkg.version}`);
  platforms.push(platformPkg.name);
  const binary = path.join(ROOT, platformPkg.main);
  if (!fs.existsSync(binary)) continue;
  const stage = path.join(DIST, 'stage', dir);
  copy(path.join(NPM_DIRS, dir), stage);
  copy(binary, path.join(stage, platformPkg.main));
  npm(['pack', '--pack-destination', DIST], stage);
  process.stdout.write(`packed ${platformPkg.name}\n`);
}

// The main package: its files, and a package.json with the platform packages as optional
// dependencies and without the development scripts (a tarball install runs no build).
const stage = path.join(DIST, 'stage', 'main');
fs.mkdirSync(stage, { recursive: true });
for (const file of [...pkg.files, 'README.md']) copy(path.join(ROOT, file), path.join(stage, file));
const published = { ...pkg, optionalDependencies: Object.fromEntries(platforms.map((name) => [name, pkg.version])) };
delete published.devDependencies;
delete published.overrides; // pins for this repository's dev tools; npm ignores them in a dependency
delete published.scripts;
fs.writeFileSync(path.join(stage, 'package.json'), `${JSON.stringify(published, null, 2)}\n`);
npm(['pack', '--pack-destination', DIST], stage);
fs.rmSync(path.join(DIST, 'stage'), { recursive: true, force: true });
process.stdout.write(`packed ${pkg.name}: ${fs.readdirSync(DIST).join(', ')} in dist/\n`);
