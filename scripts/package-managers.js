'use strict';

/**
 * The package managers users install with, for the install tests (scripts/test-pack.js,
 * scripts/test-registry.js): npm 10 (the line Node 22 bundles) and npm 11, pnpm and yarn (berry),
 * each a release pinned here and fetched from the npm registry on first use into `target/cross/npm/`
 * (scripts/platforms.js `npmPackage`), never installed globally; Bun comes from scripts/runtimes.js.
 * Each is given as a folder of commands to put first on the PATH, running on this Node.
 */

const fs = require('fs');
const path = require('path');
const { CACHE, npmPackage } = require('./platforms');

/** The npm releases installs are tried with: npm 10 (Node 22 bundles 10.9) and npm 11. */
const NPM = { 10: '10.9.4', 11: '11.21.2' };
/**
 * pnpm 10, the last line whose `pnpm` package is JavaScript (one bundled file): from 11 on it is a
 * launcher that runs, or downloads, a native binary.
 */
const PNPM = '10.34.8';
/** yarn berry (`@yarnpkg/cli-dist`: one bundled file). */
const YARN = '4.18.1';

/**
 * A folder under target/cross/pm-bin whose `commands` run files of an extracted package on this Node.
 * @param {string} name Folder name
 * @param {object} files Command name to the JS file it runs
 * @returns {string} The folder
 */
function shims(name, files) {
  const dir = path.join(CACHE, 'pm-bin', name);
  fs.mkdirSync(dir, { recursive: true });
  for (const [command, file] of Object.entries(files)) {
    fs.writeFileSync(path.join(dir, command), `#!/bin/sh\nexec '${process.execPath}' '${file}' "$@"\n`, { mode: 0o755 });
  }
  return dir;
}

/**
 * A folder whose `npm` and `npx` run that npm release on this Node, as an install of it would.
 * @param {string} major A key of NPM
 * @returns {string} The folder
 */
function npmBin(major) {
  const cli = path.join(npmPackage('npm', NPM[major]), 'bin');
  return shims(`npm-${NPM[major]}`, { npm: path.join(cli, 'npm-cli.js'), npx: path.join(cli, 'npx-cli.js') });
}

/** @returns {string} A folder whose `pnpm` runs the pinned pnpm */
function pnpmBin() {
  return shims(`pnpm-${PNPM}`, { pnpm: path.join(npmPackage('pnpm', PNPM), 'bin', 'pnpm.cjs') });
}

/** @returns {string} A folder whose `yarn` runs the pinned yarn berry */
function yarnBin() {
  return shims(`yarn-${YARN}`, { yarn: path.join(npmPackage('@yarnpkg/cli-dist', YARN), 'bin', 'yarn.js') });
}

module.exports = { NPM, PNPM, YARN, npmBin, pnpmBin, yarnBin };
