// `protobufjs-rustwriter/register`: the preload. Loading it installs RustWriter into every
// protobufjs 7.x and 8.x copy the process loads; it exports `status()` for convenience.
export { status, type Status, type ProtobufCopyStatus, type VerifyStatus, type VerifyReport } from './index';
