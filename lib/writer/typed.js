'use strict';

/**
 * What a typed array really is and holds, read through the intrinsic getters of
 * `%TypedArray%.prototype`: an own `length`, `buffer` or `constructor` property, a Proxy, or a
 * getter cannot make the writer read a typed array differently, run user code where none is
 * expected, or overrun a copy.
 */

const TypedArray = Object.getPrototypeOf(Uint8Array);
const getter = (name) => Object.getOwnPropertyDescriptor(TypedArray.prototype, name).get;
const tagOf = getter(Symbol.toStringTag);
const lengthGetter = getter('length');
const bufferGetter = getter('buffer');
const byteOffsetGetter = getter('byteOffset');

/** The typed array classes by name, to make views of a given array's type. */
const CLASSES = {
  Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array, Float32Array,
  Float64Array, BigInt64Array, BigUint64Array,
};

/**
 * @param {*} value Anything
 * @returns {string|undefined} The class name of `value` if it is a typed array (of any realm),
 * e.g. `'Int32Array'`, else undefined (also for a Proxy of one, and a `DataView`)
 */
function typedName(value) {
  return ArrayBuffer.isView(value) ? tagOf.call(value) : undefined;
}

/**
 * @param {*} value Anything
 * @returns {boolean} Whether `value` is a typed array
 */
function isTypedArray(value) {
  return typedName(value) !== undefined;
}

/**
 * @param {ArrayBufferView} array A typed array
 * @returns {number} The elements it holds now: 0 once its buffer is detached or it is out of
 * bounds of a shrunk resizable buffer
 */
function lengthOf(array) {
  return lengthGetter.call(array);
}

/**
 * A fixed-length view of the first `count` elements of a typed array, of its own type.
 * @param {ArrayBufferView} array Typed array holding at least `count` elements
 * @param {number} count Elements
 * @returns {ArrayBufferView} View
 */
function viewOf(array, count) {
  return new CLASSES[tagOf.call(array)](bufferGetter.call(array), byteOffsetGetter.call(array), count);
}

/**
 * The first `byteLength` bytes of a typed array.
 * @param {ArrayBufferView} array Typed array holding at least that many bytes
 * @param {number} byteLength Bytes
 * @returns {Uint8Array} View
 */
function bytesOf(array, byteLength) {
  return new Uint8Array(bufferGetter.call(array), byteOffsetGetter.call(array), byteLength);
}

module.exports = { typedName, isTypedArray, lengthOf, viewOf, bytesOf };
