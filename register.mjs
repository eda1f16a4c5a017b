// The preload for `node --import protobufjs-rustwriter/register app.mjs` (see lib/integration/register.js).
import './register.js';
