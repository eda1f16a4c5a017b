// Compiled by test/install.test.js with `tsc --noEmit --strict`: the preload's entry point and
// status() are typed.
import { status as fromRegister } from 'protobufjs-rustwriter/register';
import { status, type Status, type ProtobufCopyStatus } from 'protobufjs-rustwriter';

const s: Status = status();
const again: Status = fromRegister();
const native: boolean = s.native && again.preload;
const first: ProtobufCopyStatus | undefined = s.copies[0];
const version: string | null = first ? first.version : null;
const installed: boolean = s.copies.every((c) => c.installed && c.path !== null);
export { native, version, installed };
