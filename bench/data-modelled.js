'use strict';

/**
 * Seeded sample messages of the cases modelled on the messages protobuf.js users encode (the three
 * of ../shared/reference/performance-facts.md): `common` (bench/fixtures/common.proto), `catalog`
 * (catalog.proto) and `tile` (vector_tile.proto, the Mapbox Vector Tile schema). Builders take a
 * `prng` (tools/seeded.js) and return plain objects; bench/cases.js turns the tile into what
 * `Type.decode` leaves (see its `decoded` flag). Like bench/data.js, no singular proto3 field is
 * ever at its default value.
 */

const Long = require('long');
const { nonZero, words, text } = require('./data');

const TWO_32 = 2 ** 32;

/**
 * common.Common: ~80 bytes, like protobuf.js's bench.json (a 27-character string, a uint32 of two
 * bytes, an int32 of four, an int64 of eight given as a `Long`, seven packed bools).
 * @param {Function} r prng
 * @returns {object} Message
 */
function common(r) {
  return {
    text: text(r, 27),
    count: 1000 + r.int(15000),
    inner: {
      number: 1e7 + r.int(1e8),
      detail: {
        stamp: Long.fromBits(r.int(TWO_32) | 0, 100000 + r.int(100000), false),
        level: 1 + r.int(4),
        delta: -nonZero(r, 60),
      },
      outer: { flags: Array.from({ length: 7 }, () => r() < 0.5), value: nonZero(r, 4096) / 20 },
    },
    ratio: Math.fround(nonZero(r, 1000) / 1024),
  };
}

/** Products of catalog.Catalog: ~16 KB in all. */
const PRODUCTS = 100;
/** Entries of the catalog-wide maps. */
const CATEGORIES = 24;
const LABELS = 12;

/**
 * A map<int32, …> object of `count` entries with distinct keys up to `maxKey`, a few negative
 * (generated code gets every key back from `Object.keys` as a string, "-17" included). Keys are
 * small, like ids of a short list: V8 keeps integer keys as elements, and sparse large ones (a
 * key of 784 in an object of three) make a holey or dictionary backing store whose `Object.keys`
 * costs ~400 ns, which would swamp everything this case measures.
 * @param {Function} r prng
 * @param {number} count Entries
 * @param {number} maxKey Largest key, in absolute value
 * @param {() => *} value Makes one value
 * @returns {Object<string, *>} Map object
 */
function int32Map(r, count, maxKey, value) {
  const map = {};
  while (Object.keys(map).length < count) {
    const key = nonZero(r, maxKey) * (r() < 0.1 ? -1 : 1);
    if (!(key in map)) map[key] = value();
  }
  return map;
}

/**
 * catalog.Product: ~160 bytes, 20-odd fields across four submessage kinds. One in five is not
 * `active`: the field is left out (`false` is bool's proto3 default, which an encoder skips),
 * never deleted, which would turn the object into a slow dictionary-mode one.
 * @param {Function} r prng
 * @param {number} id Id
 * @returns {object} Message
 */
function product(r, id) {
  const p = { id, sku: `SKU-${String(nonZero(r, 99999)).padStart(5, '0')}`, title: words(r, 2 + r.int(4)) };
  p.price = nonZero(r, 100000) / 100;
  p.stock = nonZero(r, 5000);
  if (r() < 0.8) p.active = true;
  p.status = 1 + r.int(3);
  p.categoryIds = Array.from({ length: 1 + r.int(3) }, () => nonZero(r, 500));
  p.attributes = int32Map(r, r.int(4), 16,
    () => ({ name: words(r, 1), value: words(r, 1 + r.int(2)), weight: nonZero(r, 100) }));
  p.counters = int32Map(r, 1 + r.int(4), 32, () => nonZero(r, 20000) * (r() < 0.5 ? -1 : 1));
  p.flags = r.int(TWO_32) || 1;
  p.size = {
    width: Math.fround(nonZero(r, 2000) / 10),
    height: Math.fround(nonZero(r, 2000) / 10),
    depth: Math.fround(nonZero(r, 2000) / 10),
    grams: nonZero(r, 50000),
  };
  return p;
}

/**
 * catalog.Catalog: ~16 KB.
 * @param {Function} r prng
 * @returns {object} Message
 */
function catalog(r) {
  return {
    name: words(r, 3),
    revision: 1.7e12 + r.int(1e10), // an int64 given as a number
    products: Array.from({ length: PRODUCTS }, (_, i) => product(r, 10000 + i * 7)),
    categories: int32Map(r, CATEGORIES, 64,
      () => ({ name: words(r, 2), parent: nonZero(r, 500), rank: nonZero(r, 100) })),
    labels: int32Map(r, LABELS, 32, () => words(r, 2)),
  };
}

/** Vector tile extent (the proto2 default, written explicitly as tile encoders do). */
const EXTENT = 4096;
/** Geometry commands (Mapbox Vector Tile spec 4.3). */
const MOVE_TO = 1;
const LINE_TO = 2;
const CLOSE_PATH = 7;
/** Feature geometry types (vector_tile.Tile.GeomType). */
const POINT = 1;
const LINESTRING = 2;
const POLYGON = 3;

/**
 * The layers of the tile: features, geometry type, vertices per line or ring (LineTo count is
 * vertices − 1), largest coordinate step, keys, values, and whether features carry an id. Counts
 * chosen for ~125 KB in all, ~3,400 features, geometry runs of ~12 elements on average.
 */
const LAYERS = [
  { name: 'water', features: 150, type: POLYGON, vertices: [7, 21], step: 120, keys: 4, values: 12, ids: false },
  { name: 'landuse', features: 300, type: POLYGON, vertices: [5, 13], step: 90, keys: 6, values: 40, ids: true },
  { name: 'road', features: 1120, type: LINESTRING, vertices: [3, 7], step: 100, keys: 10, values: 90, ids: true },
  { name: 'building', features: 1400, type: POLYGON, vertices: [4, 6], step: 30, keys: 4, values: 60, ids: true },
  { name: 'poi_label', features: 400, type: POINT, vertices: [1, 1], step: 0, keys: 14, values: 120, ids: true },
  { name: 'place_label', features: 60, type: POINT, vertices: [1, 1], step: 0, keys: 8, values: 50, ids: true },
];

/**
 * A command integer.
 * @param {number} id Command id
 * @param {number} count Repetitions
 * @returns {number} Command integer
 */
function command(id, count) {
  return (id & 0x7) | (count << 3);
}

/**
 * A parameter integer (zigzag-encoded delta).
 * @param {number} n Delta
 * @returns {number} Parameter integer
 */
function zigzag(n) {
  return ((n << 1) ^ (n >> 31)) >>> 0;
}

/**
 * One feature's geometry: MoveTo from the tile origin (deltas of up to 4096: two-byte varints),
 * then LineTo steps (mostly one-byte varints), then ClosePath for a polygon.
 * @param {Function} r prng
 * @param {object} layer Entry of LAYERS
 * @returns {number[]} Geometry integers
 */
function geometry(r, layer) {
  const out = [command(MOVE_TO, 1), zigzag(r.int(EXTENT)), zigzag(r.int(EXTENT))];
  if (layer.type === POINT) return out;
  const [lo, hi] = layer.vertices;
  const vertices = lo + r.int(hi - lo + 1);
  out.push(command(LINE_TO, vertices - 1));
  for (let i = 1; i < vertices; ++i) {
    out.push(zigzag(r.int(2 * layer.step + 1) - layer.step), zigzag(r.int(2 * layer.step + 1) - layer.step));
  }
  if (layer.type === POLYGON) out.push(command(CLOSE_PATH, 1));
  return out;
}

/**
 * One vector_tile.Tile.Value: exactly one field set, of the kind index `i` picks.
 * @param {Function} r prng
 * @param {number} i Value index
 * @returns {object} Message
 */
function value(r, i) {
  switch (i % 7) {
    case 0:
    case 1:
      return { stringValue: words(r, 1 + r.int(3)) };
    case 2:
      return { floatValue: Math.fround(nonZero(r, 1e5) / 7) };
    case 3:
      return { doubleValue: nonZero(r, 1e9) / 1e4 };
    case 4:
      return { intValue: Long.fromNumber(nonZero(r, 1e7)) };
    case 5:
      return { uintValue: Long.fromNumber(nonZero(r, 1e4), true) };
    default:
      return i % 2 ? { sintValue: Long.fromNumber(-nonZero(r, 1e4)) } : { boolValue: true };
  }
}

/**
 * One vector_tile.Tile.Layer.
 * @param {Function} r prng
 * @param {object} layer Entry of LAYERS
 * @returns {object} Message
 */
function tileLayer(r, layer) {
  const features = Array.from({ length: layer.features }, () => {
    const tags = [];
    const pairs = 1 + r.int(Math.min(4, layer.keys));
    for (let k = 0; k < pairs; ++k) tags.push(r.int(layer.keys), r.int(layer.values));
    const feature = { tags, type: layer.type, geometry: geometry(r, layer) };
    // OpenStreetMap-style ids, some beyond 2^32 (a Long with a high word once decoded).
    if (layer.ids) feature.id = Long.fromNumber(1 + r.int(12e9), true);
    return feature;
  });
  return {
    version: 2,
    name: layer.name,
    features,
    keys: Array.from({ length: layer.keys }, (_, i) => `${words(r, 1)}_${i}`),
    values: Array.from({ length: layer.values }, (_, i) => value(r, i)),
    extent: EXTENT,
  };
}

/**
 * vector_tile.Tile: ~125 KB, ~3,400 features in six layers.
 *
 * proto2 defaults: protobufjs 8.8.1's and 7.6.6's generated code both write an optional proto2
 * field whenever it is an own property, whatever its value (`Feature.type = UNKNOWN` included), and
 * never one only on the prototype, where `decode` leaves the defaults of fields absent from the
 * wire; `required` fields always. So the decoded tile gives the same bytes through every contender
 * (the byte check proves it), with nothing to work around, unlike proto3, where 7.6.6 writes a
 * default that 8.8.1 skips. `extent` is set to its default explicitly, as tile encoders do, so it
 * is on the wire and an own property after decoding.
 * @param {Function} r prng
 * @returns {object} Message (plain objects; bench/cases.js decodes it per contender)
 */
function tile(r) {
  return { layers: LAYERS.map((layer) => tileLayer(r, layer)) };
}

module.exports = { common, catalog, tile };
