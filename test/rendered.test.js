'use strict';

/**
 * The benchmark's generated parts (the README's tables, docs/benchmark.md's, the SVG chart) are what
 * bench/render.js renders from the committed bench/results/*.json: every part its `PARTS` lists, in
 * whatever file it names (so the check follows the tables wherever render.js writes them), and the
 * chart. A part
 * edited by hand, or JSON committed without rendering, fails here; `node -e "require('./bench/render').main()"`
 * renders them again.
 */

const assert = require('assert');
const fs = require('fs');
const path = require('path');
const { PARTS, RESULTS, SVG, renderSvg } = require('../bench/render');

const ROOT = path.join(__dirname, '..');

/**
 * The part of `text` a rendered part replaces: between its markers, the markers included (the whole
 * text without markers).
 * @param {string} text File text
 * @param {string[]|null} markers Start and end markers
 * @returns {string|null} The part, or null without the markers
 */
function partOf(text, markers) {
  if (markers === null) return text;
  const [start, end] = markers;
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from < 0 || to < from) return null;
  return text.slice(from, to + end.length);
}

/**
 * What differs between a file's part and what render.js makes of the JSON, or null.
 * @param {{file: string, markers: string[]|null, source: string, render: Function}} part A part of `PARTS`
 * @param {string} text The file's text
 * @returns {string|null} The first line that differs, or null
 */
function difference(part, text) {
  const held = partOf(text, part.markers);
  const name = `${path.relative(ROOT, part.file)}${part.markers ? ` ${part.markers[0]}` : ''}`;
  if (held === null) return `${name}: the markers are missing`;
  const rendered = part.render(JSON.parse(fs.readFileSync(part.source, 'utf8')));
  if (held === rendered) return null;
  const [a, b] = [held.split('\n'), rendered.split('\n')];
  let k = 0;
  while (k < a.length && a[k] === b[k]) k++;
  return `${name}, line ${k + 1} of the part: the file has ${JSON.stringify((a[k] || '').slice(0, 160))}, ` +
    `${path.relative(ROOT, part.source)} renders ${JSON.stringify((b[k] || '').slice(0, 160))}`;
}

/** Every part render.js writes: its marked parts, and the SVG chart, a whole file. */
const ALL_PARTS = [...PARTS, { file: SVG, markers: null, source: RESULTS, render: renderSvg }];

describe('the benchmark\'s generated tables (bench/render.js PARTS)', () => {
  const parts = ALL_PARTS.filter((part) => fs.existsSync(part.source));

  it('are each what bench/render.js renders from the committed JSON', () => {
    assert.ok(parts.length >= 6, `${parts.length} parts`);
    const differences = parts.map((part) => difference(part, fs.readFileSync(part.file, 'utf8'))).filter((d) => d !== null);
    assert.deepStrictEqual(differences, [], 'rerun `node -e "require(\'./bench/render\').main()"` (or the bench\'s --update)');
    const files = [...new Set(parts.map((part) => path.relative(ROOT, part.file)))];
    console.log(`      ${parts.length} parts in ${files.join(', ')}`);
  });

  it('catch a planted fault: one figure of a generated table edited by hand', () => {
    const part = parts.find((p) => p.markers !== null && p.file.endsWith('README.md'));
    const text = fs.readFileSync(part.file, 'utf8');
    const held = partOf(text, part.markers);
    const at = held.search(/\d\.\d\dx/);
    assert.ok(at > 0, 'a ratio in the part');
    const edited = text.replace(held, held.slice(0, at) + (held[at] === '9' ? '1' : '9') + held.slice(at + 1));
    assert.match(String(difference(part, edited)), /line \d+ of the part: the file has/);
  });
});
