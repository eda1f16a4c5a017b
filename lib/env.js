'use strict';

/**
 * The package's environment variables, read where a runtime may refuse to read them: Deno without
 * `--allow-env` throws `NotCapable` for `process.env.X`, and at a terminal asks the user first
 * ("Deno requests env access to …"), once per variable. So under Deno a variable is read only when
 * the process was granted it (`--allow-env`, or `--allow-env=<names>`), which Deno's permission API
 * tells without asking; a variable the process may not read counts as unset, and the package runs
 * with its defaults there.
 */

/** `js` (never load the addon) or `native` (fail when it cannot be loaded). */
const FORCE = 'PROTOBUFJS_RUSTWRITER';
/** The fraction of writers the shadow check covers (lib/integration/verify.js). */
const VERIFY = 'PROTOBUFJS_RUSTWRITER_VERIFY';
/** `1`: print `status()` to stderr at exit (lib/integration/status.js). */
const STATUS = 'PROTOBUFJS_RUSTWRITER_STATUS';
/** `0`: Types keep protobufjs's generated encoders (lib/integration/encoders.js). */
const COMPILED = 'PROTOBUFJS_RUSTWRITER_COMPILED';
/** `0`: no compiled serializers, and @grpc/proto-loader's own (lib/integration/serializers.js). */
const SERIALIZERS = 'PROTOBUFJS_RUSTWRITER_SERIALIZERS';

/**
 * @param {string} name Variable
 * @returns {boolean} Whether reading it asks nobody: anywhere but under Deno, and there once the
 * process has been granted it
 */
function readable(name) {
  const deno = globalThis.Deno;
  if (deno === undefined || deno === null || !deno.permissions || typeof deno.permissions.querySync !== 'function') return true;
  try {
    return deno.permissions.querySync({ name: 'env', variable: name }).state === 'granted';
  } catch {
    return false;
  }
}

/**
 * @param {string} name Variable
 * @returns {string|undefined} Its value, or undefined if unset or not readable here
 */
function envVar(name) {
  if (!readable(name)) return undefined;
  try {
    return process.env[name];
  } catch {
    return undefined;
  }
}

module.exports = { FORCE, VERIFY, STATUS, COMPILED, SERIALIZERS, envVar, readable };
