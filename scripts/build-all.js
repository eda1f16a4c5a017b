'use strict';

/**
 * `npm run build:all [-- platform ...]`: builds the addon of every platform package (or of those
 * named, e.g. `linux-arm64-gnu`) on a Linux x64 machine, one cargo build at a time, and puts each
 * at the package root as `protobufjs-rustwriter.<platform>.node`, where `npm run pack` takes it.
 * - Linux and macOS: `napi build -x` (cargo-zigbuild with zig, both from PyPI). Both glibc
 *   targets use zig's `.2.17` suffix, so they load on glibc 2.17 and later; macOS minimums are
 *   set with MACOSX_DEPLOYMENT_TARGET (zig would otherwise record its own SDK's version).
 * - Windows: x86_64-pc-windows-gnu with mingw-w64 (Debian), napi's `dyn-symbols` (N-API is looked
 *   up in the host process at load time, so there is no import library of node.exe to link),
 *   then saved under the win32-x64-msvc name the loader expects. napi-build insists on finding a
 *   libnode.dll and libnode.a for *-windows-gnu even though dyn-symbols links nothing from them:
 *   LIBNODE_PATH names a directory of empty placeholders.
 * Symbols: the ELF addons are stripped at link time (`napi build --strip`: `-C link-arg=-s`), the
 * Windows DLL afterwards with mingw's strip. The Mach-O ones keep their symbol table: zig's Mach-O
 * linker ignores -s, and stripping darwin-arm64 afterwards would invalidate the ad-hoc signature
 * the linker made (no codesign here to redo it); darwin-x64 is left alike.
 * Tools are installed on first use (scripts/platforms.js). `npm run build` still builds only
 * this machine's addon, with the local toolchain.
 */

const fs = require('fs');
const path = require('path');
const {
  ROOT, CACHE, PLATFORMS, run, ensureRustTargets, ensureZig, ensureMingw,
} = require('./platforms');

const NAPI = path.join(ROOT, 'node_modules', '@napi-rs', 'cli', 'dist', 'cli.js');

function main() {
  if (process.platform !== 'linux' || process.arch !== 'x64') throw new Error('build:all runs on Linux x64');
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((name) => !PLATFORMS.some((p) => p.platform === name));
  if (unknown.length) throw new Error(`unknown platform ${unknown.join(', ')}: one of ${PLATFORMS.map((p) => p.platform).join(', ')}`);
  const platforms = PLATFORMS.filter((p) => !wanted.length || wanted.includes(p.platform));

  const started = Date.now();
  ensureRustTargets(platforms.map((p) => p.triple));
  const env = { ...process.env };
  if (platforms.some((p) => p.via === 'zig')) env.PATH = `${ensureZig()}${path.delimiter}${env.PATH}`;
  if (platforms.some((p) => p.via === 'mingw')) ensureMingw();
  const libnode = path.join(CACHE, 'libnode-placeholder');
  fs.mkdirSync(libnode, { recursive: true });
  for (const file of ['libnode.dll', 'libnode.a']) fs.writeFileSync(path.join(libnode, file), '');
  process.stdout.write(`build:all: tools ready in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);

  const times = [];
  for (const p of platforms) {
    const t0 = Date.now();
    const out = path.join(CACHE, 'out', p.platform);
    fs.rmSync(out, { recursive: true, force: true });
    const args = [NAPI, 'build', '--platform', '--release', '--strip', '--no-js', '--target', p.cargoTarget, '--output-dir', out];
    const buildEnv = { ...env };
    if (p.via === 'zig') args.push('-x');
    if (p.macos) buildEnv.MACOSX_DEPLOYMENT_TARGET = p.macos;
    if (p.via === 'mingw') {
      args.push('--features', 'napi/dyn-symbols');
      buildEnv.LIBNODE_PATH = libnode;
      buildEnv.CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER = 'x86_64-w64-mingw32-gcc';
    }
    // The host's own flags (e.g. -C target-cpu=native) must not leak into a portable binary.
    delete buildEnv.RUSTFLAGS;
    delete buildEnv.CARGO_ENCODED_RUSTFLAGS;
    run(process.execPath, args, { env: buildEnv });
    const built = fs.readdirSync(out).filter((f) => f.endsWith('.node'));
    if (built.length !== 1) throw new Error(`${p.platform}: expected one .node in ${out}, found ${built.join(', ') || 'none'}`);
    fs.copyFileSync(path.join(out, built[0]), path.join(ROOT, p.file));
    // rustc's windows-gnu link keeps the COFF symbol table despite -s; mingw's strip removes it
    // (a PE DLL carries no signature to break).
    if (p.via === 'mingw') run('x86_64-w64-mingw32-strip', ['--strip-all', p.file]);
    const seconds = (Date.now() - t0) / 1000;
    times.push(`${p.platform} ${seconds.toFixed(0)} s, ${fs.statSync(path.join(ROOT, p.file)).size} bytes`);
    process.stdout.write(`build:all: ${p.file} (from ${built[0]}) in ${seconds.toFixed(0)} s\n`);
  }
  process.stdout.write(`build:all: ${times.join('; ')}; total ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
}

main();
