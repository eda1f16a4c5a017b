'use strict';

/**
 * How the package loads and is used: the JS-only path (no addon, or forced), ES modules,
 * TypeScript declarations and worker threads. Each runs in a child process, since the path is
 * chosen once per process.
 */

const assert = require('assert');
const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const ROOT = path.join(__dirname, '..');

/** A script that encodes a few messages through RustWriter and protobufjs 8.8.1 and prints both. */
const ENCODE_BOTH = `
const protobuf = require('protobufjs');
const { RustWriter } = require(process.env.UNDER_TEST || 'protobufjs-rustwriter');
const root = protobuf.parse('syntax = "proto3"; message M { uint64 id = 1; string name = 2; repeated sint32 d = 3; M child = 4; }').root;
const M = root.lookupType('M');
const messages = [
  { id: 1, name: 'x' },
  { id: '18446744073709551615', name: 'é'.repeat(50), d: [-1, 2, -3], child: { name: 'y'.repeat(300) } },
];
const ours = messages.map((m) => Buffer.from(M.encode(M.fromObject(m), RustWriter.create()).finish()).toString('hex'));
const theirs = messages.map((m) => Buffer.from(M.encode(M.fromObject(m)).finish()).toString('hex'));
console.log(JSON.stringify({ native: RustWriter.native, same: ours.join() === theirs.join() }));
`;

/**
 * Runs `node` with `args` and extra environment variables; returns status, stdout and stderr.
 * @param {string[]} args Arguments
 * @param {Object<string, string>} env Environment additions
 * @param {string} [cwd] Working directory
 * @returns {{status: number, stdout: string, stderr: string}} Result
 */
function node(args, env = {}, cwd = ROOT) {
  const result = spawnSync(process.execPath, args, { cwd, env: { ...process.env, ...env }, encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('loading and using the package', function () {
  this.timeout(120000);

  it('has every method of the Writer API list (lib/writer/methods.js) on its prototype and in index.d.ts', () => {
    const { RustWriter } = require('..');
    const { WRITE_METHODS } = require('../lib/writer/methods');
    const own = Object.getOwnPropertyNames(RustWriter.prototype)
      .filter((name) => typeof Object.getOwnPropertyDescriptor(RustWriter.prototype, name).value === 'function');
    assert.deepStrictEqual(own.filter((name) => !name.startsWith('_')).sort(),
      [...WRITE_METHODS, 'constructor', 'finish', 'finishInto'].sort());
    const declaration = fs.readFileSync(path.join(ROOT, 'index.d.ts'), 'utf8').match(/export declare class RustWriter \{([^]*?)\n\}/)[1];
    const declared = [...declaration.matchAll(/^ {2}(\w+)(?:<[^>]*>)?\(/gm)].map((m) => m[1]).filter((name) => name !== 'constructor');
    assert.deepStrictEqual(declared.sort(), [...WRITE_METHODS, 'finish', 'finishInto'].sort());
  });

  it('encodes through the addon by default, with protobufjs\'s bytes', function () {
    const run = node(['-e', ENCODE_BOTH]);
    assert.strictEqual(run.status, 0, run.stderr);
    assert.deepStrictEqual(JSON.parse(run.stdout), { native: true, same: true });
    assert.strictEqual(run.stderr, '');
  });

  it('takes the JS path without a warning when PROTOBUFJS_RUSTWRITER=js, and rejects other values', function () {
    const run = node(['-e', ENCODE_BOTH], { PROTOBUFJS_RUSTWRITER: 'js' });
    assert.strictEqual(run.status, 0, run.stderr);
    assert.deepStrictEqual(JSON.parse(run.stdout), { native: false, same: true });
    assert.strictEqual(run.stderr, '');
    // Deep nesting: 200 forks open at once; the outer ones, over 127 bytes, close with fix-ups.
    const deep = node(['-e', `
      const protobuf = require('protobufjs');
      const { RustWriter } = require('protobufjs-rustwriter');
      const write = (w) => { for (let i = 0; i < 200; i++) w.uint32(10).fork(); w.string('leaf'); for (let i = 0; i < 200; i++) w.ldelim(); return w.finish(); };
      console.log(Buffer.from(write(RustWriter.create())).equals(Buffer.from(write(new protobuf.BufferWriter()))));
    `], { PROTOBUFJS_RUSTWRITER: 'js' });
    assert.strictEqual(deep.stdout.trim(), 'true', deep.stderr);
    const wrong = node(['-e', "require('protobufjs-rustwriter')"], { PROTOBUFJS_RUSTWRITER: 'fast' });
    assert.notStrictEqual(wrong.status, 0);
    assert.match(wrong.stderr, /must be "js" or "native"/);
  });

  it('gives protobufjs\'s bytes on the JS path for the 20,000 differential sequences, on its 3 paths', function () {
    const mocha = path.join(ROOT, 'node_modules', 'mocha', 'bin', 'mocha.js');
    const run = node([mocha, '--no-config', '--timeout', '300000', 'test/differential.test.js'], {
      PROTOBUFJS_RUSTWRITER: 'js',
    });
    assert.strictEqual(run.status, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /3 passing/);
  });

  it('is importable as an ES module', function () {
    const run = node(['--input-type=module', '-e', `
      import { RustWriter, install, uninstall } from 'protobufjs-rustwriter';
      import writer from 'protobufjs-rustwriter';
      console.log(JSON.stringify([typeof install, typeof uninstall, writer.RustWriter === RustWriter,
        RustWriter.create().uint32(300).finish().toString('hex')]));
    `]);
    assert.strictEqual(run.status, 0, run.stderr);
    assert.deepStrictEqual(JSON.parse(run.stdout), ['function', 'function', true, 'ac02']);
  });

  it('has declarations that compile with tsc --noEmit --strict against protobufjs\'s own types', function () {
    const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const run = node([tsc, '-p', path.join(__dirname, 'types', 'tsconfig.json')]);
    assert.strictEqual(run.status, 0, run.stdout + run.stderr);
  });

  it('encodes correctly in 4 worker threads at once and in the main thread', function () {
    const run = node(['-e', `
      const { Worker } = require('worker_threads');
      const script = ${JSON.stringify(ENCODE_BOTH)}.replace('console.log(', 'require("worker_threads").parentPort.postMessage(');
      const protobufjsBytes = [];
      const workers = Array.from({ length: 4 }, () => new Promise((resolve, reject) => {
        const worker = new Worker(script, { eval: true });
        worker.once('message', (m) => resolve(JSON.parse(m)));
        worker.once('error', reject);
      }));
      // The main thread encodes at the same time.
      const { RustWriter } = require('protobufjs-rustwriter');
      let main = '';
      for (let i = 0; i < 20000; i++) main = RustWriter.create().uint32(i).string('main').finish().toString('hex');
      Promise.all(workers).then((results) => console.log(JSON.stringify({ results, main })));
    `]);
    assert.strictEqual(run.status, 0, run.stderr);
    const { results, main } = JSON.parse(run.stdout);
    assert.deepStrictEqual(results, Array(4).fill({ native: true, same: true }));
    assert.strictEqual(main, '9f9c01' + '046d61696e');
  });
});
