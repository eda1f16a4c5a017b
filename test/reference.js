'use strict';

/**
 * The references every differential check compares with: copies of protobufjs 8.8.1 and 7.6.6 that
 * this package never touched, each with its own writer and its own generated encoders.
 *
 * A copy is a fresh module instance of the package, loaded by its own path (node_modules/protobufjs,
 * node_modules/protobufjs7) as the bench loads its contenders (bench/copies.js): the cache entries of
 * its files (and, for 7.6.6, of the `@protobufjs/*` modules it is made of) leave `require.cache`, the
 * package is required afresh, and the cache is put back as it was, so `require('protobufjs')` still
 * returns the copy the tests install into. So nothing `install()` does to that copy (its
 * `Writer.create`, its `Type.prototype.setup`, the encoders it compiles and the ones it hands other
 * writers to) reaches a reference; `referenceCopy` checks on every use that none was installed into
 * one (the preload would), and fails if one was.
 *
 * Where protobufjs's writer differs from RustWriter by design (README "Compatibility with
 * protobufjs"), the reference learns the difference here, once, as a named rule applied to the copy
 * ({@link RULES}; each says why), rather than by writing into another writer. 7.6.6's encoders write
 * into 7.6.6's own writer. `referenceCopy(version, { rules: false })` gives the copy without them, to
 * see what each rule stands for (test/reference.test.js shows each is needed, and each is enough).
 */

const path = require('path');
const Long = require('long');

/** The packages, by major version. */
const PACKAGES = { 8: 'protobufjs', 7: 'protobufjs7' };

/**
 * The directories whose modules make up a copy of `pkg`, each with a trailing separator: the
 * package's, and those of the `@protobufjs/*` modules it requires (protobufjs 7 is made of them;
 * protobufjs 8 carries its own in src/util/).
 * @param {string} pkg Package name
 * @returns {string[]} Directories
 */
function copyDirs(pkg) {
  const dir = path.dirname(require.resolve(`${pkg}/package.json`));
  const dirs = [dir + path.sep];
  const manifest = require(`${pkg}/package.json`);
  for (const dep of Object.keys(manifest.dependencies || {})) {
    if (!dep.startsWith('@protobufjs/')) continue;
    const resolved = require.resolve(`${dep}/package.json`, { paths: [dir] });
    dirs.push(path.dirname(resolved) + path.sep);
  }
  return dirs;
}

/**
 * Runs `fn` with a copy's modules (`entries`, by file) in `require.cache` in place of those under
 * `dirs`, then puts the cache back; modules `fn` loaded under `dirs` join `entries`.
 * @param {string[]} dirs Directories of the copy's modules
 * @param {Object<string, object>} entries Cache entries of the copy (added to)
 * @param {function(): *} fn What to run
 * @returns {*} What `fn` returns
 */
function withEntries(dirs, entries, fn) {
  const inDirs = (file) => dirs.some((dir) => file.startsWith(dir));
  const take = () => {
    const taken = {};
    for (const file of Object.keys(require.cache)) {
      if (inDirs(file)) {
        taken[file] = require.cache[file];
        delete require.cache[file];
      }
    }
    return taken;
  };
  const saved = take();
  Object.assign(require.cache, entries);
  try {
    return fn();
  } finally {
    Object.assign(entries, take());
    Object.assign(require.cache, saved);
  }
}

/**
 * A fresh module instance of a protobufjs package: its modules are taken out of `require.cache`
 * while it loads, and put back after, so every other `require` of the package still gets the
 * instance it got before.
 * @param {string} pkg Package name
 * @returns {{pb: object, dir: string, files: string[], require: function(string): *}} The module,
 * its package directory, the files loaded for it, and `require(file)` of a file (pbjs static code)
 * whose `require`s of the package get this copy
 */
function loadFresh(pkg) {
  const dirs = copyDirs(pkg);
  const main = require.cache[require.resolve(pkg)];
  const entries = {};
  const pb = withEntries(dirs, entries, () => require(pkg));
  if (main && pb === main.exports) throw new Error(`reference: ${pkg} was not loaded afresh`);
  if (main && require(pkg) !== main.exports) throw new Error(`reference: the tests' own ${pkg} was not put back`);
  return {
    pb,
    dir: dirs[0],
    files: Object.keys(entries),
    require: (file) => withEntries(dirs, entries, () => require(file)),
  };
}

/** The 64-bit scalar methods and their packed forms (protobufjs 8). */
const LONG_METHODS = ['uint64', 'int64', 'sint64', 'fixed64', 'sfixed64'];

/**
 * A BigInt as the `Long` of the same 64 bits (two's complement, mod 2^64); anything else as it is.
 * @param {*} value Value
 * @returns {*} Long or value
 */
function bigIntAsLong(value) {
  if (typeof value !== 'bigint') return value;
  const u = BigInt.asUintN(64, value);
  return Long.fromBits(Number(u & 0xffffffffn) | 0, Number(u >> 32n) | 0);
}

/**
 * The rules: each a difference between protobufjs's writer and RustWriter that README
 * "Compatibility with protobufjs" lists (or a quirk of protobufjs's own), learned by the reference so
 * that the two must then agree exactly; `apply(pb, refs)` changes the copy `pb` (`refs`: the other
 * references, for a rule that borrows one), and `instrument` marks one that changes no byte and only
 * tells a test's model where something is.
 */
const RULES = [
  {
    name: 'bigIntAs64Bits',
    versions: ['8', '7'],
    why: 'README row "BigInt to a 64-bit method": protobufjs writes 0 (its LongBits.from reads `low` and `high` of the ' +
      'BigInt); RustWriter encodes the 64 bits. The reference\'s 64-bit methods take a BigInt, and its packed ones a ' +
      'BigInt64Array or BigUint64Array, as the Long of the same bits.',
    apply(pb) {
      const proto = pb.Writer.prototype;
      for (const name of LONG_METHODS) {
        const scalar = proto[name];
        proto[name] = function bigIntAs64Bits(value) {
          return scalar.call(this, bigIntAsLong(value));
        };
        const packed = proto[`${name}s`];
        if (typeof packed !== 'function') continue; // protobufjs 7 has no packed methods
        proto[`${name}s`] = function bigIntsAs64Bits(values) {
          const big = values instanceof BigInt64Array || values instanceof BigUint64Array;
          return packed.call(this, big ? Array.from(values, bigIntAsLong) : values);
        };
      }
    },
  },
  {
    name: 'zeroOpenForkPlaceholders',
    versions: ['8'],
    why: 'README row "finish() with a fork still open": protobufjs 8 leaves the length byte it reserved for each open ' +
      'fork uninitialized (whatever its buffer held), RustWriter writes 0x00 there. The reference\'s finish() and ' +
      'finishInto() write 0x00 at each open fork\'s placeholder (its `states`) in the result.',
    apply(pb) {
      const proto = pb.Writer.prototype;
      const finish = proto.finish;
      proto.finish = function finish_zeroedPlaceholders(shared) {
        const out = finish.call(this, shared);
        for (const p of this.states || []) out[p] = 0;
        return out;
      };
      const finishInto = proto.finishInto;
      proto.finishInto = function finishInto_zeroedPlaceholders(buf, offset) {
        const out = finishInto.call(this, buf, offset);
        const at = offset === undefined ? 0 : offset;
        for (const p of this.states || []) if (at + p < out.length) out[at + p] = 0;
        return out;
      };
    },
  },
  {
    name: 'keepNaNBits',
    versions: ['8'],
    why: 'README row "a signalling NaN given to double or doubles": protobufjs stores a double through a Float64Array, ' +
      'which V8 14 (Node 26) quiets in code Maglev compiled, so its bytes change as its code warms up ' +
      '(test/tiers.test.js); RustWriter writes the bits as they are, at every tier. The reference writes them as ' +
      'protobufjs does on its other tiers and lines: util.float.writeDoubleLE stores a NaN through the `fill` ' +
      'builtin, and doubles() writes every element through it (protobufjs 8.8.1 stores 16 or more through a ' +
      'DataView, which Maglev quiets too). Each element is still read and converted once.',
    apply(pb) {
      const float = pb.util.float;
      const writeDoubleLE = float.writeDoubleLE;
      const cell = new Float64Array(1);
      const bytes = new Uint8Array(cell.buffer);
      float.writeDoubleLE = function writeDoubleLE_keepNaNBits(value, buf, pos) {
        const number = +value;
        if (number === number) return writeDoubleLE(number, buf, pos);
        cell.fill(number); // a builtin, which keeps the bits on every tier
        buf.set(bytes, pos);
      };
      // protobufjs 8.8.1's own doubles() without its DataView branch.
      pb.Writer.prototype.doubles = function write_doubles_keepNaNBits(value) {
        const n = value.length;
        const size = n * 8;
        this.uint32(size);
        this._reserve(size);
        const buf = this.buf;
        let p = this.pos;
        for (let i = 0; i < n; ++i) {
          float.writeDoubleLE(value[i], buf, p);
          p += 8;
        }
        this.pos += size;
        return this;
      };
    },
  },
  {
    name: 'noteFieldStarts',
    versions: ['8'],
    instrument: true,
    why: 'Changes no byte: the writer notes where the length-delimited field it wrote last began (`fieldStart`, the ' +
      'position of its length prefix), which its packed methods write after reading the array\'s length, as ' +
      'RustWriter does; fuzz:js\'s model of the entries RustWriter keeps reads it (fuzz/js/world.js keepRun).',
    apply(pb) {
      const delim = pb.Writer.prototype._delim;
      pb.Writer.prototype._delim = function _delim_noted(pos, len) {
        this.fieldStart = pos;
        return delim.call(this, pos, len);
      };
    },
  },
  {
    name: 'floatsAtCall',
    versions: ['7'],
    why: 'README, after the table: protobufjs 7.6.6\'s float() and double() keep the value and convert it (running its ' +
      'valueOf, or throwing for a BigInt or a Symbol) at finish(); protobufjs 8 and RustWriter convert it at the call. ' +
      'The reference converts it (ToNumber, as a Float32Array or Float64Array store does) at the call.',
    apply(pb) {
      const proto = pb.Writer.prototype;
      for (const name of ['float', 'double']) {
        const write = proto[name];
        proto[name] = function floatsAtCall(value) {
          return write.call(this, +value);
        };
      }
    },
  },
  {
    name: 'bytesAtCall',
    versions: ['7'],
    why: 'protobufjs 7.6.6\'s BufferWriter#bytes keeps the value and reads its elements at finish() (`buf.set`); ' +
      'protobufjs 8 and RustWriter read them at the call, so an array\'s element getters (or a Proxy\'s traps) run ' +
      'there. The reference copies the elements (reading `length` and each element as protobufjs 8\'s `buf.set` ' +
      'does) at the call.',
    apply(pb) {
      const bytes = pb.BufferWriter.prototype.bytes;
      pb.BufferWriter.prototype.bytes = function bytesAtCall(value) {
        if (pb.util.isString(value)) return bytes.call(this, value);
        const len = value.length >>> 0;
        if (len === 0) return bytes.call(this, value);
        const copy = pb.util.Buffer.allocUnsafe ? pb.util.Buffer.allocUnsafe(len) : new Uint8Array(len);
        copy.set(value);
        return bytes.call(this, copy);
      };
    },
  },
  {
    name: 'lenOfWholeWriter',
    versions: ['7'],
    why: 'README, after the table: protobufjs 7.6.6\'s writer counts `len` from the innermost open fork (0 right after ' +
      'fork()); RustWriter\'s `len` is protobufjs 8\'s, the whole writer, its forks\' placeholders included. 7.6.6\'s ' +
      'Type#encodeDelimited reads it (`writer && writer.len ? writer.fork() : writer`), so into a writer at an empty ' +
      'fork it closes that fork where RustWriter opens one of its own. The reference\'s Type#encodeDelimited reads ' +
      'protobufjs 8\'s `len` (whether the writer holds anything, or a fork) instead. Generated code reads no `len`.',
    apply(pb) {
      pb.Type.prototype.encodeDelimited = function encodeDelimited_lenOfWholeWriter(message, writer) {
        const whole = writer && (writer.len > 0 || writer.states !== null);
        return this.encode(message, whole ? writer.fork() : writer).ldelim();
      };
    },
  },
  {
    name: 'stringOfNonString',
    versions: ['7'],
    why: 'README, after the table: protobufjs 7.6.6\'s BufferWriter#string measures its value with Buffer.byteLength, ' +
      'which throws a TypeError for anything but a string (a number, a String object, an array); protobufjs 8 and ' +
      'RustWriter read its `length` and characters (a value without a length writes an empty string). The ' +
      'reference writes what protobufjs 8.8.1\'s reference writes for such a value: its bytes, or its error.',
    apply(pb, refs) {
      const string = pb.BufferWriter.prototype.string;
      const put = (val, buf, pos) => buf.set(val, pos);
      pb.BufferWriter.prototype.string = function stringOfNonString(value) {
        if (typeof value === 'string') return string.call(this, value);
        const out = new (refs.copy('8').pb.BufferWriter)().string(value).finish();
        return this._push(put, out.length, out);
      };
    },
  },
  {
    name: 'noOpenForksAtFinish',
    versions: ['7'],
    why: 'protobufjs 7.6.6\'s finish() with a fork still open returns the innermost fork\'s content alone; RustWriter ' +
      '(as protobufjs 8) returns everything, with a 0x00 byte per open fork. 7.6.6\'s generated code never finishes ' +
      'with a fork open; a test that does gets an Error from the reference rather than a comparison of unlike things.',
    apply(pb) {
      const finish = pb.Writer.prototype.finish;
      pb.Writer.prototype.finish = function finish_noOpenForks() {
        if (this.states) throw new Error('reference: protobufjs 7.6.6\'s finish() with a fork open (not modelled)');
        return finish.call(this);
      };
    },
  },
];

/**
 * The marks `install()` leaves on a copy it installed into: a symbol-keyed property on `Writer`
 * (and on `Type.prototype.setup`), and a `Writer.create` whose writers are not the copy's.
 * @param {object} pb The copy
 * @returns {string|null} What shows that the package was installed into the copy, or null
 */
function installedMark(pb) {
  if (Object.getOwnPropertySymbols(pb.Writer).length > 0) return 'its Writer holds a symbol-keyed property';
  if (Object.getOwnPropertySymbols(pb.Type.prototype.setup).length > 0) return 'its Type.prototype.setup is wrapped';
  const w = pb.Writer.create();
  if (!(w instanceof pb.Writer)) return `its Writer.create() gives a ${w && w.constructor && w.constructor.name}`;
  return null;
}

/** Loaded copies, by `<major> rules|raw`. */
const loaded = new Map();

/** What rules borrow: another reference. */
const refs = { copy: (version) => referenceCopy(version) };

/**
 * A reference copy of protobufjs, loaded on first use (once a process), with the rules of its
 * version applied, and checked to be untouched by the package.
 * @param {string|number} version `8` (8.8.1) or `7` (7.6.6)
 * @param {{rules?: boolean}} [options] `rules: false` for the copy without its rules
 * @returns {{pb: object, version: string, major: string, dir: string, files: string[], rules: string[],
 *   require: function(string): *}} The copy: its module, version, package directory, the files loaded
 *   for it, the rules applied, and `require(file)` of a file whose `require`s of protobufjs get this
 *   copy (pbjs static code, which requires it by path: a file the tests' copy loaded needs a path of its own)
 */
function referenceCopy(version, options = {}) {
  const major = String(version).split('.')[0];
  const pkg = PACKAGES[major];
  if (pkg === undefined) throw new Error(`reference: no protobufjs ${version} (7 or 8)`);
  const withRules = options.rules !== false;
  const key = `${major} ${withRules ? 'rules' : 'raw'}`;
  let copy = loaded.get(key);
  if (copy === undefined) {
    const fresh = loadFresh(pkg);
    const rules = withRules ? RULES.filter((r) => r.versions.includes(major)) : [];
    copy = { ...fresh, version: require(`${pkg}/package.json`).version, major, rules: rules.map((r) => r.name) };
    loaded.set(key, copy);
    for (const rule of rules) rule.apply(copy.pb, refs);
  }
  const mark = installedMark(copy.pb);
  if (mark !== null) {
    throw new Error(`reference: protobufjs ${copy.version} (the reference copy) was installed into: ${mark}. ` +
      'A reference must be a copy the package never touched (run the tests without the preload).');
  }
  return copy;
}

/**
 * A writer of a reference copy: its own `BufferWriter`, with the rules of its version.
 * @param {string|number} [version] `8` (default) or `7`
 * @returns {object} Writer
 */
function referenceWriter(version = '8') {
  return new (referenceCopy(version).pb.BufferWriter)();
}

module.exports = { referenceCopy, referenceWriter, RULES, installedMark };
