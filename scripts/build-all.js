'use strict';

/**
 * `npm run build:all [-- platform ...]`: builds the addon of every platform package (or of those
 * named, e.g. `linux-arm64-gnu`) on a Linux x64 machine, one cargo build at a time, and puts each
 * at the package root as `protobufjs-rustwriter.<platform>.node`, where `npm run pack` takes it.
 * - Linux, FreeBSD and macOS: `napi build -x` (cargo-zigbuild with zig, both from PyPI). The
 *   glibc targets use zig's `.2.17` suffix, so they load on glibc 2.17 and later; macOS minimums
 *   are set with MACOSX_DEPLOYMENT_TARGET (zig would otherwise record its own SDK's version).
 * - Windows: napi's `dyn-symbols` (N-API is looked up in the host process at load time, so there
 *   is no import library of node.exe to link), then saved under the win32-*-msvc name the loader
 *   expects. x64 and ia32: *-pc-windows-gnu linked by mingw-w64 (Debian). arm64:
 *   aarch64-pc-windows-gnullvm linked by zig (`napi build -x` refuses Windows GNU targets, so a
 *   plain `napi build` whose linker is cargo-zigbuild's `zig cc`, through a wrapper script under
 *   target/cross). napi-build insists on finding a libnode.dll and libnode.a for *-windows-gnu*
 *   even though dyn-symbols links nothing from them: LIBNODE_PATH names a directory of
 *   placeholders (an empty file, and an empty `ar` archive, which LLVM's linker requires).
 * Symbols: the ELF addons are stripped at link time (`napi build --strip`: `-C link-arg=-s`), the
 * mingw DLLs afterwards with mingw's strip (LLVM's linker writes no COFF symbol table). The
 * Mach-O ones keep their symbol table: zig's Mach-O linker ignores -s, and stripping darwin-arm64
 * afterwards would invalidate the ad-hoc signature the linker made (no codesign here to redo it);
 * darwin-x64 is left alike.
 * Tools are installed on first use (scripts/platforms.js). `npm run build` still builds only
 * this machine's addon, with the local toolchain.
 */

const fs = require('fs');
const path = require('path');
const {
  ROOT, CACHE, PLATFORMS, run, ensureRustTargets, ensureZig, ensureMingw,
} = require('./platforms');

const NAPI = path.join(ROOT, 'node_modules', '@napi-rs', 'cli', 'dist', 'cli.js');

/**
 * A linker for rustc that is zig's C compiler for `target`, through cargo-zigbuild's `zig cc`
 * (which adapts rustc's GNU-style arguments, as it does under `napi build -x`).
 * @param {string} target zig's target, e.g. `aarch64-windows-gnu`
 * @returns {string} The wrapper script's path (under target/cross)
 */
function zigCc(target) {
  const file = path.join(CACHE, `zigcc-${target}.sh`);
  fs.writeFileSync(file, `#!/bin/sh\nexec cargo-zigbuild zig cc -- -target ${target} "$@"\n`, { mode: 0o755 });
  return file;
}

function main() {
  if (process.platform !== 'linux' || process.arch !== 'x64') throw new Error('build:all runs on Linux x64');
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((name) => !PLATFORMS.some((p) => p.platform === name));
  if (unknown.length) throw new Error(`unknown platform ${unknown.join(', ')}: one of ${PLATFORMS.map((p) => p.platform).join(', ')}`);
  const platforms = PLATFORMS.filter((p) => !wanted.length || wanted.includes(p.platform));

  const started = Date.now();
  ensureRustTargets(platforms.map((p) => p.triple));
  const env = { ...process.env };
  if (platforms.some((p) => p.via.startsWith('zig'))) env.PATH = `${ensureZig()}${path.delimiter}${env.PATH}`;
  for (const prefix of new Set(platforms.filter((p) => p.via === 'mingw').map((p) => p.mingw))) ensureMingw(prefix);
  const libnode = path.join(CACHE, 'libnode-placeholder');
  fs.mkdirSync(libnode, { recursive: true });
  fs.writeFileSync(path.join(libnode, 'libnode.dll'), '');
  fs.writeFileSync(path.join(libnode, 'libnode.a'), '!<arch>\n');
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
    const linkerVar = `CARGO_TARGET_${p.triple.toUpperCase().replace(/-/g, '_')}_LINKER`;
    if (p.triple.includes('-windows-')) {
      args.push('--features', 'napi/dyn-symbols');
      buildEnv.LIBNODE_PATH = libnode;
    }
    if (p.via === 'mingw') buildEnv[linkerVar] = `${p.mingw}-gcc`;
    if (p.via === 'zig-cc') buildEnv[linkerVar] = zigCc(p.zigTarget);
    // The host's own flags (e.g. -C target-cpu=native) must not leak into a portable binary.
    delete buildEnv.RUSTFLAGS;
    delete buildEnv.CARGO_ENCODED_RUSTFLAGS;
    run(process.execPath, args, { env: buildEnv });
    const built = fs.readdirSync(out).filter((f) => f.endsWith('.node'));
    if (built.length !== 1) throw new Error(`${p.platform}: expected one .node in ${out}, found ${built.join(', ') || 'none'}`);
    fs.copyFileSync(path.join(out, built[0]), path.join(ROOT, p.file));
    // rustc's windows-gnu link keeps the COFF symbol table despite -s; mingw's strip removes it
    // (a PE DLL carries no signature to break).
    if (p.via === 'mingw') run(`${p.mingw}-strip`, ['--strip-all', p.file]);
    const seconds = (Date.now() - t0) / 1000;
    times.push(`${p.platform} ${seconds.toFixed(0)} s, ${fs.statSync(path.join(ROOT, p.file)).size} bytes`);
    process.stdout.write(`build:all: ${p.file} (from ${built[0]}) in ${seconds.toFixed(0)} s\n`);
  }
  process.stdout.write(`build:all: ${times.join('; ')}; total ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
}

main();
