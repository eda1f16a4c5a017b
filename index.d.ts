/// <reference types="node" />

/** A 64-bit value as protobuf.js accepts it, plus BigInt. */
export type Long64 = number | string | bigint | { low: number; high: number; unsigned?: boolean };

/**
 * Wire format writer with protobuf.js's `Writer` API (8.8.1): it writes the wire bytes as they
 * arrive and hands only long packed varint fields to native code, once, on `finish()`.
 */
export declare class RustWriter {
  constructor();
  /** Creates a new writer. */
  static create(): RustWriter;
  /** Allocates a buffer of the specified size. */
  static alloc(size: number): Buffer;
  /** Whether this process encodes with the native addon (`false`: the JS-only path, same bytes). */
  static readonly native: boolean;
  /** Bytes `finish()` would return now (an open fork counts its one placeholder byte). */
  readonly pos: number;
  /** Same as `pos` (protobuf.js 8.x's deprecated alias). */
  readonly len: number;
  uint32(value: number): this;
  int32(value: number): this;
  sint32(value: number): this;
  uint64(value: Long64): this;
  int64(value: Long64): this;
  sint64(value: Long64): this;
  bool(value: boolean): this;
  fixed32(value: number): this;
  sfixed32(value: number): this;
  fixed64(value: Long64): this;
  sfixed64(value: Long64): this;
  float(value: number): this;
  double(value: number): this;
  /** Writes a sequence of bytes (a base64 string is decoded). */
  bytes(value: Uint8Array | ArrayLike<number> | string): this;
  /** Writes bytes without a length prefix. */
  raw(value: Uint8Array | ArrayLike<number>): this;
  string(value: string): this;
  uint32s(value: ArrayLike<number>): this;
  int32s(value: ArrayLike<number>): this;
  sint32s(value: ArrayLike<number>): this;
  uint64s(value: ArrayLike<Long64>): this;
  int64s(value: ArrayLike<Long64>): this;
  sint64s(value: ArrayLike<Long64>): this;
  bools(value: ArrayLike<boolean>): this;
  fixed32s(value: ArrayLike<number>): this;
  sfixed32s(value: ArrayLike<number>): this;
  fixed64s(value: ArrayLike<Long64>): this;
  sfixed64s(value: ArrayLike<Long64>): this;
  floats(value: ArrayLike<number>): this;
  doubles(value: ArrayLike<number>): this;
  /** Starts a length-delimited section. */
  fork(): this;
  /** Drops what was written since the last `fork()`, or everything if none is open. */
  reset(): this;
  /** Closes the innermost fork with its length prefix (with none open, prefixes everything). */
  ldelim(): this;
  /** The bytes written so far, as a Buffer the caller owns. `shared` is accepted and ignored. */
  finish(shared?: boolean): Buffer;
  /** Writes the bytes into `buf` at `offset` (default 0) and returns `buf`. */
  finishInto<T extends Uint8Array>(buf: T, offset?: number): T;
}

/** The parts of a protobufjs module `install` uses. */
export interface ProtobufModule {
  Writer: { create(): unknown; _configure?: (...args: unknown[]) => unknown };
}

/** Options of `install()`. */
export interface InstallOptions {
  /**
   * The fraction (0 to 1) of writers whose every call also goes to protobufjs's own writer, the two
   * results compared at `finish()`: a difference is counted in `status().verify` and reported once
   * per message type with a warning, never thrown; the caller always gets RustWriter's result.
   * Default: `PROTOBUFJS_RUSTWRITER_VERIFY`, else 0.
   */
  verify?: number;
  /**
   * Whether each reflected Type of this instance encodes with an encoder compiled for RustWriter
   * (set up from the install on), rather than protobufjs's generated encoder calling RustWriter's
   * methods. Same bytes either way. Default: true, unless `PROTOBUFJS_RUSTWRITER_COMPILED=0`.
   */
  compiled?: boolean;
  /**
   * Whether `serializer(Type)` and the @grpc/proto-loader copies using this protobufjs copy serialize
   * plain objects with code compiled per Type, `Type.encode(Type.fromObject(obj)).finish()` in one
   * pass (they need compiled encoders). Same bytes and errors either way. Default: true, unless
   * `PROTOBUFJS_RUSTWRITER_SERIALIZERS=0`.
   */
  serializers?: boolean;
  /**
   * The copy's version (e.g. `require('protobufjs/package.json').version`), for a copy whose
   * package.json cannot be found, as in a bundle: `status()` reports it, and a major other than 7
   * or 8 keeps protobufjs's encoders. Without it, a bundled copy's encoder rules come from what its
   * module has. Ignored where the copy's package.json is found.
   */
  protobufjsVersion?: string;
}

/**
 * Makes every encode of this protobufjs instance write through RustWriter, and its Types encode
 * with compiled encoders. Idempotent (a second call only applies its options).
 */
export declare function install<T extends ProtobufModule>(protobuf: T, options?: InstallOptions): T;
/** Restores protobufjs's own writer. */
export declare function uninstall<T extends ProtobufModule>(protobuf: T): T;

/** One protobufjs copy seen by `install()` or by the `register` preload. */
export interface ProtobufCopyStatus {
  /** Its package.json version (else the `protobufjsVersion` install() was given), or null if unknown (bundled). */
  version: string | null;
  /** Its package directory, or null if unknown. */
  path: string | null;
  /** Whether its `Writer.create` returns RustWriters now. */
  installed: boolean;
  /** Whether its Types set up from now on encode with compiled encoders. */
  compiled: boolean;
  /**
   * Why its Types keep protobufjs's generated encoders, while installed without compiled encoders
   * (turned off, no reflection in `protobufjs/minimal`, or an encoder the compiler does not
   * mirror); null otherwise.
   */
  whyNotCompiled: string | null;
  /** The fraction of its writers shadowed by protobufjs's own writer (0 when not installed). */
  verify: number;
  /**
   * Its Types the app still holds, by tier: compiled (their messages run code compiled for
   * RustWriter), cold (encoded through protobufjs's generated encoder until hot), and kept on
   * protobufjs's encoder (several thousand fields), by full name.
   */
  types: { compiled: number; cold: number; kept: string[] };
  /** Whether `serializer(Type)` compiles for its Types now. */
  serializers: boolean;
  /**
   * Why it does not while installed (turned off, no compiled encoders, or a `fromObject` the
   * serializers do not mirror); null otherwise.
   */
  whyNoSerializers: string | null;
  /**
   * Its serializers: how many were handed out (by `serializer()` or the @grpc/proto-loader hook), how
   * many of its Types have compiled code, those whose messages take their own `fromObject` and
   * `encode` (with why), and the fields compiled code moves into field number order.
   */
  serialized: { serializers: number; compiled: number; slow: string[]; moved: number };
}

/** One @grpc/proto-loader copy seen by the preload or by `install()`. */
export interface ProtoLoaderStatus {
  /** Its package.json version, or null if unknown. */
  version: string | null;
  /** Its package directory. */
  path: string;
  /** Whether its package definitions hand out compiled serializers. */
  hooked: boolean;
  /** Why not, while not hooked; null otherwise. */
  why: string | null;
  /** Package definitions that got compiled serializers. */
  definitions: number;
  /** Their methods. */
  methods: number;
  /** Package definitions left as they were (their Types' copy without serializers). */
  missed: number;
}

/** One message type whose bytes differed in the shadow check. */
export interface VerifyReport {
  /** The reflected type's full name, or "the message encoded at <file>:<line>". */
  type: string;
  /** The first offset where the two results differ. */
  offset: number;
  /** Bytes of RustWriter's result. */
  length: number;
  /** Bytes of protobufjs's result. */
  expectedLength: number;
}

/** What the shadow check found (all zero when it is off). */
export interface VerifyStatus {
  /** Writers shadowed so far. */
  writers: number;
  /** Results compared. */
  checked: number;
  /** Results that differed from protobufjs's. */
  differing: number;
  /** Shadowed writers that could not be compared (a fork left open, a call that threw, a method the copy lacks). */
  skipped: number;
  /** The first result that differed, per message type (at most 20 types). */
  reports: VerifyReport[];
}

/** What is in use. */
export interface Status {
  /** Whether the native addon is loaded (`false`: the JS path, same bytes). */
  native: boolean;
  /** Whether the `protobufjs-rustwriter/register` preload has hooked module loading. */
  preload: boolean;
  /** Each protobufjs copy seen, in the order seen. */
  copies: ProtobufCopyStatus[];
  /** What the shadow check found. */
  verify: VerifyStatus;
  /** Each @grpc/proto-loader copy seen, in the order seen. */
  protoLoaders: ProtoLoaderStatus[];
}

/** Each protobufjs copy seen, and whether it writes through RustWriter. */
export declare function status(): Status;

/** The parts of a protobufjs Type `serializer` uses: a reflected Type, or a pbjs static class. */
export interface SerializableType<T = object> {
  fromObject(object: { [k: string]: any }): T;
  encode(message: T): { finish(): Uint8Array };
}

/**
 * `(obj) => Buffer`, with the same result as `type.encode(type.fromObject(obj)).finish()` (the same
 * bytes, or the same error), compiled for the Type once it is hot, as gRPC's serializers are under
 * the preload. One function per Type. For a Type whose copy has no compiled serializers (not
 * installed, turned off, pbjs static code), protobufjs's own calls.
 */
export declare function serializer<T>(type: SerializableType<T>): (obj: { [k: string]: any }) => Buffer;
