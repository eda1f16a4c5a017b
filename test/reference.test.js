'use strict';

/**
 * The references (test/reference.js): copies of protobufjs 8.8.1 and 7.6.6 of their own, which stay
 * protobufjs's own while the tests install into theirs, and refuse to serve once installed into
 * (the preload would); and each rule they learned, on its smallest case: protobufjs's writer without
 * the rule differs from RustWriter there (so the rule is needed), and with it agrees (so it is enough).
 */

const assert = require('assert');
const { spawnSync } = require('child_process');
const path = require('path');
const { RustWriter, install, uninstall } = require('..');
const { referenceCopy, RULES, installedMark } = require('./reference');

const hex = (bytes) => Buffer.from(bytes).toString('hex');

/**
 * What a writer callback gives: the bytes (hex) or the class of its error, and what user code logged.
 * @param {function(object, string[], string): object} write Writes into a writer; returns it
 * @param {object} writer Writer
 * @param {string} [major] The reference's major version (what its writer has)
 * @returns {{out: string, log: string[]}} Outcome
 */
function outcome(write, writer, major) {
  const log = [];
  try {
    return { out: hex(write(writer, log, major).finish()), log };
  } catch (err) {
    return { out: `threw ${err.constructor.name}`, log };
  }
}

/**
 * Each rule's smallest case: a writer callback (and, for a rule of a Type's method, the Type's call),
 * run on RustWriter, on the copy without its rules and on the copy with them.
 */
const CASES = {
  bigIntAs64Bits: (w, log, major) => {
    w.uint32(8).uint64(-5n).uint32(17).sfixed64(2n ** 63n - 1n);
    return major === '8' ? w.uint32(26).sint64s(BigInt64Array.of(-3n)) : w; // 7.6.6 has no packed methods
  },
  // A byte left in protobufjs's buffer by a reset() is where the fork's placeholder goes.
  zeroOpenForkPlaceholders: (w) => w.uint32(300).reset().uint32(10).fork().uint32(8).uint32(1),
  floatsAtCall: (w, log) => {
    w.uint32(13).float({ valueOf: () => { log.push('valueOf'); return 1.5; } });
    log.push('returned');
    return w;
  },
  bytesAtCall: (w, log) => {
    const elements = new Proxy([1, 2, 3], { get: (t, k, r) => { log.push(`get ${String(k)}`); return Reflect.get(t, k, r); } });
    w.uint32(10).bytes(elements);
    log.push('returned');
    return w;
  },
  stringOfNonString: (w) => w.uint32(10).string(5).uint32(18).string(new String('é')),
  noOpenForksAtFinish: (w) => w.uint32(10).fork().uint32(8).uint32(1),
};

describe('the references every differential compares with (test/reference.js)', () => {
  for (const major of ['8', '7']) {
    it(`load protobufjs ${major === '8' ? '8.8.1' : '7.6.6'} as a copy of its own, by its own path`, () => {
      const copy = referenceCopy(major);
      const pkg = major === '8' ? 'protobufjs' : 'protobufjs7';
      const main = require(pkg);
      assert.notStrictEqual(copy.pb, main);
      assert.notStrictEqual(copy.pb.Writer, main.Writer);
      assert.strictEqual(copy.version, require(`${pkg}/package.json`).version);
      assert.strictEqual(copy.dir, path.dirname(require.resolve(`${pkg}/package.json`)) + path.sep);
      assert.ok(copy.files.length > 10, `${copy.files.length} modules loaded for it`);
      console.log(`      protobufjs ${copy.version}: ${path.relative(process.cwd(), copy.dir)} (${copy.files.length} modules of its own), ` +
        `rules ${copy.rules.join(', ')}`);
    });

    it(`stay protobufjs ${major}'s own while the tests' copy of it is installed into`, () => {
      const main = require(major === '8' ? 'protobufjs' : 'protobufjs7');
      const copy = referenceCopy(major);
      install(main);
      try {
        assert.ok(main.Writer.create() instanceof RustWriter);
        assert.ok(copy.pb.Writer.create() instanceof copy.pb.BufferWriter);
        const T = copy.pb.parse('syntax = "proto3"; message M { int32 a = 1; }').root.lookupType('M');
        T.encode({ a: 1 });
        assert.strictEqual(Object.getOwnPropertySymbols(T.encode).length, 0);
        assert.ok(T.encode({ a: 1 }) instanceof copy.pb.BufferWriter);
        assert.strictEqual(installedMark(copy.pb), null);
      } finally {
        uninstall(main);
      }
    });
  }

  it('refuse to serve a copy the package was installed into: with the preload, each reference throws', () => {
    // The planted fault: the preload installs into every protobufjs copy the process loads.
    const run = spawnSync(process.execPath, ['-r', './register.js', '-e', `
      const { referenceCopy } = require('./test/reference');
      for (const v of ['8', '7']) {
        try { referenceCopy(v); console.log(v, 'served'); } catch (err) { console.log(v, err.message); }
      }`], { cwd: path.join(__dirname, '..'), encoding: 'utf8' });
    assert.strictEqual(run.status, 0, run.stderr);
    assert.match(run.stdout, /^8 reference: protobufjs 8\.8\.1 \(the reference copy\) was installed into/m);
    assert.match(run.stdout, /^7 reference: protobufjs 7\.6\.6 \(the reference copy\) was installed into/m);
  });

  for (const rule of RULES) {
    for (const major of rule.versions) {
      const name = `${rule.name} (protobufjs ${major === '8' ? '8.8.1' : '7.6.6'})`;
      if (rule.instrument) {
        it(`${name}: an instrument, which changes no byte`, () => {
          const write = (w) => w.uint32(10).uint32s([1, 2, 3]).uint32(18).string('x');
          const withRule = new (referenceCopy(major).pb.BufferWriter)();
          const without = new (referenceCopy(major, { rules: false }).pb.BufferWriter)();
          assert.strictEqual(outcome(write, withRule).out, outcome(write, without).out);
          assert.strictEqual(withRule.fieldStart, 6); // the string's length prefix, after 0a 03 010203 12
        });
        continue;
      }
      if (rule.name === 'keepNaNBits') {
        it(`${name}: writes a signalling NaN's bits as RustWriter does (needed where V8 quiets them: test/tiers.test.js)`, () => {
          const sNaN = new Float64Array(new BigUint64Array([0x7ff4000000000001n]).buffer)[0];
          const write = (w) => w.uint32(9).double(sNaN).uint32(18).doubles(new Float64Array(20).fill(sNaN));
          const ruled = new (referenceCopy(major).pb.BufferWriter)();
          assert.strictEqual(outcome(write, ruled).out, outcome(write, RustWriter.create()).out);
        });
        continue;
      }
      if (rule.name === 'lenOfWholeWriter') {
        it(`${name}: is needed (7.6.6's own differs from RustWriter) and enough (with it, the same)`, () => {
          // Type#encodeDelimited into a writer at an empty fork: 7.6.6's len is 0 there.
          const SCHEMA = 'syntax = "proto3"; message M { int32 a = 1; }';
          const delimited = (pb, w) => {
            pb.parse(SCHEMA).root.lookupType('M').encodeDelimited({ a: 1 }, w.uint32(10).fork());
            return w.ldelim();
          };
          const raw = referenceCopy(major, { rules: false }).pb;
          const ruled = referenceCopy(major).pb;
          const rust = hex(delimited(raw, RustWriter.create()).finish()); // 7.6.6's method, RustWriter's len
          assert.notStrictEqual(hex(delimited(raw, new raw.BufferWriter()).finish()), rust);
          assert.strictEqual(hex(delimited(ruled, new ruled.BufferWriter()).finish()), rust);
        });
        continue;
      }
      const enough = rule.name === 'noOpenForksAtFinish' ? 'with it, the reference refuses' : 'enough (with it, the same)';
      it(`${name}: is needed (protobufjs's own differs from RustWriter) and ${enough}`, () => {
        const write = CASES[rule.name];
        assert.ok(write, `a case for ${rule.name}`);
        const rust = outcome(write, RustWriter.create(), major);
        const raw = outcome(write, new (referenceCopy(major, { rules: false }).pb.BufferWriter)(), major);
        const ruled = outcome(write, new (referenceCopy(major).pb.BufferWriter)(), major);
        assert.notDeepStrictEqual(raw, rust, 'without the rule');
        if (rule.name === 'noOpenForksAtFinish') {
          // Not modelled: the reference refuses rather than compare unlike results.
          assert.deepStrictEqual(ruled, { out: 'threw Error', log: [] });
        } else {
          assert.deepStrictEqual(ruled, rust, 'with the rule');
        }
      });
    }
  }
});
