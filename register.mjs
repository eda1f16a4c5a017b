// The preload for `node --import protobufjs-rustwriter/register app.mjs` (see lib/register.js).
import './register.js';
