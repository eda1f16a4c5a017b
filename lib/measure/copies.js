'use strict';

/**
 * The protobufjs copies of an app, found on disk as `status()` would see them once loaded: every
 * package named `protobufjs` under the app's `node_modules` (nested copies, scoped packages, npm
 * aliases and pnpm's `.pnpm` store included), each with its version, the packages that depend on it,
 * and whether the app's own `require('protobufjs')` resolves to it or `@grpc/proto-loader` (the
 * gRPC case) encodes with it. Nothing here loads a copy.
 */

const fs = require('fs');
const path = require('path');

/** Packages read before the walk stops (a bound for pathological trees; real apps have a few thousand). */
const MAX_PACKAGES = 50000;
/** Nesting of `node_modules` the walk follows. */
const MAX_DEPTH = 12;
/** The package whose encodes a gRPC app's messages go through. */
const PROTO_LOADER = '@grpc/proto-loader';

/**
 * A directory's real path, or null if it does not exist.
 * @param {string} dir Directory
 * @returns {string|null} Real path
 */
function realDir(dir) {
  try {
    return fs.realpathSync(dir);
  } catch {
    return null;
  }
}

/**
 * A package's package.json, or null.
 * @param {string} dir Package directory
 * @returns {object|null} Manifest
 */
function manifestAt(dir) {
  try {
    const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
    return pkg !== null && typeof pkg === 'object' ? pkg : null;
  } catch {
    return null;
  }
}

/**
 * Where Node's resolution of the bare name `name` from `dir` lands: the first
 * `node_modules/<name>` at or above it (a package's dependencies resolve from its real path).
 * @param {string} dir Directory to resolve from (a real path)
 * @param {string} name Package name
 * @returns {string|null} The package's real directory
 */
function resolvePackage(dir, name) {
  for (let at = dir; ; at = path.dirname(at)) {
    if (path.basename(at) !== 'node_modules') {
      const found = realDir(path.join(at, 'node_modules', name));
      if (found !== null && fs.existsSync(path.join(found, 'package.json'))) return found;
    }
    if (path.dirname(at) === at) return null;
  }
}

/**
 * The names under which a manifest depends on protobufjs: `protobufjs`, and aliases such as
 * `"protobufjs7": "npm:protobufjs@^7"`.
 * @param {object} pkg Manifest
 * @param {boolean} [dev] Whether its devDependencies are installed (the app's are; a dependency's are not)
 * @returns {string[]} Names to resolve
 */
function protobufDependencies(pkg, dev = false) {
  const names = new Set();
  for (const field of ['dependencies', 'optionalDependencies', 'peerDependencies', ...(dev ? ['devDependencies'] : [])]) {
    const deps = pkg[field];
    if (deps === null || typeof deps !== 'object') continue;
    for (const [name, spec] of Object.entries(deps)) {
      if (name === 'protobufjs' || (typeof spec === 'string' && spec.startsWith('npm:protobufjs@'))) names.add(name);
    }
  }
  return [...names];
}

/**
 * Every package under `root`'s `node_modules` (the app's own dependencies and theirs, nested
 * copies included), each once by its real path.
 * @param {string} nodeModules A `node_modules` directory
 * @param {Map<string, {dir: string, name: string, pkg: object}>} seen Packages by real path (added to)
 * @param {number} depth Nesting so far
 * @returns {undefined}
 */
function walk(nodeModules, seen, depth) {
  if (depth > MAX_DEPTH || seen.size >= MAX_PACKAGES) return;
  let entries;
  try {
    entries = fs.readdirSync(nodeModules);
  } catch {
    return;
  }
  for (const entry of entries.sort()) {
    if (entry === '.pnpm') {
      // pnpm's store: <name>@<version>/node_modules/<name>, with its dependencies beside it
      for (const store of safeList(path.join(nodeModules, entry))) walk(path.join(nodeModules, entry, store, 'node_modules'), seen, depth + 1);
      continue;
    }
    if (entry.startsWith('.')) continue; // .bin, .cache, .package-lock.json
    const dirs = entry.startsWith('@') ? safeList(path.join(nodeModules, entry)).map((s) => path.join(nodeModules, entry, s))
      : [path.join(nodeModules, entry)];
    for (const dir of dirs) {
      const real = realDir(dir);
      if (real === null || seen.has(real)) continue;
      const pkg = manifestAt(real);
      if (pkg === null) continue;
      seen.set(real, { dir, name: typeof pkg.name === 'string' ? pkg.name : path.relative(nodeModules, dir), pkg });
      walk(path.join(dir, 'node_modules'), seen, depth + 1); // under the app's path, for display
      if (seen.size >= MAX_PACKAGES) return;
    }
  }
}

/**
 * The entries of a directory, or none.
 * @param {string} dir Directory
 * @returns {string[]} Names
 */
function safeList(dir) {
  try {
    return fs.readdirSync(dir).sort();
  } catch {
    return [];
  }
}

/**
 * The protobufjs copies an app in `cwd` has.
 * @param {string} cwd The app's directory
 * @returns {{copies: Array<{version: string, path: string, real: string, app: boolean, grpc: boolean,
 *   usedBy: string[]}>, app: string|null, grpc: {version: string, path: string, protobufjs: string|null}|null,
 *   truncated: boolean}} Each copy (its path as found, its real path, whether the app's
 *   `require('protobufjs')` gives it, whether @grpc/proto-loader encodes with it, the packages that depend
 *   on it), the real path of the app's copy, @grpc/proto-loader if the app resolves it, and whether the
 *   walk stopped at {@link MAX_PACKAGES}
 */
function findCopies(cwd) {
  const appDir = realDir(cwd) || cwd;
  const seen = new Map();
  walk(path.join(appDir, 'node_modules'), seen, 0);
  const app = resolvePackage(appDir, 'protobufjs');
  // A monorepo's app resolves protobufjs from an ancestor's node_modules: list that tree too.
  if (app !== null && !seen.has(app)) {
    let nodeModules = path.dirname(app);
    while (path.basename(nodeModules) !== 'node_modules' && path.dirname(nodeModules) !== nodeModules) nodeModules = path.dirname(nodeModules);
    walk(nodeModules, seen, 0);
  }
  const loaderDir = resolvePackage(appDir, PROTO_LOADER);
  let grpc = null;
  if (loaderDir !== null) {
    const pkg = manifestAt(loaderDir) || {};
    if (!seen.has(loaderDir)) seen.set(loaderDir, { dir: loaderDir, name: PROTO_LOADER, pkg });
    grpc = { version: String(pkg.version), path: loaderDir, protobufjs: resolvePackage(loaderDir, 'protobufjs') };
  }
  const copies = new Map();
  for (const [real, { dir, pkg }] of seen) {
    if (pkg.name === 'protobufjs') copies.set(real, { version: String(pkg.version), path: dir, real, app: real === app, grpc: false, usedBy: [] });
  }
  if (app !== null && !copies.has(app)) {
    const pkg = manifestAt(app) || {};
    copies.set(app, { version: String(pkg.version), path: app, real: app, app: true, grpc: false, usedBy: [] });
  }
  if (grpc !== null && grpc.protobufjs !== null && copies.has(grpc.protobufjs)) copies.get(grpc.protobufjs).grpc = true;
  for (const [real, { name, pkg }] of seen) {
    if (pkg.name === 'protobufjs') continue;
    for (const dep of protobufDependencies(pkg)) {
      const copy = copies.get(resolvePackage(real, dep));
      if (copy !== undefined && !copy.usedBy.includes(name)) copy.usedBy.push(name);
    }
  }
  const appPkg = manifestAt(appDir);
  for (const dep of appPkg === null ? [] : protobufDependencies(appPkg, true)) {
    const copy = dep === 'protobufjs' ? undefined : copies.get(resolvePackage(appDir, dep));
    if (copy !== undefined) copy.usedBy.push(`the app (as ${dep})`);
  }
  return { copies: [...copies.values()], app, grpc, truncated: seen.size >= MAX_PACKAGES };
}

/**
 * A copy's path for a person: relative to the app's directory when inside it.
 * @param {string} cwd The app's directory
 * @param {string} dir A directory
 * @returns {string} Path
 */
function displayPath(cwd, dir) {
  const relative = path.relative(cwd, dir);
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : dir;
}

module.exports = { findCopies, displayPath, realDir, PROTO_LOADER };
