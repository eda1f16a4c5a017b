'use strict';

/**
 * Shrinks a failing sequence to a minimal one that fails the same way (same kind, same method at
 * the failing step, the same known bug or none): greedy passes that delete steps (halves,
 * quarters, … single steps), then simplify each argument (hostile values to plain ones, actions to
 * nothing or fewer calls, arrays and strings shorter, numbers to 0 and 1, generated data written
 * out), until no pass helps or the time is up.
 */

const { typedValues } = require('./values');
const { num } = require('../values');

/**
 * @param {object} failure Failure record (check.js), with `desc`
 * @param {function(object): (object|null|Promise<object|null>)} run Runs a candidate: its failure
 * (a record with `kind` and `op`, and `desc` when known) or null
 * @param {{seconds: number, tries?: number, classify?: function(object): *}} options Budget; and
 * what else a candidate's failure must share with the original (the known bug it is)
 * @returns {Promise<{failure: object, desc: object, tries: number, original: number}>} The smallest
 * failing sequence found, its failure, the candidates tried and the original step count
 */
async function shrink(failure, run, options) {
  const deadline = Date.now() + 1000 * options.seconds;
  let best = failure.desc;
  let bestFailure = failure;
  let tries = 0;
  const sort = options.classify || (() => null);
  const bug = sort(failure);
  const same = (f) => f !== null && f.kind === failure.kind && f.op === failure.op && sort(f) === bug;
  const attempt = async (candidate) => {
    if (Date.now() > deadline || tries >= (options.tries || Infinity)) return false;
    tries++;
    let f;
    try {
      f = await run(candidate);
    } catch {
      return false;
    }
    if (!same(f)) return false;
    best = f.desc && f.desc.steps.length <= candidate.steps.length ? f.desc : candidate;
    bestFailure = f.desc ? f : { ...failure, desc: candidate };
    return true;
  };
  let progress = true;
  while (progress && Date.now() < deadline) {
    progress = false;
    for (let chunk = Math.max(1, best.steps.length >> 1); chunk >= 1; chunk >>= 1) {
      for (let at = 0; at < best.steps.length;) {
        const steps = best.steps.slice(0, at).concat(best.steps.slice(at + chunk));
        if (steps.length < best.steps.length && await attempt({ seed: best.seed, steps })) progress = true;
        else at += chunk;
      }
    }
    for (let i = 0; i < best.steps.length; i++) {
      const step = best.steps[i];
      if (!step || !step.args) continue;
      for (let a = 0; a < step.args.length; a++) {
        for (let again = true; again;) {
          again = false;
          for (const simpler of simplify(best.steps[i].args[a])) {
            const steps = best.steps.slice();
            const args = steps[i].args.slice();
            args[a] = simpler;
            steps[i] = { ...steps[i], args };
            if (await attempt({ seed: best.seed, steps })) {
              progress = again = true;
              break;
            }
          }
        }
      }
    }
  }
  return { failure: bestFailure, desc: best, tries, original: failure.desc.steps.length };
}

/**
 * Simpler variants of a description, simplest first.
 * @param {*} d Description (or a raw `finishInto` argument)
 * @returns {object[]} Candidates
 */
function simplify(d) {
  if (d === null || typeof d !== 'object') return typeof d === 'number' && d !== 0 ? [0] : [];
  const out = [];
  switch (d.k) {
    case 'conv':
      out.push(d.ret);
      for (const act of simplerActs(d.act)) out.push({ ...d, act });
      if (d.via !== 'valueOf') out.push({ ...d, via: 'valueOf' });
      for (const ret of simplify(d.ret)) out.push({ ...d, ret });
      break;
    case 'longlike':
      out.push({ k: 'lh', low: d.low, high: d.high });
      for (const key of ['lowAct', 'highAct']) for (const act of simplerActs(d[key])) out.push({ ...d, [key]: act });
      for (const key of ['low', 'high']) for (const v of simplify(d[key])) out.push({ ...d, [key]: v });
      break;
    case 'getters':
      out.push(d.base);
      for (let j = 0; j < d.acts.length; j++) {
        if (d.acts.length > 1) out.push({ ...d, acts: d.acts.filter((_, k) => k !== j) });
        for (const act of simplerActs(d.acts[j][1])) {
          out.push({ ...d, acts: d.acts.map((e, k) => (k === j ? [e[0], act] : e)) });
        }
      }
      for (const base of simplify(d.base)) {
        const n = base.elems ? base.elems.length : base.n;
        if (n === 0) continue;
        // Acts past the new end move to its last element.
        const acts = [...new Map(d.acts.map(([i, act]) => [Math.min(i, n - 1), act]))];
        out.push({ ...d, base, acts });
      }
      break;
    case 'proxy':
      out.push(d.over);
      for (let j = 0; j < d.acts.length; j++) {
        out.push({ ...d, acts: d.acts.filter((_, k) => k !== j) });
        for (const act of simplerActs(d.acts[j][1])) {
          out.push({ ...d, acts: d.acts.map((e, k) => (k === j ? [e[0], act] : e)) });
        }
      }
      for (const over of simplify(d.over)) {
        const n = over.elems ? over.elems.length : over.values ? over.values.length : over.n;
        const acts = [...new Map(d.acts.map(([key, act]) => [/^\d+$/.test(key) && Number(key) >= n ? String(n - 1) : key, act]))];
        out.push({ ...d, over, acts: acts.filter(([key]) => key !== '-1') });
      }
      break;
    case 'arr':
      if (!d.elems) {
        if (d.n <= 24) {
          const values = typedValues(d).map((v) => (typeof v === 'bigint' ? { k: 'big', v: String(v) } : num(v)));
          for (const [i, e] of d.put) values[i] = e;
          out.push({ k: 'arr', elems: values });
        }
        for (const n of shorter(d.n)) out.push({ ...d, n, put: d.put.filter(([i]) => i < n) });
        for (let j = 0; j < d.put.length; j++) {
          out.push({ ...d, put: d.put.filter((_, k) => k !== j) });
          for (const e of simplify(d.put[j][1])) {
            out.push({ ...d, put: d.put.map((p, k) => (k === j ? [p[0], e] : p)) });
          }
        }
        if (d.dist !== 'small' && d.dist !== 'big') out.push({ ...d, dist: 'small' });
      } else {
        for (let j = 0; j < d.elems.length; j++) out.push({ ...d, elems: d.elems.filter((_, k) => k !== j) });
        for (let j = 0; j < d.elems.length; j++) {
          for (const e of simplify(d.elems[j])) out.push({ ...d, elems: d.elems.map((x, k) => (k === j ? e : x)) });
        }
      }
      break;
    case 'typed':
      if (d.lengthAct) {
        const { lengthAct, ...rest } = d;
        out.push(rest);
        for (const act of simplerActs(lengthAct)) out.push({ ...d, lengthAct: act });
      }
      for (const key of ['snan', 'offset', 'buffer', 'detached']) {
        if (d[key] !== undefined) {
          const copy = { ...d };
          delete copy[key];
          out.push(copy);
        }
      }
      if (!d.values) {
        for (const n of shorter(d.n)) {
          const snan = d.snan && n > 0 ? [...new Set(d.snan.map((i) => Math.min(i, n - 1)))] : undefined;
          out.push({ ...d, n, snan });
        }
        if (d.n <= 16) {
          const { n, seed, dist, ...rest } = d; // eslint-disable-line no-unused-vars
          out.push({ ...rest, values: typedValues(d).map((v) => (typeof v === 'bigint' ? String(v) : Number.isFinite(v) ? v : String(v))) });
        }
      } else {
        for (let j = 0; j < d.values.length; j++) out.push({ ...d, values: d.values.filter((_, k) => k !== j) });
        for (let j = 0; j < d.values.length; j++) if (d.values[j] !== 0 && d.values[j] !== '0') out.push({ ...d, values: d.values.map((v, k) => (k === j ? (typeof v === 'string' && /^-?\d+$/.test(v) ? '0' : 0) : v)) });
      }
      break;
    case 'data':
      for (const n of shorter(d.n)) out.push({ ...d, n });
      if (d.form !== 'buffer') out.push({ ...d, form: 'buffer' });
      break;
    case 'str':
      if (d.v.length > 0) out.push({ k: 'str', v: d.v.slice(0, d.v.length >> 1) }, { k: 'str', v: d.v.slice(1) }, { k: 'str', v: d.v.slice(0, -1) });
      break;
    case 'num':
      if (d.v !== 0) out.push(num(0));
      if (d.v !== 1 && d.v !== 0) out.push(num(1));
      break;
    case 'big': case 'long': case 'lh': case 'strobj':
      out.push(num(1));
      break;
    case 'arraylike':
      for (let j = 0; j < d.elems.length; j++) out.push({ ...d, elems: d.elems.filter((_, k) => k !== j) });
      for (let j = 0; j < d.elems.length; j++) {
        for (const e of simplify(d.elems[j])) out.push({ ...d, elems: d.elems.map((x, k) => (k === j ? e : x)) });
      }
      break;
    default:
  }
  return out;
}

/**
 * @param {number} n A length
 * @returns {number[]} Shorter lengths worth trying: 0, halves, and one less
 */
function shorter(n) {
  const out = new Set();
  if (n > 0) out.add(0);
  for (let m = n >> 1; m > 0; m >>= 1) out.add(m);
  if (n > 1) out.add(n - 1);
  return [...out].filter((m) => m < n);
}

/**
 * Simpler actions: none, then `do` with a call fewer or simpler arguments.
 * @param {object} act Action
 * @returns {object[]} Candidates
 */
function simplerActs(act) {
  if (!act || act.a === 'none') return [];
  const out = [{ a: 'none' }];
  if (act.a === 'do') {
    if (act.calls.length > 1) {
      for (let j = 0; j < act.calls.length; j++) out.push({ ...act, calls: act.calls.filter((_, k) => k !== j) });
    }
    for (let j = 0; j < act.calls.length; j++) {
      const [op, ...args] = act.calls[j];
      for (let a = 0; a < args.length; a++) {
        for (const s of simplify(args[a])) {
          const call = [op, ...args.slice(0, a), s, ...args.slice(a + 1)];
          out.push({ ...act, calls: act.calls.map((c, k) => (k === j ? call : c)) });
        }
      }
    }
  }
  return out;
}

module.exports = { shrink };
