'use strict';

/**
 * A local npm registry for the install tests: verdaccio (a dev dependency), listening on 127.0.0.1
 * only, its storage in a temporary folder, started and stopped by the test. Packages named
 * `protobufjs-rustwriter*` come only from what the test publishes into it; every other package
 * (protobufjs, long, …) it fetches from the npm registry on request (its uplink), as a company's
 * registry does. Used by scripts/test-registry.js.
 */

const { spawn, spawnSync } = require('child_process');
const fs = require('fs');
const net = require('net');
const os = require('os');
const path = require('path');

const ROOT = path.join(__dirname, '..');
const VERDACCIO = path.join(ROOT, 'node_modules', 'verdaccio', 'bin', 'verdaccio');
/** How long verdaccio may take to answer its first request. */
const START_MS = 60000;

/**
 * @returns {Promise<number>} A TCP port free on 127.0.0.1 a moment ago
 */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * @param {string} url Registry URL
 * @returns {Promise<boolean>} Whether it answers its ping
 */
async function answers(url) {
  try {
    return (await fetch(`${url}-/ping`)).ok;
  } catch {
    return false;
  }
}

/**
 * Starts verdaccio and makes a user whose token may publish.
 * @returns {Promise<{url: string, token: string, log: string, stop: function(): void}>} Its URL
 * (with a final slash), the token, its log file, and how to stop it (and remove its storage)
 */
async function startRegistry() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rustwriter-registry-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  fs.writeFileSync(path.join(dir, 'config.yaml'), [
    `storage: ${JSON.stringify(path.join(dir, 'storage'))}`,
    'auth:',
    `  htpasswd: { file: ${JSON.stringify(path.join(dir, 'htpasswd'))}, max_users: 1 }`,
    'uplinks:',
    '  npmjs: { url: "https://registry.npmjs.org/", timeout: 60s }',
    'packages:',
    // No proxy: these names resolve to what the test published, never to anything elsewhere.
    '  "protobufjs-rustwriter*": { access: $all, publish: $authenticated }',
    '  "**": { access: $all, publish: $authenticated, proxy: npmjs }',
    `listen: 127.0.0.1:${port}`,
    'web: { enable: false }',
    'log: { type: stdout, format: pretty, level: warn }',
    '',
  ].join('\n'));
  const log = path.join(dir, 'verdaccio.log');
  const out = fs.openSync(log, 'w');
  // Its output goes to a file, not a pipe: the tests block in spawnSync, and a full pipe would
  // stop the registry.
  const child = spawn(process.execPath, [VERDACCIO, '--config', path.join(dir, 'config.yaml')], { stdio: ['ignore', out, out] });
  fs.closeSync(out);
  const stop = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', stop);
  const until = Date.now() + START_MS;
  while (!(await answers(url))) {
    if (child.exitCode !== null || Date.now() > until) {
      const text = fs.readFileSync(log, 'utf8');
      stop();
      throw new Error(`verdaccio did not start on ${url}:\n${text}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const user = await fetch(`${url}-/user/org.couchdb.user:ci`, {
    method: 'PUT', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'ci', password: 'local-registry-only' }),
  });
  if (!user.ok) throw new Error(`verdaccio refused the test's user: ${user.status} ${await user.text()}`);
  const { token } = await user.json();
  return { url, token, log, stop };
}

/**
 * Publishes tarballs to the registry with `npm publish`, as a maintainer does (platform packages
 * first, the main package last).
 * @param {{url: string, token: string}} registry The registry
 * @param {string[]} tarballs Paths, in publishing order
 * @returns {undefined}
 */
function publish(registry, tarballs) {
  const npmrc = path.join(path.dirname(registry.log), 'publish.npmrc');
  fs.writeFileSync(npmrc, `registry=${registry.url}\n//${new URL(registry.url).host}/:_authToken=${registry.token}\n`);
  const cli = process.env.npm_execpath;
  const [command, prefix] = cli ? [process.execPath, [cli]] : ['npm', []];
  for (const tarball of tarballs) {
    const run = spawnSync(command, [...prefix, 'publish', tarball, '--userconfig', npmrc, '--registry', registry.url, '--no-provenance'],
      { encoding: 'utf8', cwd: os.tmpdir() });
    if (run.status !== 0) throw new Error(`npm publish ${path.basename(tarball)} failed:\n${run.stderr}`);
  }
}

module.exports = { startRegistry, publish };
