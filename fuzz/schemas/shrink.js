'use strict';

/**
 * Shrinks a failing case to a small one that fails the same way (the same kind, in the same
 * form): first the case is cut to the failing message (or `into` run and its messages) and the
 * case options are dropped; then greedy passes, until none helps or the time is up, over
 * - the `into` operations (each deleted);
 * - the message values, node by node from the root: fewer fields (halves, then one at a time),
 *   no `$unknowns`, plain objects and own properties instead of getters, Proxies, `create`,
 *   `fromObject` and decoded messages, shallower nesting (a nested message replaced by an empty one
 *   or by one of its own nested messages of the same type), shorter arrays, maps, strings and bytes,
 *   smaller and plainer scalars;
 * - the schema: fields no message sets removed (then types and enums no field uses), one field at
 *   a time, then `resolveAll`, `keepCase` and a reflection build turned off where they can be.
 */

/**
 * @param {object} failure Failure record (check.js), with `desc`, `kind`, `form`, `at`
 * @param {function(object): object|null} run Runs a candidate case: its failure or null
 * @param {{seconds: number, tries?: number}} options Budget
 * @returns {{failure: object, desc: object, tries: number, original: object}} The smallest failing
 * case found, its failure, the candidates tried, and the original case's size ({@link size})
 */
function shrink(failure, run, options) {
  const deadline = Date.now() + 1000 * options.seconds;
  const maxTries = options.tries || Infinity;
  let tries = 0;
  let best = failure.desc;
  let bestFailure = failure;
  const same = (f) => f !== null && f.kind === failure.kind && f.form === failure.form;
  /**
   * @param {object} candidate A case
   * @returns {boolean} Whether it fails the same way (it is then the best so far)
   */
  const attempt = (candidate) => {
    if (Date.now() > deadline || tries >= maxTries) return false;
    tries++;
    let f;
    try {
      f = run(candidate);
    } catch {
      return false;
    }
    if (!same(f)) return false;
    best = candidate;
    bestFailure = f;
    return true;
  };
  const original = size(failure.desc);

  // The failing item alone, without the second pass where it failed before it.
  const cut = isolate(failure);
  if (cut !== null) attempt(cut);
  if (best.after && failure.form !== 'after') attempt({ ...best, after: null });
  for (const options2 of [{ customBuffer: false }, { recursionLimit: null }]) {
    const key = Object.keys(options2)[0];
    if (best.options[key] !== options2[key]) attempt({ ...best, options: { ...best.options, ...options2 } });
  }

  let progress = true;
  while (progress && Date.now() < deadline && tries < maxTries) {
    progress = false;
    // into runs, then their operations
    for (let j = best.intos.length - 1; j >= 0; j--) {
      if (j < best.intos.length) {
        const intos = best.intos.filter((_, k) => k !== j);
        if (attempt({ ...best, intos })) progress = true;
      }
    }
    for (let j = 0; j < best.intos.length; j++) {
      for (let o = 0; o < best.intos[j].ops.length;) {
        const intos = best.intos.map((x, k) => (k === j ? { ops: x.ops.filter((_, q) => q !== o) } : x));
        if (attempt({ ...best, intos })) progress = true;
        else o++;
      }
    }
    // the second pass: fewer changes, none of its option changes, plain values for added fields
    if (best.after) {
      for (const candidate of afterCandidates(best)) if (attempt(candidate)) progress = true;
    }
    // whole messages (a failure may need messages encoded before it: those stay)
    for (let k = best.messages.length - 1; k >= 0 && best.messages.length > 1; k--) {
      if (k < best.messages.length && attempt(withoutMessage(best, k))) progress = true;
    }
    // the values of the messages left
    for (let i = 0; i < best.messages.length; i++) {
      const value = best.messages[i].value;
      if (value.k === 'msg' && value.fields.length === 0 && !value.unknowns) continue;
      for (const path of nodePaths(value)) {
        for (let again = true; again;) {
          again = false;
          const node = at(best.messages[i].value, path);
          if (node === undefined) break;
          for (const simpler of simplify(node)) {
            const value = replace(best.messages[i].value, path, simpler);
            const messages = best.messages.map((m, k) => (k === i ? { ...m, value } : m));
            if (attempt({ ...best, messages })) {
              progress = again = true;
              break;
            }
          }
        }
      }
    }
    // schema: the fields no message sets (all at once, else one at a time), the types and enums
    // nothing refers to, then simpler options
    const all = prune(best, null);
    if (all !== null && attempt(all)) progress = true;
    else {
      const types = prune(best, new Set());
      if (types !== null && attempt(types)) progress = true;
      const u = used(best);
      for (const t of best.schema.types) {
        for (const f of t.fields) {
          if ((u.fields.get(t.name) || new Set()).has(f.id)) continue;
          const one = prune(best, new Set([`${t.name} ${f.id}`]));
          if (one !== null && attempt(one)) progress = true;
        }
      }
      for (const e of best.schema.extensions || []) {
        if ((u.fields.get(e.target) || new Set()).has(e.field.id)) continue;
        const one = prune(best, new Set([`${e.target} ${e.field.id}`]));
        if (one !== null && attempt(one)) progress = true;
      }
    }
    for (const candidate of schemaCandidates(best)) if (attempt(candidate)) progress = true;
  }
  return { failure: { ...bestFailure, desc: undefined }, desc: best, tries, original, size: size(best) };
}

/**
 * The case cut to the failing message, or to the failing `into` run and the messages it uses.
 * @param {object} failure Failure
 * @returns {object|null} Case, or null when there is nothing to cut
 */
function isolate(failure) {
  const desc = failure.desc;
  if (failure.at.message !== null && failure.at.message !== undefined) {
    return { ...desc, messages: [desc.messages[failure.at.message]], intos: [] };
  }
  if (failure.at.into !== null && failure.at.into !== undefined) {
    const { messagesOf } = require('./case');
    const into = desc.intos[failure.at.into];
    const used = messagesOf(into.ops).sort((a, b) => a - b);
    const index = new Map(used.map((k, n) => [k, n]));
    const ops = into.ops.map((op) => (['start', 'encode', 'delimited', 'field', 'group'].includes(op[0])
      ? [...op.slice(0, -1), index.get(op[op.length - 1])] : op));
    return { ...desc, messages: used.map((k) => desc.messages[k]), intos: [{ ops }] };
  }
  return null;
}

/**
 * The case without message `k`: `into` operations that encode it go, later ones are renumbered.
 * @param {object} desc Case
 * @param {number} k Message
 * @returns {object} Case
 */
function withoutMessage(desc, k) {
  const encodes = (op) => ['start', 'encode', 'delimited', 'field', 'group'].includes(op[0]);
  const intos = desc.intos.map((into) => ({
    ops: into.ops.filter((op) => !encodes(op) || op[op.length - 1] !== k)
      .map((op) => (encodes(op) && op[op.length - 1] > k ? [...op.slice(0, -1), op[op.length - 1] - 1] : op)),
  }));
  return { ...desc, messages: desc.messages.filter((_, q) => q !== k), intos };
}

/**
 * Simpler second passes: each change dropped, options as in the first pass, added values null.
 * @param {object} desc Case with `after`
 * @returns {object[]} Candidates
 */
function afterCandidates(desc) {
  const a = desc.after;
  const out = [];
  const withAfter = (change) => ({ ...desc, after: { ...a, ...change } });
  for (let k = 0; k < a.add.length; k++) out.push(withAfter({ add: a.add.filter((_, q) => q !== k) }));
  for (let k = 0; k < a.remove.length; k++) out.push(withAfter({ remove: a.remove.filter((_, q) => q !== k) }));
  const { recursionLimit } = desc.options;
  if (a.recursionLimit !== recursionLimit) out.push(withAfter({ recursionLimit }));
  if (a.customBuffer !== desc.options.customBuffer) out.push(withAfter({ customBuffer: desc.options.customBuffer }));
  for (let k = 0; k < a.add.length; k++) {
    for (const value of [{ k: 'lit', v: 'null' }, ...simplify(a.add[k].value)]) {
      if (JSON.stringify(value) === JSON.stringify(a.add[k].value)) continue;
      out.push(withAfter({ add: a.add.map((x, q) => (q === k ? { ...x, value } : x)) }));
    }
  }
  return out;
}

/**
 * Every node of a value description, as paths of keys, root first (breadth-first).
 * @param {object} value Description
 * @returns {Array<Array<string|number>>} Paths
 */
function nodePaths(value) {
  const out = [];
  const queue = [[value, []]];
  while (queue.length) {
    const [node, path] = queue.shift();
    if (node === null || typeof node !== 'object' || !node.k) continue;
    out.push(path);
    if (node.k === 'msg') node.fields.forEach((f, j) => queue.push([f[1], [...path, 'fields', j, 1]]));
    else if (node.k === 'arr') node.elems.forEach((e, j) => queue.push([e, [...path, 'elems', j]]));
    else if (node.k === 'map') node.entries.forEach((e, j) => queue.push([e[1], [...path, 'entries', j, 1]]));
    else if (node.k === 'vol') node.seq.forEach((e, j) => queue.push([e, [...path, 'seq', j]]));
    else if (node.k === 'conv') queue.push([node.ret, [...path, 'ret']]);
  }
  return out;
}

/**
 * @param {object} value Description
 * @param {Array<string|number>} path Path
 * @returns {*} The node there
 */
function at(value, path) {
  let node = value;
  for (const key of path) {
    if (node === undefined || node === null) return undefined;
    node = node[key];
  }
  return node;
}

/**
 * A copy of `value` with the node at `path` replaced (copying only along the path).
 * @param {*} value Description
 * @param {Array<string|number>} path Path
 * @param {*} node Replacement
 * @returns {*} Copy
 */
function replace(value, path, node) {
  if (path.length === 0) return node;
  const copy = Array.isArray(value) ? value.slice() : { ...value };
  copy[path[0]] = replace(value[path[0]], path.slice(1), node);
  return copy;
}

/**
 * Simpler variants of a node, simplest first.
 * @param {object} d Description
 * @returns {object[]} Candidates
 */
function simplify(d) {
  const out = [];
  const num = (v) => ({ k: 'num', v });
  switch (d.k) {
    case 'msg': {
      const n = d.fields.length;
      if (n > 1) {
        out.push({ ...d, fields: d.fields.slice(0, n >> 1) }, { ...d, fields: d.fields.slice(n >> 1) });
      }
      for (let j = 0; j < n; j++) out.push({ ...d, fields: d.fields.filter((_, k) => k !== j) });
      if (d.unknowns) {
        const { unknowns, unknownsHow, ...rest } = d;
        void unknowns;
        void unknownsHow;
        out.push(rest);
        if (d.unknowns.length > 1) out.push({ ...d, unknowns: d.unknowns.slice(0, 1) });
      }
      if (d.mode !== 'plain') out.push({ ...d, mode: 'plain' });
      for (let j = 0; j < n; j++) if (d.fields[j][2] !== 'own') out.push({ ...d, fields: d.fields.map((f, k) => (k === j ? [f[0], f[1], 'own'] : f)) });
      // shallower: a nested message of the same type in place of this one
      for (const [, v] of d.fields) {
        for (const inner of [v, ...(v.k === 'arr' ? v.elems : []), ...(v.k === 'map' ? v.entries.map((e) => e[1]) : [])]) {
          if (inner && inner.k === 'msg' && inner.type === d.type) out.push(inner);
        }
      }
      break;
    }
    case 'arr': {
      const n = d.elems.length;
      if (n > 1) out.push({ ...d, elems: d.elems.slice(0, n >> 1) }, { ...d, elems: d.elems.slice(n >> 1) });
      for (let j = 0; j < n; j++) out.push({ ...d, elems: d.elems.filter((_, k) => k !== j) });
      for (const flag of ['getters', 'proxy', 'like', 'holes']) {
        if (d[flag]) {
          const copy = { ...d };
          delete copy[flag];
          out.push(copy);
        }
      }
      break;
    }
    case 'seeded': case 'typed':
      for (const n of shorter(d.n)) out.push({ ...d, n });
      if (d.k === 'typed' && d.n < 64) out.push({ k: 'seeded', n: d.n, seed: d.seed, dist: d.dist });
      break;
    case 'map': {
      const n = d.entries.length;
      if (n > 1) out.push({ ...d, entries: d.entries.slice(0, n >> 1) }, { ...d, entries: d.entries.slice(n >> 1) });
      for (let j = 0; j < n; j++) out.push({ ...d, entries: d.entries.filter((_, k) => k !== j) });
      if (d.mode !== 'plain') out.push({ ...d, mode: 'plain' });
      break;
    }
    case 'vol': out.push(...d.seq); break;
    case 'conv': out.push(d.ret); break;
    case 'text':
      for (const n of shorter(d.n)) out.push({ ...d, n });
      if (d.mix !== 'ascii') out.push({ ...d, mix: 'ascii' });
      break;
    case 'bytes':
      if (d.hex !== undefined) {
        if (d.hex.length > 2) out.push({ ...d, hex: d.hex.slice(0, d.hex.length >> 1 & ~1) });
      } else {
        for (const n of shorter(d.n)) out.push({ ...d, n });
      }
      if (d.form !== 'buffer') out.push({ ...d, form: 'buffer' });
      break;
    case 'str':
      if (d.v.length > 0) out.push({ k: 'str', v: d.v.slice(0, d.v.length >> 1) }, { k: 'str', v: d.v.slice(1) }, { k: 'str', v: d.v.slice(0, -1) });
      break;
    case 'num':
      if (d.v !== 0) out.push(num(0));
      if (d.v !== 1 && d.v !== 0) out.push(num(1));
      break;
    case 'big':
      if (d.v !== '1' && d.v !== '0') out.push({ k: 'big', v: '1' });
      break;
    case 'long':
      if (d.high !== 0) out.push({ ...d, high: 0 });
      if (d.low !== 1) out.push({ ...d, low: 1 });
      break;
    case 'lh':
      if (d.log) out.push({ ...d, log: false });
      out.push({ k: 'long', low: 1, high: 0, unsigned: false });
      break;
    default:
  }
  return out;
}

/**
 * @param {number} n A length
 * @returns {number[]} Shorter lengths worth trying: 0, halves (and the thresholds 2048 and 128
 * just above and below), one less
 */
function shorter(n) {
  const out = new Set();
  if (n > 0) out.add(0);
  for (let m = n >> 1; m > 0; m >>= 1) out.add(m);
  for (const t of [2048, 2047, 128, 127]) if (t < n) out.add(t);
  if (n > 1) out.add(n - 1);
  return [...out].filter((m) => m < n).sort((a, b) => a - b);
}

/**
 * The fields, types and enums each message value refers to.
 * @param {object} desc Case
 * @returns {{fields: Map<string, Set<number>>, types: Set<string>, enums: Set<string>}} Used
 */
function used(desc) {
  const fields = new Map();
  const types = new Set(desc.messages.map((m) => m.type));
  const walk = (d) => {
    if (d === null || typeof d !== 'object') return;
    if (d.k === 'msg') {
      types.add(d.type);
      if (!fields.has(d.type)) fields.set(d.type, new Set());
      for (const [id, v] of d.fields) {
        fields.get(d.type).add(id);
        walk(v);
      }
    } else if (d.k === 'arr') d.elems.forEach(walk);
    else if (d.k === 'map') d.entries.forEach((e) => walk(e[1]));
    else if (d.k === 'vol') d.seq.forEach(walk);
  };
  for (const m of desc.messages) walk(m.value);
  if (desc.after) {
    // the second pass's changes name their types and fields, and added fields their value types
    for (const a of desc.after.add) {
      types.add(a.type);
      if (a.field.kind === 'message') types.add(a.field.type);
      walk(a.value);
    }
    for (const r of desc.after.remove) {
      types.add(r.type);
      if (!fields.has(r.type)) fields.set(r.type, new Set());
      fields.get(r.type).add(r.id);
    }
  }
  return { fields, types };
}

/**
 * The case with schema fields no message sets removed (all, or those listed), then the types and
 * enums nothing refers to (a group's body goes with its field).
 * @param {object} desc Case
 * @param {Set<string>|null} drop `type id` of the fields to remove (each unset), or null for all unset
 * @returns {object|null} Case, or null when nothing is left to remove
 */
function prune(desc, drop) {
  const u = used(desc);
  let changed = false;
  let types = desc.schema.types.map((t) => {
    const keep = u.fields.get(t.name) || new Set();
    const kept = (f) => keep.has(f.id) || (drop !== null && !drop.has(`${t.name} ${f.id}`));
    const fields = t.fields.filter(kept);
    if (fields.length === t.fields.length) return t;
    changed = true;
    const ids = new Set(fields.map((f) => f.id));
    const oneofs = t.oneofs.map((o) => ({ ...o, ids: o.ids.filter((id) => ids.has(id)) }))
      .filter((o) => o.ids.length > 0);
    return { ...t, fields, oneofs };
  });
  // Extensions a message sets; they need their target, their scope and their type.
  const keepExtension = (e) => (u.fields.get(e.target) || new Set()).has(e.field.id) ||
    (drop !== null && !drop.has(`${e.target} ${e.field.id}`));
  const extensions = (desc.schema.extensions || []).filter(keepExtension);
  if (extensions.length !== (desc.schema.extensions || []).length) changed = true;
  // Types referred to: from the messages, by the remaining fields and extensions, as parents of those.
  const needed = new Set(u.types);
  const enums = new Set();
  for (const e of extensions) {
    for (const name of [e.target, e.scope, e.field.type]) {
      if (types.some((x) => x.name === name)) needed.add(name);
      if (desc.schema.enums.some((x) => x.name === name)) enums.add(name);
    }
  }
  for (let grew = true; grew;) {
    grew = false;
    for (const t of types) {
      if (!needed.has(t.name)) continue;
      for (const f of t.fields) {
        for (const name of [f.type]) {
          if (types.some((x) => x.name === name) && !needed.has(name)) {
            needed.add(name);
            grew = true;
          }
          if (desc.schema.enums.some((e) => e.name === name)) enums.add(name);
        }
      }
      if (t.parent !== null && !needed.has(t.parent)) {
        needed.add(t.parent);
        grew = true;
      }
    }
  }
  const before = types.length;
  types = types.filter((t) => needed.has(t.name));
  const enumList = desc.schema.enums.filter((e) => enums.has(e.name));
  if (types.length !== before || enumList.length !== desc.schema.enums.length) changed = true;
  if (!changed) return null;
  return { ...desc, schema: { ...desc.schema, types, enums: enumList, extensions } };
}

/**
 * Simpler schemas: each remaining field's explicit options dropped, `resolveAll`, `keepCase` and
 * the file-wide features off, a reflection build as `.proto` when its names allow.
 * @param {object} desc Case
 * @returns {object[]} Candidates
 */
function schemaCandidates(desc) {
  const s = desc.schema;
  const out = [];
  const withSchema = (schema) => ({ ...desc, schema: { ...s, ...schema } });
  if (s.resolveAll) out.push(withSchema({ resolveAll: false }));
  if (s.keepCase) out.push(withSchema({ keepCase: false }));
  if (s.build === 'reflect' && s.types.every((t) => t.fields.every((f) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(f.name)))) {
    out.push(withSchema({ build: 'parse' }));
  }
  for (const key of ['packed', 'dflt', 'expanded', 'delimited', 'presence']) {
    s.types.forEach((t, ti) => t.fields.forEach((f, fi) => {
      if (f[key] === undefined) return;
      const field = { ...f };
      delete field[key];
      const fields = (x) => x.fields.map((y, q) => (q === fi ? field : y));
      const types = s.types.map((x, k) => (k === ti ? { ...x, fields: fields(x) } : x));
      out.push(withSchema({ types }));
    }));
  }
  return out;
}

/**
 * @param {object} desc Case
 * @returns {{messages: number, nodes: number, fields: number, types: number}} How large a case is
 */
function size(desc) {
  let nodes = 0;
  for (const m of desc.messages) nodes += nodePaths(m.value).length;
  return {
    messages: desc.messages.length, nodes, types: desc.schema.types.length,
    fields: desc.schema.types.reduce((sum, t) => sum + t.fields.length, 0) +
      (desc.schema.extensions || []).length,
  };
}

module.exports = { shrink, isolate, simplify, size };
