'use strict';

/**
 * protobufjs bundled into one file with the app (esbuild, webpack): no package.json tells its
 * version, so compiled encoders go by what the module object itself has (lib/integration/
 * encoders.js `rulesOf`). Each case bundles a small app, protobufjs 8.8.1 or 7.6.6 and this
 * package into a temporary folder, runs it, and compares the bytes of every message encoded with
 * compiled encoders against protobufjs's own writer in the same process (the schema fixtures,
 * measure's first two seeded samples of each message type). The README section "Bundlers and serverless"
 * has the recipes; `npm run test:bundle` runs them as written.
 */

const assert = require('assert');
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const ROOT = path.join(__dirname, '..');
const FIXTURES = path.join(__dirname, 'fixtures');

/**
 * The app: installs into the bundled protobufjs with `options`, encodes every message type's
 * samples of the fixtures with compiled encoders, then again with protobufjs's own writer (a new
 * Root, after uninstall), and prints what it saw.
 * @param {string} protobufjs The protobufjs the app requires (`protobufjs` or `protobufjs7`)
 * @param {object} options install() options
 * @param {string[]} [schemas] The fixtures it encodes the messages of
 * @returns {string} Its source
 */
const app = (protobufjs, options, schemas = ['scalars.proto', 'nested.proto', 'legacy.proto']) => `
const util = require('util');
const protobuf = require(${JSON.stringify(require.resolve(protobufjs))});
const { install, uninstall, status, RustWriter } = require(${JSON.stringify(ROOT)});
const { samples } = require(${JSON.stringify(path.join(ROOT, 'lib', 'measure', 'sample.js'))});
const { formatStatus } = require(${JSON.stringify(path.join(ROOT, 'lib', 'integration', 'status.js'))});
const files = ${JSON.stringify(schemas.map((f) => path.join(FIXTURES, f)))};
function encodeAll() {
  const root = protobuf.loadSync(files);
  const out = [];
  let compiled = 0;
  let types = 0;
  (function walk(ns) {
    for (const t of ns.nestedArray) {
      if (t instanceof protobuf.Type) {
        // The samples with repeated fields and maps of 1 and 10 elements (the third, of 100, adds time, not kinds).
        for (const m of samples(t).slice(0, 2)) {
          const bytes = t.encode(t.fromObject(m)).finish();
          out.push(t.fullName + ' ' + Buffer.from(bytes).toString('hex'));
        }
        if (require(${JSON.stringify(ROOT)})._testing.isCompiled(t.encode)) compiled++;
        types++;
      }
      if (t.nestedArray) walk(t);
    }
  })(root);
  return { out, compiled, types };
}
// Every Type compiled as it is set up, rather than at its 16th message (lib/encoders/compile.js, "Tiers").
require(${JSON.stringify(ROOT)})._testing.configure({ promoteAfter: 0 });
install(protobuf, ${JSON.stringify(options)});
const ours = encodeAll();
const s = status();
const names = [RustWriter.name, util.inspect(protobuf.Writer.create()).split(' ')[0]];
uninstall(protobuf);
const theirs = encodeAll();
const differing = ours.out.filter((line, i) => line !== theirs.out[i]);
console.log(JSON.stringify({ messages: ours.out.length, differing: differing.slice(0, 3), compiled: ours.compiled, types: ours.types,
  copies: s.copies, line: formatStatus(s).split('\\n')[1], names }));
`;

/**
 * Bundles `source` with `bundler` into `dir/bundle.js` and runs it.
 * @param {string} dir Temporary folder
 * @param {'esbuild'|'webpack'} bundler Which
 * @param {string} source The app
 * @returns {Promise<object>} What the app printed
 */
async function bundleAndRun(dir, bundler, source) {
  const entry = path.join(dir, 'app.js');
  fs.writeFileSync(entry, source);
  const outfile = path.join(dir, 'dist', 'bundle.js');
  if (bundler === 'esbuild') {
    require('esbuild').buildSync({ entryPoints: [entry], bundle: true, platform: 'node', outfile, logLevel: 'error' });
  } else {
    const webpack = require('webpack');
    const stats = await new Promise((resolve, reject) => webpack({
      mode: 'production', target: 'node', entry, context: dir, optimization: { minimize: false },
      output: { path: path.dirname(outfile), filename: path.basename(outfile) },
    }, (err, result) => (err ? reject(err) : resolve(result))));
    assert.ok(!stats.hasErrors(), stats.toString('errors-only'));
  }
  const text = fs.readFileSync(outfile, 'utf8');
  // Bundled for real: protobufjs's writer is inside the one file.
  assert.ok(text.includes('function create_buffer()'), 'protobufjs is not in the bundle');
  const run = spawnSync(process.execPath, [outfile], { cwd: dir, encoding: 'utf8' });
  assert.strictEqual(run.status, 0, run.stderr);
  return JSON.parse(run.stdout);
}

describe('protobufjs bundled into one file with the app', function () {
  this.timeout(60000);

  let tmp;
  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rustwriter-bundle-'));
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  for (const [bundler, protobufjs, rules] of [['esbuild', 'protobufjs', 8], ['esbuild', 'protobufjs7', 7], ['webpack', 'protobufjs', 8], ['webpack', 'protobufjs7', 7]]) {
    it(`gets compiled encoders from its features, with protobufjs's bytes (${bundler}, protobufjs ${rules === 8 ? '8.8.1' : '7.6.6'})`, async () => {
      const seen = await bundleAndRun(tmp, bundler, app(protobufjs, {}));
      assert.ok(seen.messages >= 26, `${seen.messages} messages`); // 13 types, 2 samples each
      assert.deepStrictEqual(seen.differing, []);
      assert.ok(seen.compiled > 10, `${seen.compiled} compiled encoders`);
      // Every Type of the schema, each set up (and so compiled, at promoteAfter 0) by its own samples.
      const types = { compiled: seen.types, cold: 0, kept: [] };
      // Compiled serializers mirror fromObject by protobufjs version, which a bundle does not say.
      const copy = {
        version: null, path: null, installed: true, compiled: true, whyNotCompiled: null, verify: 0, types,
        serializers: false, whyNoSerializers: 'its version is unknown (bundled), and fromObject differs from release to release ' +
          '(the serializers mirror 7.6.3 to 7.6.6, 8.7.2 to 8.8.1)',
        serialized: { serializers: 0, compiled: 0, slow: [], moved: 0 },
      };
      assert.deepStrictEqual(seen.copies, [copy]);
      assert.strictEqual(seen.line, 'protobufjs-rustwriter:   protobufjs (version unknown) (no package.json: bundled): RustWriter, ' +
        `compiled encoders (Types: ${seen.types} compiled, 0 cold)`);
      // The names users see, though esbuild renames the function to keep names apart.
      assert.deepStrictEqual(seen.names, ['RustWriter', 'RustWriter']);
    });
  }

  it('takes the version install() is told, and keeps protobufjs\'s encoders for a major it does not know', async () => {
    const seen = await bundleAndRun(tmp, 'esbuild', app('protobufjs', { protobufjsVersion: '9.0.0' }, ['scalars.proto']));
    assert.deepStrictEqual(seen.differing, []);
    assert.strictEqual(seen.compiled, 0);
    const why = 'protobufjs 9.0.0 is not 7.x or 8.x, whose encoders the compiler knows';
    const types = { compiled: 0, cold: 0, kept: [] };
    assert.deepStrictEqual(seen.copies, [{
      version: '9.0.0', path: null, installed: true, compiled: false, whyNotCompiled: why, verify: 0, types,
      serializers: false, whyNoSerializers: 'they need compiled encoders', serialized: { serializers: 0, compiled: 0, slow: [], moved: 0 },
    }]);
    assert.strictEqual(seen.line, `protobufjs-rustwriter:   protobufjs 9.0.0 (no package.json: bundled): RustWriter, compiled encoders off: ${why}`);
  });

  it('reports the version it is told for a bundled copy it compiles for', async () => {
    const seen = await bundleAndRun(tmp, 'esbuild', app('protobufjs', { protobufjsVersion: require('protobufjs/package.json').version }, ['scalars.proto']));
    assert.deepStrictEqual(seen.differing, []);
    // Told its version, it has compiled serializers too.
    assert.deepStrictEqual(seen.copies.map((c) => [c.version, c.compiled, c.serializers]), [[require('protobufjs/package.json').version, true, true]]);
  });

  it('names a checked writer RustWriter too', async () => {
    const seen = await bundleAndRun(tmp, 'esbuild', app('protobufjs', { verify: 1 }, ['scalars.proto']));
    assert.deepStrictEqual(seen.differing, []);
    assert.deepStrictEqual(seen.names, ['RustWriter', 'RustWriter']);
  });

  it('rejects a protobufjsVersion that is not a version', () => {
    const { install } = require('..');
    assert.throws(() => install(require('protobufjs'), { protobufjsVersion: 8 }), /option protobufjsVersion must be a version such as "8\.8\.1"/);
  });
});
