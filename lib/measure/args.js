'use strict';

/**
 * The command line of `protobufjs-rustwriter measure`, and the error every input problem becomes
 * (one line naming the fix, exit code 2).
 */

const { parseArgs } = require('util');

const USAGE = `usage: protobufjs-rustwriter measure <schema.proto|schema.json> --type <full.Name> [options]

Measures how much faster RustWriter encodes your messages than protobufjs's own writer, in each
protobufjs copy your app has (listed, with the one your app and @grpc/proto-loader use): through the
Writer API and with compiled encoders (what the preload gives). It first checks your messages against
the schema (warnings) and that RustWriter gives protobufjs's bytes for every message, then times all
ways alternately in this process.

  <schema>             a .proto file, or a JSON schema (the output of protobufjs's root.toJSON())
  --type <full.Name>   the message type to encode, with its package (e.g. shop.Order); its name
                       alone (Order) will do where no other type of the schema has it
  --data <file>        messages to encode (repeatable): JSON (one object or an array, through
                       Type.fromObject) or binary (one encoded message, through Type.decode).
                       Without --data: seeded sample messages generated from the schema
  --delimited          binary --data files are length-delimited streams (encodeDelimited)
  --path <dir>         a directory to look for imported .proto files in (repeatable)
  --keep-case          load the .proto with keepCase: true (field names as written, not camelCase)
  --protobufjs <dir>   time only this protobufjs copy (default: every 7.x and 8.x version found
                       from the current directory, once each): its package directory, or an
                       app directory
  --time <seconds>     how long to time, all copies together (default 10)
  --json               print one JSON object on stdout instead of the report
  -h, --help           this text

Exit codes: 0 measured (with or without warnings about the data); 1 RustWriter's bytes differ from protobufjs's (a bug: please report it);
2 a problem with the command line or its files (the message says what to fix).
`;

/** Seconds of timing without --time. */
const DEFAULT_SECONDS = 10;

/** An input problem: printed as one line, exit code 2. */
class MeasureError extends Error {}

const OPTIONS = {
  type: { type: 'string' },
  data: { type: 'string', multiple: true },
  delimited: { type: 'boolean' },
  path: { type: 'string', multiple: true },
  'keep-case': { type: 'boolean' },
  protobufjs: { type: 'string' },
  time: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
};

/**
 * Parses `protobufjs-rustwriter <command> ...`.
 * @param {string[]} argv Arguments after the program name
 * @returns {{help: true}|{help: false, schema: string, type: string|undefined, data: string[],
 *   delimited: boolean, paths: string[], keepCase: boolean, protobufjs: string|undefined,
 *   seconds: number, json: boolean}} Options
 * @throws {MeasureError} For anything it cannot run
 */
function parseCommandLine(argv) {
  if (typeof parseArgs !== 'function') {
    throw new MeasureError(`measure needs Node 18.3 or later (util.parseArgs); this is Node ${process.versions.node}`);
  }
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    const unknown = err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && /'([^']+)'/.exec(err.message);
    const problem = unknown ? `unknown option ${unknown[1]}` : err.message.replace(/\s+/g, ' ').replace(/\.$/, '');
    throw new MeasureError(`${problem}: see protobufjs-rustwriter --help`);
  }
  const { values, positionals } = parsed;
  if (values.help) return { help: true };
  const [command, schema, ...extra] = positionals;
  if (command === undefined) throw new MeasureError('no command: run protobufjs-rustwriter measure <schema> --type <full.Name> (see --help)');
  if (command !== 'measure') throw new MeasureError(`unknown command "${command}": the command is measure (see --help)`);
  if (schema === undefined) throw new MeasureError('measure needs a schema: protobufjs-rustwriter measure <schema.proto|schema.json> --type <full.Name>');
  if (extra.length) throw new MeasureError(`one schema file only, not also "${extra[0]}": put imported files' directories in --path <dir>`);
  let seconds = DEFAULT_SECONDS;
  if (values.time !== undefined) {
    seconds = Number(values.time);
    if (!(seconds > 0 && seconds < Infinity)) throw new MeasureError(`--time ${values.time}: give a number of seconds above 0, e.g. --time 10`);
  }
  return {
    help: false,
    schema,
    type: values.type,
    data: values.data || [],
    delimited: Boolean(values.delimited),
    paths: values.path || [],
    keepCase: Boolean(values['keep-case']),
    protobufjs: values.protobufjs,
    seconds,
    json: Boolean(values.json),
  };
}

module.exports = { parseCommandLine, MeasureError, USAGE };
