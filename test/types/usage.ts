// Compiled by test/install.test.js with `tsc --noEmit --strict`: the declarations must let
// TypeScript users write all of this without casts beyond the one protobufjs's Writer needs.
import * as protobuf from 'protobufjs';
import Long from 'long';
import { RustWriter, install, uninstall, status, serializer, type Long64, type VerifyStatus } from 'protobufjs-rustwriter';

const root = protobuf.parse('syntax = "proto3"; message M { uint32 id = 1; string name = 2; }').root;
const M = root.lookupType('M');

const installed: typeof protobuf = install(protobuf);
const checked: typeof protobuf = install(protobuf, { verify: 0.01 });
const writerApiOnly: typeof protobuf = install(protobuf, { compiled: false });
const compiles: boolean = status().copies[0].compiled;
const whyNot: string | null = status().copies[0].whyNotCompiled;
const bundled: typeof protobuf = install(protobuf, { protobufjsVersion: '8.8.1' });
const found: VerifyStatus = status().verify;
const fraction: number = status().copies[0].verify;
const viaInstall: Uint8Array = M.encode(M.create({ id: 1, name: 'x' })).finish();
const noSerializers: typeof protobuf = install(protobuf, { serializers: false });
const serialize: (obj: { [k: string]: any }) => Buffer = serializer(M);
const serialized: Buffer = serialize({ id: 1, name: 'x' });
const compiledSerializers: number = status().copies[0].serialized.compiled;
const loaders: boolean = status().protoLoaders.every((l) => l.hooked || l.why !== null);

const w: RustWriter = RustWriter.create();
const big: Long64 = 2n ** 63n;
const chained: RustWriter = w
  .uint32(1)
  .int64(Long.fromNumber(-1))
  .uint64(big)
  .sint64('-5')
  .fixed64({ low: 1, high: 2 })
  .string('s')
  .bytes(new Uint8Array([1, 2]))
  .bytes('AQI=')
  .doubles(new Float64Array([0.5]))
  .uint32s([1, 2, 3])
  .fork()
  .bool(true)
  .ldelim();
const out: Buffer = chained.finish();
const into: Uint8Array = RustWriter.create().uint32(5).finishInto(new Uint8Array(8), 2);
const native: boolean = RustWriter.native;
const position: number = w.pos + w.len;

// protobufjs's encode takes its own Writer class; RustWriter has its methods but not its
// internal fields, so an explicit writer needs a cast (install() needs none).
const explicit: Uint8Array = M.encode({ id: 2 }, RustWriter.create() as unknown as protobuf.Writer).finish();

uninstall(installed);
export { viaInstall, out, into, native, position, explicit, checked, found, fraction, whyNot, bundled };
export { noSerializers, serialized, compiledSerializers, loaders };
