#!/usr/bin/env node
'use strict';

/**
 * The `protobufjs-rustwriter` command: `protobufjs-rustwriter measure ...` (lib/measure/main.js).
 */

const { main } = require('../lib/measure/main');

const io = { cwd: process.cwd(), env: process.env, stdout: process.stdout, stderr: process.stderr };
process.exitCode = main(process.argv.slice(2), io);
