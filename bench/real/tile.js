'use strict';

/**
 * The real vector tile: one Mapbox Vector Tile from `@mapbox/mvt-fixtures` (its real-world/ folder:
 * tiles of Mapbox's own tilesets and of OpenStreetMap QA tiles; data © OpenStreetMap contributors,
 * ODbL 1.0, as the package says), which each contender decodes with its own `Type.decode` of
 * bench/fixtures/vector_tile.proto, as a tile server that re-encodes tiles holds them: plain arrays
 * for the packed geometry and tags, `Long`s for the uint64 feature ids and int64 values, defaults on
 * the prototype.
 *
 * Which tile: sanfrancisco/15-5239-12667.mvt, 108,260 bytes (the modelled `tile` case is ~125 KB;
 * the fixtures between 95 and 140 KB are this one, a second San Francisco tile of 101 KB, a Bangkok
 * tile of 104 KB and three single-layer OSM QA tiles of Astana). It is a Mapbox Streets v7 +
 * Terrain v2 tile of a city at zoom 15, the tileset and shape most vector tiles served are: 10
 * layers, 2,541 features (each with a uint64 id), 204 values (93 of them int64), 25,676 tag indices,
 * geometry runs of median 17 and at most 388 elements. protobufjs re-encodes it to as many bytes,
 * in its own field order (the bytes every contender must produce are protobufjs 8.8.1's).
 */

const fs = require('fs');
const path = require('path');

/** The tile, relative to the package's real-world/ folder. */
const TILE = path.join('sanfrancisco', '15-5239-12667.mvt');
/** Its path. */
const FILE = path.join(path.dirname(require.resolve('@mapbox/mvt-fixtures/package.json')), 'real-world', TILE);

/**
 * The tile's bytes.
 * @returns {Buffer} Bytes
 */
function bytes() {
  return fs.readFileSync(FILE);
}

module.exports = { TILE, FILE, bytes };
