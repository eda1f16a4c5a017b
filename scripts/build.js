'use strict';

/**
 * `prepare` (so `npm install` in a git clone): builds the native addon with the napi CLI when
 * cargo is on the PATH. Without cargo it says so and succeeds, and the package uses its JS path
 * (same bytes, slower; see README "Install"), so an install never fails for want of Rust.
 * `npm run build` always builds, and fails without cargo.
 */

const { spawnSync } = require('child_process');
const path = require('path');

const cargo = spawnSync(process.platform === 'win32' ? 'cargo.exe' : 'cargo', ['--version'], { encoding: 'utf8' });
if (cargo.error || cargo.status !== 0) {
  process.stderr.write('protobufjs-rustwriter: cargo is not on the PATH, so the native addon is not built; ' +
    'RustWriter will encode in JavaScript. With a Rust toolchain on the PATH, `npm run build` builds the addon.\n');
  process.exit(0);
}
const napi = path.join(__dirname, '..', 'node_modules', '@napi-rs', 'cli', 'dist', 'cli.js');
const build = spawnSync(process.execPath, [napi, 'build', '--platform', '--release', '--no-js', '--dts', 'binding.d.ts'], {
  cwd: path.join(__dirname, '..'),
  stdio: 'inherit',
});
process.exit(build.status === null ? 1 : build.status);
