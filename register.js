'use strict';

// The preload: `node -r protobufjs-rustwriter/register app.js` (see lib/integration/register.js).
module.exports = require('./lib/integration/register');
