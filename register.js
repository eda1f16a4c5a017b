'use strict';

// The preload: `node -r protobufjs-rustwriter/register app.js` (see lib/register.js).
module.exports = require('./lib/register');
