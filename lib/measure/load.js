'use strict';

/**
 * The inputs of `protobufjs-rustwriter measure`: the user's protobufjs copy, their schema (loaded
 * by that copy, once per writer so that each writer's generated encoders see only it), and their
 * messages (read once, turned into each Root's message objects by `fromObject` or `decode`).
 * Every problem is a {@link MeasureError} naming the fix.
 */

const fs = require('fs');
const path = require('path');
const { MeasureError } = require('./args');

/** Message types named in an "unknown type" error. */
const TYPES_LISTED = 8;
/** Types of protobufjs's bundled well-known schemas, not the user's. */
const WELL_KNOWN = /^google\.protobuf\./;

/**
 * One line of an error's message.
 * @param {Error} err Error
 * @returns {string} Message
 */
function oneLine(err) {
  return String(err && err.message ? err.message : err).replace(/\s+/g, ' ').trim();
}

/**
 * The package directory of a protobufjs copy, or null if `dir` is none.
 * @param {string} dir Directory
 * @returns {string|null} `dir`, if its package.json names protobufjs
 */
function protobufPackageAt(dir) {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).name === 'protobufjs' ? dir : null;
  } catch {
    return null;
  }
}

/**
 * The protobufjs copy to measure with: the one `require('protobufjs')` gives an app in `cwd`, or
 * the one `option` names (its package directory, or an app directory to resolve it from).
 * @param {string} cwd Current directory
 * @param {string|undefined} option `--protobufjs`
 * @returns {{protobuf: object, version: string, dir: string}} The module, its version and directory
 */
function findProtobuf(cwd, option) {
  const from = option === undefined ? cwd : path.resolve(cwd, option);
  let dir = option === undefined ? null : protobufPackageAt(from);
  if (dir === null) {
    try {
      dir = protobufPackageAt(path.dirname(require.resolve('protobufjs/package.json', { paths: [from] })));
    } catch {
      dir = null;
    }
  }
  if (dir === null) {
    throw new MeasureError(option === undefined
      ? `cannot find protobufjs from ${from}: run it in your app's directory or pass --protobufjs <dir>`
      : `no protobufjs at ${from}: pass --protobufjs the directory of a protobufjs package (e.g. node_modules/protobufjs) or of an app that depends on it`);
  }
  const { version } = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  return { protobuf: require(dir), version: String(version), dir };
}

/**
 * A new Root of the schema, loaded by `protobuf` as the user's app would: a JSON schema through
 * `Root.fromJSON`, a .proto through `loadSync`, its imports looked for beside the importing file,
 * then in each of `paths`.
 * @param {object} protobuf protobufjs module
 * @param {string} file Schema file (absolute)
 * @param {{paths: string[], keepCase: boolean}} options `--path` directories (absolute), `--keep-case`
 * @returns {object} Root, every type resolved
 */
function loadSchema(protobuf, file, { paths, keepCase }) {
  const name = path.basename(file);
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new MeasureError(`cannot read the schema ${file}: ${err.code === 'ENOENT' ? 'no such file' : oneLine(err)}: check the path`);
  }
  if (/\.json$/i.test(file)) {
    try {
      const root = protobuf.Root.fromJSON(JSON.parse(text));
      root.resolveAll();
      return root;
    } catch (err) {
      throw new MeasureError(`${name} is not a protobufjs JSON schema (${oneLine(err)}): give the output of root.toJSON(), or a .proto file`);
    }
  }
  const root = new protobuf.Root();
  const resolve = root.resolvePath;
  root.resolvePath = function resolvePath(origin, target) {
    const beside = resolve.call(this, origin, target);
    if (origin === '' || fs.existsSync(beside)) return beside;
    const found = paths.map((dir) => path.join(dir, target)).find((candidate) => fs.existsSync(candidate));
    return found === undefined ? beside : found;
  };
  try {
    return root.loadSync(file, { keepCase });
  } catch (err) {
    if (err.code === 'ENOENT') {
      const missing = err.path || oneLine(err);
      throw new MeasureError(`${name} imports a file that is not found (${missing}): pass --path <dir> with the directory its import paths start from`);
    }
    if (/^no such (type|Type or Enum)/.test(err.message)) {
      throw new MeasureError(`${name} does not resolve: ${oneLine(err)}: add the import that defines it, with --path <dir> if it is elsewhere`);
    }
    throw new MeasureError(`${name} does not parse: ${oneLine(err)}: fix the schema`);
  }
}

/**
 * Full names of the message types a Root defines (not the bundled google.protobuf ones).
 * @param {object} protobuf protobufjs module
 * @param {object} root Root
 * @returns {string[]} Names, without the leading dot
 */
function messageTypes(protobuf, root) {
  const names = [];
  (function walk(ns) {
    for (const nested of ns.nestedArray || []) {
      if (nested instanceof protobuf.Type) names.push(nested.fullName.slice(1));
      walk(nested);
    }
  })(root);
  return names.filter((n) => !WELL_KNOWN.test(n));
}

/**
 * The message type `name` of a Root: its full name (`shop.Order`, a leading dot allowed), or the
 * end of one (`Order`, `Order.Line`) that names exactly one type. A name that is an enum, or that
 * several types end with, is an error that says so.
 * @param {object} protobuf protobufjs module
 * @param {object} root Root
 * @param {string|undefined} name `--type`
 * @param {string} file Schema file, for errors
 * @returns {object} Type
 */
function lookupType(protobuf, root, name, file) {
  const types = messageTypes(protobuf, root);
  const some = `${types.slice(0, TYPES_LISTED).join(', ')}${types.length > TYPES_LISTED ? `, … (${types.length} in all)` : ''}`;
  if (name !== undefined) {
    // Every type and enum by full name, the bundled google.protobuf ones included (a type named is
    // measured even if it is one of those: a FileDescriptorSet).
    const all = [];
    (function walk(ns) {
      for (const nested of ns.nestedArray || []) {
        if (nested instanceof protobuf.Type || nested instanceof protobuf.Enum) all.push(nested);
        walk(nested);
      }
    })(root);
    const wanted = name.replace(/^\./, '');
    const exact = all.filter((t) => t.fullName.slice(1) === wanted);
    const found = exact.length > 0 ? exact : all.filter((t) => t.fullName.endsWith(`.${wanted}`));
    if (found.length === 1 && found[0] instanceof protobuf.Type) return found[0];
    if (found.length === 1) {
      throw new MeasureError(`${found[0].fullName.slice(1)} is an enum, not a message type: pass --type with a message type, one of ${some}`);
    }
    if (found.length > 1) {
      throw new MeasureError(`"${name}" names ${found.length} types in ${path.basename(file)}: pass --type with one of their full names, ` +
        `${found.map((t) => t.fullName.slice(1)).join(', ')}`);
    }
  }
  if (types.length === 0) {
    throw new MeasureError(`${path.basename(file)} defines no message type: pass the schema that defines yours (a .proto, or the JSON of root.toJSON())`);
  }
  if (name === undefined) throw new MeasureError(`measure needs --type <full.Name>, the message type to encode: one of ${some}`);
  throw new MeasureError(`no message type "${name}" in ${path.basename(file)}: pass --type with a full name, one of ${some}`);
}

/**
 * The messages of the `--data` files, read once: `{json}` objects (for `fromObject`) and
 * `{bytes}` encodings (for `decode`). A file is JSON when it parses as a JSON object or array
 * (never true of an encoded message or stream in practice: it would have to be printable text);
 * else it is one encoded message, or with `delimited` a length-delimited stream.
 * @param {object} protobuf protobufjs module
 * @param {string[]} files Data files (absolute)
 * @param {boolean} delimited `--delimited`
 * @returns {Array<{file: string, json?: object, bytes?: Uint8Array}>} Inputs, in order
 */
function readData(protobuf, files, delimited) {
  const inputs = [];
  for (const file of files) {
    let buf;
    try {
      buf = fs.readFileSync(file);
    } catch (err) {
      throw new MeasureError(`cannot read the data ${file}: ${err.code === 'ENOENT' ? 'no such file' : oneLine(err)}: check the path`);
    }
    const json = parseJson(buf, file);
    if (json !== undefined) {
      const list = Array.isArray(json) ? json : [json];
      if (list.length === 0) throw new MeasureError(`${path.basename(file)} is an empty array: give at least one message`);
      list.forEach((object, i) => {
        if (object === null || typeof object !== 'object' || Array.isArray(object)) {
          throw new MeasureError(`${path.basename(file)}: ${Array.isArray(json) ? `element ${i}` : 'the data'} is not an object: give one message object or an array of them`);
        }
        inputs.push({ file, json: object });
      });
    } else if (delimited) {
      for (const bytes of splitDelimited(protobuf, buf, file)) inputs.push({ file, bytes });
    } else {
      inputs.push({ file, bytes: buf });
    }
  }
  return inputs;
}

/**
 * A data file's JSON, or undefined when it is binary (or not a JSON object or array).
 * @param {Buffer} buf Contents
 * @param {string} file Path, for errors
 * @returns {*} Parsed JSON or undefined
 */
function parseJson(buf, file) {
  const text = buf.toString('utf8').trim();
  const looksJson = text.startsWith('{') || text.startsWith('[');
  try {
    return looksJson ? JSON.parse(text) : undefined;
  } catch (err) {
    if (/\.json$/i.test(file)) throw new MeasureError(`${path.basename(file)} is not valid JSON (${oneLine(err)}): fix it`);
    return undefined;
  }
}

/**
 * The messages of a length-delimited stream, as byte views.
 * @param {object} protobuf protobufjs module
 * @param {Buffer} buf Stream
 * @param {string} file Path, for errors
 * @returns {Uint8Array[]} Encoded messages
 */
function splitDelimited(protobuf, buf, file) {
  const reader = protobuf.Reader.create(buf);
  const messages = [];
  try {
    while (reader.pos < reader.len) {
      const length = reader.uint32();
      const start = reader.pos;
      reader.skip(length);
      messages.push(buf.subarray(start, start + length));
    }
  } catch (err) {
    throw new MeasureError(`${path.basename(file)} is not a length-delimited stream (message ${messages.length + 1}: ${oneLine(err)}): ` +
      'leave out --delimited for one encoded message');
  }
  if (messages.length === 0) throw new MeasureError(`${path.basename(file)} is empty: give at least one message`);
  return messages;
}

/**
 * The first key of a JSON message that `fromObject` would silently drop, as a description with
 * its fix, or null.
 * @param {object} protobuf protobufjs module
 * @param {object} type Type
 * @param {object} object JSON message
 * @param {string} at Where `object` is, for the description
 * @param {boolean} keepCase `--keep-case` was given
 * @returns {string|null} Problem
 */
function unknownField(protobuf, type, object, at, keepCase) {
  if (WELL_KNOWN.test(type.fullName.slice(1))) return null; // Any, wrappers: fromObject has its own rules
  for (const key of Object.keys(object)) {
    const field = type.fields[key];
    if (field === undefined) {
      const named = type.fieldsArray.find((f) => protobuf.util.camelCase(f.name) === protobuf.util.camelCase(key));
      let hint = `check that the data holds ${type.fullName.slice(1)} messages`;
      if (named && named.name === protobuf.util.camelCase(key)) {
        hint = `the schema as loaded names it "${named.name}": pass --keep-case if your app loads the schema with keepCase, or rename it`;
      } else if (named) {
        hint = `the schema names it "${named.name}": rename it${keepCase ? ', or leave out --keep-case' : ''}`;
      }
      return `"${key}" (at ${at}) is not a field of ${type.fullName.slice(1)}: ${hint}`;
    }
    const value = object[key];
    field.resolve();
    if (!(field.resolvedType instanceof protobuf.Type) || value === null || typeof value !== 'object') continue;
    const entries = field.map ? Object.entries(value)
    : Array.isArray(value) ? value.map((v, i) => [i, v])
      : [[null, value]];
    for (const [k, v] of entries) {
      if (v === null || typeof v !== 'object') continue;
      const where = k === null ? `${at}.${key}` : `${at}.${key}[${JSON.stringify(k)}]`;
      const problem = unknownField(protobuf, field.resolvedType, v, where, keepCase);
      if (problem !== null) return problem;
    }
  }
  return null;
}

/**
 * Each input as a message object of `type`.
 * @param {object} protobuf protobufjs module
 * @param {object} type Type (of the Root the messages are for)
 * @param {Array<{file: string, json?: object, bytes?: Uint8Array}>} inputs From {@link readData}
 * @param {{delimited: boolean, keepCase: boolean}} options `--delimited`, `--keep-case` (for errors)
 * @param {Array<Array<{field: string, problem: string}>>} [problems] Per input, what
 *   lib/measure/check-data.js found wrong in its JSON: a `fromObject` that throws is reported with the
 *   first of them, since its own error may name no field (a bad 64-bit string: "interior hyphen")
 * @returns {object[]} Messages
 */
function toMessages(protobuf, type, inputs, { delimited, keepCase }, problems = []) {
  const name = type.fullName.slice(1);
  return inputs.map((input, i) => {
    const file = path.basename(input.file);
    if (input.json !== undefined) {
      const problem = unknownField(protobuf, type, input.json, `message ${i + 1}`, keepCase);
      if (problem !== null) throw new MeasureError(`${file}: ${problem}`);
      try {
        return type.fromObject(input.json);
      } catch (err) {
        const first = problems[i] && problems[i][0];
        if (first) throw new MeasureError(`${file}: message ${i + 1}: ${first.field}: ${first.problem} (${oneLine(err)}): fix the data`);
        throw new MeasureError(`${file}: message ${i + 1} is not a ${name} (${oneLine(err)}): fix the data`);
      }
    }
    try {
      return type.decode(input.bytes);
    } catch (err) {
      const fix = delimited ? 'check that the stream holds delimited ' + name + ' messages'
        : `give one encoded ${name}, --delimited for a length-delimited stream, or JSON`;
      throw new MeasureError(`${file} does not decode as ${name} (${oneLine(err)}): ${fix}`);
    }
  });
}

module.exports = { findProtobuf, loadSchema, lookupType, readData, toMessages, oneLine };
