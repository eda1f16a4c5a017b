'use strict';

/** Number formatting shared by the console report (bench/index.js) and bench/render.js. */

const KIB = 1024;
const MIB = KIB * KIB;

/**
 * Ops per second with thousands separators, no decimals.
 * @param {number} hz Ops per second
 * @returns {string} e.g. "1,234,567"
 */
function opsPerSecond(hz) {
  return Math.round(hz).toLocaleString('en-US');
}

/**
 * Time per op from ops per second, in ns, µs or ms, three significant digits at most.
 * @param {number} hz Ops per second
 * @returns {string} e.g. "812 ns", "12.3 µs", "1.02 ms"
 */
function timePerOp(hz) {
  const ns = 1e9 / hz;
  const [value, unit] = ns < 1e3 ? [ns, 'ns'] : ns < 1e6 ? [ns / 1e3, 'µs'] : [ns / 1e6, 'ms'];
  return `${value < 100 ? value.toPrecision(3) : Math.round(value)} ${unit}`;
}

/**
 * A ratio as "1.23x".
 * @param {number} ratio Ratio
 * @returns {string} Text
 */
function ratio(ratio) {
  return `${ratio.toFixed(2)}x`;
}

/**
 * What a target needs, as "at least 1.60x", "at most 1.00x" or "at most +15.0 MB".
 * @param {{threshold: number, atMost: boolean}} target Row of bench/targets.js
 * @returns {string} Text
 */
function needed(target) {
  return `${target.atMost ? 'at most' : 'at least'} ${figure(target, target.threshold)}`;
}

/**
 * A target's value in its unit: a ratio ("1.23x"), or MB ("+12.3 MB").
 * @param {{unit?: string}} target Row of bench/targets.js
 * @param {number} value Value
 * @returns {string} Text
 */
function figure(target, value) {
  return target.unit === 'MB' ? `${value < 0 ? '−' : '+'}${Math.abs(value).toFixed(1)} MB` : ratio(value);
}

/**
 * What a target measured, as "0.92x (0.61x to 1.35x; faster here: protobufjs 8.8.1)", or in MB.
 * @param {{value: number|null, range: number[]|null, detail: string}} target Row of bench/targets.js
 * @returns {string} Text ("nothing" when not measured)
 */
function measured(target) {
  if (target.value === null) return 'nothing';
  const show = (value) => figure(target, value);
  const range = target.range ? `${show(target.range[0])} to ${Number.isFinite(target.range[1]) ? show(target.range[1]) : 'any'}` : '';
  const notes = [range, target.detail].filter(Boolean);
  return `${show(target.value)}${notes.length ? ` (${notes.join('; ')})` : ''}`;
}

/**
 * A byte count in B, KiB or MiB, three significant digits at most.
 * @param {number} bytes Bytes (may be negative or fractional)
 * @returns {string} e.g. "512 B", "12.3 KiB", "1.02 MiB"
 */
function byteSize(bytes) {
  const abs = Math.abs(bytes);
  if (abs < KIB) return `${Math.round(bytes)} B`;
  const [value, unit] = abs < MIB ? [bytes / KIB, 'KiB'] : [bytes / MIB, 'MiB'];
  return `${Math.abs(value) < 100 ? value.toPrecision(3) : Math.round(value)} ${unit}`;
}

/**
 * Seconds as "3m 12s".
 * @param {number} seconds Seconds
 * @returns {string} Text
 */
function duration(seconds) {
  const s = Math.round(seconds);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m ${s % 60}s`;
}

/**
 * The machine and software line of a results file.
 * @param {object} run Parsed bench/results/*.json
 * @returns {string} e.g. "2 × AMD EPYC, Linux 6.1.0 x64, Node v20.20.2"
 */
function machineLine(run) {
  const { machine } = run;
  return `${machine.cores} × ${machine.cpu}, ${machine.os}, Node ${run.node}`;
}

/**
 * The commit a results file was produced on.
 * @param {object} run Parsed bench/results/*.json
 * @returns {string} e.g. "commit 78002ab (plus uncommitted changes)"
 */
function commitLine(run) {
  if (!run.git) return 'no git commit';
  return `commit ${run.git.commit.slice(0, 7)}${run.git.dirty ? ' (plus uncommitted changes)' : ''}`;
}

module.exports = { opsPerSecond, timePerOp, ratio, needed, measured, byteSize, duration, machineLine, commitLine };
