'use strict';

/**
 * `install(protobuf)`: makes a protobufjs instance's `Writer.create` return RustWriters.
 */

const { RustWriter } = require('./writer');

const INSTALLED = Symbol.for('protobufjs-rustwriter.installed');

/**
 * `Writer.create` while installed.
 * @returns {RustWriter} A new writer
 */
function create_rust() {
  return new RustWriter();
}

/**
 * Makes every `Type.encode` / `encodeDelimited` of this protobufjs instance (reflection and
 * static generated code, protobufjs 7.x and 8.x) write through {@link RustWriter}. Idempotent;
 * survives `protobuf.configure()`.
 * @param {object} protobuf The protobufjs module (`protobufjs`, `/light` or `/minimal`)
 * @returns {object} `protobuf`
 */
function install(protobuf) {
  const Writer = protobuf && protobuf.Writer;
  if (typeof Writer !== 'function' || typeof Writer.create !== 'function') {
    throw new TypeError('protobufjs-rustwriter: install() expects the protobufjs module (with a Writer)');
  }
  if (Object.prototype.hasOwnProperty.call(Writer, INSTALLED)) return protobuf;
  const original = { create: Writer.create, configure: Writer._configure };
  Object.defineProperty(Writer, INSTALLED, { value: original, configurable: true });
  Writer.create = create_rust;
  if (typeof original.configure === 'function') {
    // protobuf.configure() resets Writer.create through Writer._configure: re-apply after it.
    Writer._configure = function _configure() {
      const result = original.configure.apply(this, arguments);
      Writer.create = create_rust;
      return result;
    };
  }
  return protobuf;
}

/**
 * Undoes {@link install}: `Writer.create` and `Writer._configure` are protobufjs's own again.
 * @param {object} protobuf The protobufjs module passed to `install`
 * @returns {object} `protobuf`
 */
function uninstall(protobuf) {
  const Writer = protobuf && protobuf.Writer;
  const original = Writer && Object.prototype.hasOwnProperty.call(Writer, INSTALLED) ? Writer[INSTALLED] : null;
  if (original === null) return protobuf;
  Writer.create = original.create;
  if (typeof original.configure === 'function') {
    Writer._configure = original.configure;
    // create() may have been reset by configure() while installed; configure again to be sure.
    Writer.create = original.create;
  }
  delete Writer[INSTALLED];
  return protobuf;
}

module.exports = { install, uninstall };
