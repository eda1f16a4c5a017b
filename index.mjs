// ES module entry: the CommonJS module's exports, as named and default exports.
import writer from './index.js';

export const { RustWriter, install, uninstall, status, serializer } = writer;
export default writer;
