'use strict';

/**
 * How many optimized functions a full GC deoptimizes while a case is being encoded: warms the
 * case's op up, runs `gc()`, then 100 more ops, in a child process under `--trace-deopt`, and
 * counts the deoptimizations after the GC by reason and function.
 *
 *   node bench/probes/gc-deopt.js [case] [contender]
 *
 * Seen on the vector tile and the packed cases, for every writer (RustWriter with and without
 * the addon, also at commit cd83ca3, and protobufjs 8.8.1's own: e.g. tile 57 and 33, packed-array
 * 27 and 18), the reader's and the generated code's functions among them, with reasons "weak
 * objects" and "code dependencies": the ops right after a major GC run unoptimized, and allocate
 * heap numbers there, which is what spreads bench/alloc.js's heap figures for those cases (its
 * windows each start with `gc()`). Which embedded objects die is not known.
 */

const { execFileSync } = require('child_process');

const [id = 'tile', key = 'rust', child] = process.argv.slice(2);
if (child === '--child') {
  const { CASES, prepareCase } = require('../cases');
  const [op] = prepareCase(CASES.find((c) => c.id === id), null, [key]);
  for (let i = 0; i < 2000; ++i) op.fn();
  process.stdout.write('--- gc\n');
  global.gc();
  for (let i = 0; i < 100; ++i) op.fn();
} else {
  const out = execFileSync(process.execPath, ['--expose-gc', '--trace-deopt', __filename, id, key, '--child'],
    { encoding: 'utf8', maxBuffer: 1 << 28 });
  const after = out.slice(out.indexOf('--- gc\n'));
  const counts = new Map();
  for (const m of after.matchAll(/<SharedFunctionInfo ([\w$]*)>\)[^\n]*reason: ([^\]\n]*)/g)) {
    const k = `${m[2]}: ${m[1] || '(anonymous)'}`;
    counts.set(k, (counts.get(k) || 0) + 1);
  }
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  process.stdout.write(`${id} ${key}: ${total} deoptimizations after one gc()\n`);
  for (const [k, n] of [...counts].sort((a, b) => b[1] - a[1])) process.stdout.write(`  ${n} × ${k}\n`);
}
