'use strict';

/**
 * Renders the committed bench results into the tracked files that show them, each part between its
 * markers (`<!-- name:start -->` … `<!-- name:end -->`); `PARTS` lists them all:
 * - bench/results/latest.json (a full run of `npm run bench:update`) into bench/results/latest.svg,
 *   a bar chart of RustWriter's ratios; into the README's summary by kind of app and its line on
 *   how long the run took; into docs/benchmark.md's table of gains by message shape, its table of
 *   real workloads and its tables of the last full run (speed, where the time goes, first encode
 *   and memory, allocation, targets);
 * - bench/results/lines.json (bench/lines.js, one short run per Node line) into docs/benchmark.md's
 *   per-line section (figures with their ranges, and their verdicts against the targets).
 * The README tells users what to expect and where the figures are; the project's targets and
 * verdicts are docs/benchmark.md's (and the console's).
 *
 * Only `npm run bench:update` (bench/index.js `--update`, after a full run) and `npm run
 * bench:lines -- --update` call it, right after writing their JSON: every number in them comes from
 * a JSON file, so none ever shows a number no run produced, and nothing else rewrites these tracked
 * files. To render the committed JSON again after changing this file, without a run:
 * `node -e "require('./bench/render').main()"`.
 */

const fs = require('fs');
const path = require('path');
const format = require('./format');

const RESULTS = path.join(__dirname, 'results', 'latest.json');
const SVG = path.join(__dirname, 'results', 'latest.svg');
const README = path.join(__dirname, '..', 'README.md');
const DOC = path.join(__dirname, '..', 'docs', 'benchmark.md');
const LINES = path.join(__dirname, 'results', 'lines.json');

/**
 * The start and end markers of a generated part.
 * @param {string} name The part's name
 * @returns {string[]} Its two markers
 */
function markers(name) {
  return [`<!-- ${name}:start -->`, `<!-- ${name}:end -->`];
}

const SECTION_MARKERS = markers('bench');
const GAINS_MARKERS = markers('gains');
const REAL_MARKERS = markers('real');
const LINES_MARKERS = markers('lines');
const EXPECT_MARKERS = markers('expect');
const BENCH_TIME_MARKERS = markers('bench-time');
/** The Active LTS line, which the README's table must come from (its run line says so when it does not). */
const ACTIVE_LTS = '26';

/** Chart geometry (px). */
const CHART = {
  width: 860,
  labelX: 12, // case titles start here
  plotLeft: 300, // the plot starts right of the titles, with room for a value label left of a bar
  plotRight: 800, // and ends with room for a value label right of a bar
  top: 72, // first row
  rowHeight: 36,
  barHeight: 12,
  footer: 56, // axis labels and the run line
  legendWidth: 330, // per legend entry
};
/** The log axis spans at least 0.1x to 10x, so charts of different runs compare at a glance. */
const MIN_DOMAIN = [0.1, 10];
/** Room around the extreme ratios when they leave MIN_DOMAIN. */
const DOMAIN_PADDING = 1.25;
/** Bar colour per comparison. */
const COLORS = { pbjs8: '#2f6fb0', pbjs7: '#e08a1e' };
/** Tick mantissas of the log axis. */
const TICK_MANTISSAS = [1, 2, 5];

/**
 * Escapes text for SVG/XML.
 * @param {string} text Text
 * @returns {string} Escaped text
 */
function xml(text) {
  return String(text).replace(/[&<>"]/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[ch]);
}

/**
 * The 1-2-5 tick values from the largest one ≤ lo to the smallest one ≥ hi.
 * @param {number} lo Smallest value to cover
 * @param {number} hi Largest value to cover
 * @returns {number[]} Ticks, ascending
 */
function logTicks(lo, hi) {
  const ticks = [];
  for (let exp = Math.floor(Math.log10(lo)) - 1; exp <= Math.ceil(Math.log10(hi)); ++exp) {
    for (const m of TICK_MANTISSAS) ticks.push(Number((m * 10 ** exp).toPrecision(1)));
  }
  const first = ticks.filter((t) => t <= lo).pop();
  const last = ticks.find((t) => t >= hi);
  return ticks.filter((t) => t >= first && t <= last);
}

/**
 * The SVG bar chart: per case, RustWriter's ops/s over protobufjs's, in protobufjs 8.8.1 and in
 * 7.6.6 (each under its own reflection code), on a log axis with a line at 1.0.
 * @param {object} run Parsed latest.json
 * @returns {string} SVG document
 */
function renderSvg(run) {
  const legend = { pbjs8: `${contender(run, 'rust').name} vs ${contender(run, 'pbjs8').name}`,
    pbjs7: `${contender(run, 'rust7').name} vs ${contender(run, 'pbjs7').name}` };
  const ratios = run.cases.filter((c) => !c.error).flatMap((c) => [c.ratios.pbjs8, c.ratios.pbjs7]);
  const ticks = logTicks(Math.min(MIN_DOMAIN[0], ...ratios.map((r) => r / DOMAIN_PADDING)),
    Math.max(MIN_DOMAIN[1], ...ratios.map((r) => r * DOMAIN_PADDING)));
  const [lo, hi] = [Math.log10(ticks[0]), Math.log10(ticks[ticks.length - 1])];
  const x = (r) => CHART.plotLeft + ((Math.log10(r) - lo) / (hi - lo)) * (CHART.plotRight - CHART.plotLeft);
  const plotBottom = CHART.top + run.cases.length * CHART.rowHeight;
  const height = plotBottom + CHART.footer;
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${CHART.width}" height="${height}" ` +
      `viewBox="0 0 ${CHART.width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${CHART.width}" height="${height}" fill="#fff"/>`,
    `<text x="${CHART.labelX}" y="22" font-size="15" font-weight="bold">RustWriter ops/s ÷ protobufjs ops/s, per case ` +
      '(log scale; right of 1.0: RustWriter faster)</text>',
  ];
  for (const [i, key] of ['pbjs8', 'pbjs7'].entries()) {
    const lx = CHART.labelX + i * CHART.legendWidth;
    out.push(`<rect x="${lx}" y="36" width="14" height="12" fill="${COLORS[key]}"/>`,
      `<text x="${lx + 20}" y="46">${xml(legend[key])}</text>`);
  }
  for (const t of ticks) {
    const tx = x(t).toFixed(1);
    out.push(`<line x1="${tx}" y1="${CHART.top - 6}" x2="${tx}" y2="${plotBottom}" stroke="${t === 1 ? '#222' : '#ddd'}" ` +
      `stroke-width="${t === 1 ? 1.5 : 1}"/>`,
    `<text x="${tx}" y="${plotBottom + 16}" text-anchor="middle" fill="#555">${t}x</text>`);
  }
  run.cases.forEach((c, row) => {
    const y = CHART.top + row * CHART.rowHeight;
    out.push(`<text x="${CHART.labelX}" y="${y + CHART.rowHeight / 2 + 1}">${xml(c.title)}</text>`);
    if (c.error) {
      out.push(`<text x="${x(1) + 6}" y="${y + CHART.rowHeight / 2 + 1}" fill="#c00">bytes differ: not timed</text>`);
      return;
    }
    ['pbjs8', 'pbjs7'].forEach((key, k) => {
      const r = c.ratios[key];
      const [x1, x2] = [x(1), x(r)];
      const by = y + 4 + k * (CHART.barHeight + 2);
      out.push(`<rect x="${Math.min(x1, x2).toFixed(1)}" y="${by}" width="${Math.abs(x2 - x1).toFixed(1)}" ` +
        `height="${CHART.barHeight}" fill="${COLORS[key]}"/>`,
      `<text x="${(r >= 1 ? x2 + 4 : x2 - 4).toFixed(1)}" y="${by + CHART.barHeight - 2}" font-size="11" ` +
        `text-anchor="${r >= 1 ? 'start' : 'end'}">${format.ratio(r)}</text>`);
    });
  });
  out.push(`<text x="${CHART.labelX}" y="${height - 12}" fill="#555">${xml(runLine(run))}</text>`, '</svg>');
  return `${out.join('\n')}\n`;
}

/**
 * The date, machine and commit line of a run.
 * @param {object} run Parsed latest.json
 * @returns {string} Text
 */
function runLine(run) {
  const line = run.node.replace(/^v/, '').split('.')[0];
  const lts = line === ACTIVE_LTS ? ' (the Active LTS)' : ` (not the Active LTS, Node ${ACTIVE_LTS})`;
  return `Run of ${run.date.slice(0, 10)} on ${format.machineLine(run)}${lts}; ${format.commitLine(run)}`;
}

/**
 * A contender of a run, by key.
 * @param {object} run Parsed latest.json
 * @param {string} key Contender key
 * @returns {{key: string, name: string}} Contender
 */
function contender(run, key) {
  return run.contenders.find((c) => c.key === key);
}

/**
 * A case's title with its messages per op.
 * @param {object} c Case record
 * @returns {string} Title
 */
function caseTitle(c) {
  return c.messagesPerOp > 1 ? `${c.title} (${c.messagesPerOp} messages/op)` : c.title;
}

/**
 * A markdown table row.
 * @param {Array<string|number>} cells Cells
 * @returns {string} Row
 */
function tableRow(cells) {
  return `| ${cells.map((cell) => String(cell).replace(/\|/g, '\\|')).join(' | ')} |`;
}

/**
 * One allocation cell: total per op, and beyond the result in parentheses; "~" if noisy.
 * @param {object} alloc Allocation record
 * @returns {string} Cell
 */
function allocCell(alloc) {
  if (!alloc || alloc.error) return 'n/a';
  return `${alloc.noisy ? '~' : ''}${format.byteSize(alloc.total)} (${format.byteSize(alloc.beyondResult)})`;
}

/**
 * The breakdown table: per case, time per op of protobufjs 8.8.1, the null writer, RustWriter
 * without `finish()` and in full, and RustWriter through the Writer API (each with its share of
 * protobufjs 8.8.1's time), and native calls per op. Empty for a run without breakdowns.
 * @param {object} run Parsed latest.json
 * @returns {string[]} Markdown lines
 */
function breakdownTable(run) {
  const cases = run.cases.filter((c) => !c.error && c.breakdown);
  if (!cases.length) return [];
  const keys = Object.keys(cases[0].breakdown.nsPerOp);
  const lines = [
    tableRow(['case', ...keys.map((key) => contender(run, key).name), 'native calls per op']),
    tableRow(['---', ...Array(keys.length + 1).fill('--:')]),
  ];
  for (const c of cases) {
    const ns = c.breakdown.nsPerOp;
    const cell = (key) => (ns[key] === undefined ? 'n/a'
      : `${format.timePerOp(1e9 / ns[key])}${key === 'pbjs8' ? '' : ` (${Math.round((100 * ns[key]) / ns.pbjs8)}%)`}`);
    const calls = c.breakdown.nativeCallsPerOp;
    lines.push(tableRow([caseTitle(c), ...keys.map(cell), calls === null ? 'n/a' : calls.toFixed(2)]));
  }
  return [
    'Where the time goes: time per op, and in parentheses its share of protobufjs 8.8.1\'s time, from the ' +
      'medians above. The null writer (protobufjs\'s generated code calling a writer that does nothing) is the floor ' +
      'of the Writer API path; native calls are counted outside the timing:',
    '',
    ...lines,
    '',
  ];
}

/**
 * The contenders of the speed and allocation tables: all but the breakdown's.
 * @param {object} run Parsed latest.json
 * @returns {object[]} Contenders, in run order
 */
function tableContenders(run) {
  return run.contenders.filter((c) => !c.breakdown);
}

/**
 * The speed table: per case, bytes, ops/s of every table contender, RustWriter's ratios over
 * each protobufjs and over the faster, and the run's comparisons.
 * @param {object} run Parsed latest.json
 * @returns {string[]} Markdown lines
 */
function speedTable(run) {
  const shown = tableContenders(run);
  const name = (key) => contender(run, key).name;
  const ratios = [['pbjs8', `${name('rust')} vs ${name('pbjs8')}`], ['pbjs7', `${name('rust7')} vs ${name('pbjs7')}`],
    ['faster', `${name('rust')} vs the faster`], ...run.comparisons.map(({ key, label }) => [key, label])];
  const lines = [
    tableRow(['case', 'bytes/op', ...shown.map((c) => `${c.name} ops/s`), ...ratios.map(([, label]) => label)]),
    tableRow(['---', ...Array(1 + shown.length + ratios.length).fill('--:')]),
  ];
  for (const c of run.cases) {
    if (c.error) {
      lines.push(tableRow([caseTitle(c), c.bytes.toLocaleString('en-US'), 'bytes differ, not timed', ...Array(shown.length + ratios.length - 1).fill('')]));
      continue;
    }
    // A case times the contenders it has (the grpc group's own, bench/cases.js `contendersOf`): n/a for the others.
    const hz = shown.map(({ key }) => (c.contenders[key] === undefined ? 'n/a'
      : `${format.opsPerSecond(c.contenders[key].hz)} ±${c.contenders[key].rme.toFixed(1)}%`));
    const r = ratios.map(([key]) => (c.ratios[key] === undefined ? 'n/a' : format.ratio(c.ratios[key])));
    lines.push(tableRow([caseTitle(c), c.bytes.toLocaleString('en-US'), ...hz, ...r]));
  }
  return lines;
}

/**
 * The allocation table: per case, bytes per op of every table contender.
 * @param {object} run Parsed latest.json
 * @returns {string[]} Markdown lines
 */
function allocationTable(run) {
  const shown = tableContenders(run);
  const lines = [tableRow(['case', ...shown.map((c) => c.name)]), tableRow(['---', ...Array(shown.length).fill('--:')])];
  for (const c of run.cases.filter((x) => !x.error)) {
    const cells = shown.map(({ key }) => allocCell(c.contenders[key] && c.contenders[key].alloc));
    lines.push(tableRow([caseTitle(c), ...cells]));
  }
  return lines;
}

/**
 * The targets table, in the words of the console report.
 * @param {object} run Parsed latest.json
 * @returns {string[]} Markdown lines
 */
function targetsTable(run) {
  return [
    tableRow(['target', 'needed', 'measured (range within the margins)', 'verdict']),
    tableRow(['---', '--:', '--:', '---']),
    ...run.targets.map((t) => tableRow([t.what, format.needed(t), format.measured(t), t.verdict])),
  ];
}

/**
 * docs/benchmark.md's last full run: run line, chart, speed, breakdown, protobufjs 7.6.6 code,
 * allocation and target tables.
 * @param {object} run Parsed latest.json
 * @returns {string} Markdown, markers included
 */
function renderSection(run) {
  const [ref8, ref7, rust, rust7] = ['pbjs8', 'pbjs7', 'rust', 'rust7'].map((key) => contender(run, key));
  const others = tableContenders(run).filter((c) => !['pbjs8', 'pbjs7', 'rust', 'rust7'].includes(c.key)).map((c) => c.name);
  const allocFlags = run.options.allocationNodeFlags;
  const met = run.targets.filter((t) => t.status === 'met').length;
  const [noise, missed] = ['noise', 'missed'].map((status) => run.targets.filter((t) => t.status === status).map((t) => t.short));
  return [
    SECTION_MARKERS[0],
    GENERATED,
    `${runLine(run)}; ${rust.name} vs ${ref8.name}, ${rust7.name} vs ${ref7.name}` +
      `${others.length ? `, beside ${others.join(', ')}` : ''}; ` +
      `timed under Node flags \`${run.options.nodeFlags.join(' ') || '(none)'}\`; the run took ${format.duration(run.runtimeSeconds)}.`,
    '',
    '![RustWriter ops/s over protobufjs ops/s per case](../bench/results/latest.svg)',
    '',
    ...speedTable(run),
    '',
    ...run.notes.map((note) => `Noise: ${note}\n`),
    ...breakdownTable(run),
    ...coldTable(run),
    'Allocated per op, JS heap + external memory, median of the measurement windows (in parentheses: beyond ' +
      'the bytes of the result itself; ~: the windows spread more than 10%)' +
      `${allocFlags ? `, measured in a separate process run with \`node ${allocFlags.join(' ')}\`` : ''}:`,
    '',
    ...allocationTable(run),
    '',
    `Targets: ${met} of ${run.targets.length} met${noise.length ? `; missed within noise: ${noise.join('; ')}` : ''}` +
      `${missed.length ? `; missed: ${missed.join('; ')}` : ''}. ` +
      'Ratios are ops/s over ops/s, both from this run; the range is what the two timings\' ' +
      'margins allow, and a miss whose range reaches the target is noise rather than a real miss:',
    '',
    ...targetsTable(run),
    SECTION_MARKERS[1],
  ].join('\n');
}

/**
 * docs/benchmark.md's table of gains by message shape, per case of the run: RustWriter (compiled encoders
 * in protobufjs 8.8.1), the Writer API path and the JS-only path against protobufjs 8.8.1, RustWriter
 * in protobufjs 7.6.6 against protobufjs 7.6.6 (each under its own reflection code), and the native
 * calls per encode; then which Node ran it.
 * @param {object} run Parsed latest.json
 * @returns {string} Markdown, markers included
 */
function renderGains(run) {
  const ratio = (x) => (Number.isFinite(x) ? `${x.toFixed(2)}x` : 'n/a');
  const over = (c, of, by) => (c.contenders[of] && c.contenders[by] ? c.contenders[of].hz / c.contenders[by].hz : NaN);
  const rows = run.cases.filter((c) => !c.error && c.group !== 'real').map((c) => {
    const calls = c.breakdown && c.breakdown.nativeCallsPerOp;
    return tableRow([caseTitle(c), format.byteSize(c.bytes), ratio(over(c, 'rust', 'pbjs8')), ratio(over(c, 'rust-api', 'pbjs8')),
      ratio(over(c, 'rust-js', 'pbjs8')), ratio(over(c, 'rust7', 'pbjs7')), calls === null || calls === undefined ? 'n/a' : calls.toFixed(2)]);
  });
  const v8 = contender(run, 'pbjs8').protobufjs || run.packages.protobufjs;
  const v7 = contender(run, 'pbjs7').protobufjs || run.packages.protobufjs7;
  return [
    GAINS_MARKERS[0],
    GENERATED,
    `Under Node ${run.node.replace(/^v/, '')}; each column is ops/s over ops/s of \`T.encode(m).finish()\` in the same run, ` +
      'each protobufjs under its own reflection code (pbjs static code for the last row):',
    '',
    tableRow(['message', 'size', `RustWriter vs protobufjs ${v8}`, 'Writer API path, vs ' + v8, `without the addon, vs ${v8}`,
      `RustWriter in protobufjs ${v7} vs ${v7}`, 'native calls per encode']),
    tableRow(['---', '--:', '--:', '--:', '--:', '--:', '--:']),
    ...rows,
    '',
    'The run\'s date, machine and commit, the margins and every other table: [The last full run](#the-last-full-run).',
    GAINS_MARKERS[1],
  ].join('\n');
}

/**
 * A figure of the first-encode measurement as "1.23x [1.10x]" (median [best]).
 * @param {{median: number, best: number}} f Figure
 * @returns {string} Text
 */
function coldRatio(f) {
  return `${format.ratio(f.median)} [${format.ratio(f.best)}]`;
}

/**
 * An RSS difference in MB as "+12.3 [+8.1]" (median [best]).
 * @param {{median: number, best: number}} f Figure
 * @returns {string} Text
 */
function coldMB(f) {
  const one = (x) => `${x < 0 ? '−' : '+'}${Math.abs(x).toFixed(1)}`;
  return `${one(f.median)} [${one(f.best)}]`;
}

/**
 * The cells of a case's first-encode comparisons: RustWriter (preload) in 8.8.1 vs protobufjs 8.8.1,
 * and in 7.6.6 vs 7.6.6 where measured, joined by " / ".
 * @param {object} c Case record
 * @param {function(object): string} cell Formats one comparison
 * @returns {string} Cell
 */
function coldCells(c, cell) {
  if (!c.cold) return 'not measured';
  if (c.cold.error) return `failed: ${c.cold.error}`;
  return ['rust', 'rust7'].filter((key) => c.cold.ratios[key]).map((key) => cell(c.cold.ratios[key])).join(' / ');
}

/**
 * docs/benchmark.md's real-workload table: per real case, the steady-state ratios (medians of the rounds,
 * the fastest rounds' in brackets), and from fresh processes the first encoded result and peak RSS
 * against protobufjs's own.
 * @param {object} run Parsed latest.json
 * @returns {string} Markdown, markers included
 */
function renderReal(run) {
  const cases = run.cases.filter((c) => c.group === 'real');
  if (!cases.length) {
    return [REAL_MARKERS[0], GENERATED, 'The last full run has no real-workload cases: rerun `npm run bench:update`.', REAL_MARKERS[1]].join('\n');
  }
  const both = (c, key) => (c.ratios[key] === undefined ? 'n/a'
    : `${format.ratio(c.ratios[key])}${c.bestRatios && c.bestRatios[key] !== undefined ? ` [${format.ratio(c.bestRatios[key])}]` : ''}`);
  const rows = cases.map((c) => (c.error ? tableRow([c.title, format.byteSize(c.bytes), `bytes differ, not timed: ${c.error}`, '', '', '', '', ''])
    : tableRow([c.title, format.byteSize(c.bytes), both(c, 'pbjs8'), both(c, 'api'), both(c, 'pbjs7'), both(c, 'faster'),
      coldCells(c, (r) => `${coldRatio(r.firstResult)}, first encode ${coldRatio(r.firstEncode)}`),
      coldCells(c, (r) => coldMB(r.rssPeakMB))])));
  const rounds = run.options.coldRounds;
  return [
    REAL_MARKERS[0],
    GENERATED,
    `Under Node ${run.node.replace(/^v/, '')}: schemas and data of real packages (bench/real/); steady state timed as every case is ` +
      '(medians of the rounds, the fastest rounds\' ratio in brackets); first encode and memory in fresh processes as apps ' +
      `start (${rounds} alternating rounds, medians [bests]): \`node -r protobufjs-rustwriter/register\` against protobufjs ` +
      'alone, in 8.8.1 / in 7.6.6 where the case runs it:',
    '',
    tableRow(['message', 'size', 'RustWriter vs protobufjs 8.8.1', 'Writer API path, vs 8.8.1', 'RustWriter in 7.6.6 vs 7.6.6',
      'RustWriter vs the faster protobufjs', 'start → first encoded result, vs protobufjs alone (first encode call alone)',
      'peak RSS, MB above protobufjs alone']),
    tableRow(['---', '--:', '--:', '--:', '--:', '--:', '--:', '--:']),
    ...rows,
    '',
    'The run\'s date, machine and commit, and the first-encode figures of each contender: [The last full run](#the-last-full-run).',
    REAL_MARKERS[1],
  ].join('\n');
}

/**
 * docs/benchmark.md's first-encode table: per real case and contender, the figures of fresh processes.
 * @param {object} run Parsed latest.json
 * @returns {string[]} Markdown lines (none for a run without them)
 */
function coldTable(run) {
  const cases = run.cases.filter((c) => c.cold && !c.cold.error);
  if (!cases.length) return [];
  const ms = (f) => `${Math.round(f.median)} [${Math.round(f.best)}]`;
  const mb = (f) => `${(f.median / 2 ** 20).toFixed(1)} [${(f.best / 2 ** 20).toFixed(1)}]`;
  const lines = [
    tableRow(['case', 'contender', 'start → first result, ms', 'first encode call, ms', 'start-up (before the script), ms', 'schema, ms',
      'data file, ms', 'input (decode, fromObject), ms', 'RSS after the first encode, MB', 'RSS after the steady period, MB', 'peak RSS, MB']),
    tableRow(['---', '---', ...Array(9).fill('--:')]),
  ];
  for (const c of cases) {
    for (const { name, figures: f } of Object.values(c.cold.contenders)) {
      lines.push(tableRow([c.title, name, ms(f.firstResult), ms(f.firstEncode), ms(f.startup), ms(f.schema), ms(f.data),
        ms(f.input), mb(f.rssFirst), mb(f.rssSteady), mb(f.rssPeak)]));
    }
  }
  return [
    `First encode and memory of the real workloads, in fresh processes (bench/cold.js; ${run.options.coldRounds} alternating ` +
      `rounds, ${run.options.coldSteadyMs / 1000} s of encodes after the first; medians [bests]):`,
    '',
    ...lines,
    '',
  ];
}

/** The line every generated part starts with. */
const GENERATED = '<!-- Generated by bench/render.js from bench/results/latest.json: rerun `npm run bench:update` rather than editing. -->';

/**
 * Replaces the part of `file` between `markers` with `section` (markers included).
 * @param {string} file Path of a markdown file
 * @param {string[]} markers Start and end markers
 * @param {string} section Rendered part, markers included
 * @returns {undefined}
 */
function replaceSection(file, [start, end], section) {
  const text = fs.readFileSync(file, 'utf8');
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from < 0 || to < from) throw new Error(`${path.basename(file)} needs ${start} … ${end} markers`);
  fs.writeFileSync(file, text.slice(0, from) + section + text.slice(to + end.length));
}

/**
 * A geometric mean with its range, as "1.72x (1.51x–1.96x)".
 * @param {{value: number, range: number[]}} g Summary figure of bench/lines.js
 * @returns {string} Text
 */
function withRange(g) {
  return `${format.ratio(g.value)} (${format.ratio(g.range[0])}–${Number.isFinite(g.range[1]) ? format.ratio(g.range[1]) : 'any'})`;
}

/** A figure's status against its target (bench/targets.js), in the words of bench/lines.js's console summary. */
const STATUS_WORDS = { met: 'met', noise: 'missed within noise', missed: 'missed' };

/**
 * A summary figure's verdict against its target, for docs/benchmark.md only: the README shows the
 * figures, not the project's targets.
 * @param {{status: string|null}|null|undefined} g Summary figure of bench/lines.js
 * @returns {string} Text ("n/a" where the run has no such figure or the figure no target)
 */
function verdictOf(g) {
  return g && g.status ? STATUS_WORDS[g.status] : 'n/a';
}

/**
 * The per-line section of docs/benchmark.md: how the runs were made, per line the summary figures
 * with their ranges, per line and case the two ratios, the real workloads' figures, and each
 * figure's verdict against its target.
 * @param {object} lines Parsed lines.json
 * @returns {string} Markdown, markers included
 */
function renderLinesSection(lines) {
  const { names, targets } = lines;
  const head = tableRow(['Node', `geomean, protobuf.js's own three (${targets.ownThree.join(', ')})`,
    `geomean, everyday (${targets.everyday.join(', ')})`, 'least of the everyday',
    `${names.rust7} vs ${names.pbjs7}: geomean, own three / everyday`, `${names['rust-api']} vs ${names.pbjs8}: geomean, everyday`,
    'noise']);
  const rows = lines.lines.map((l) => tableRow([l.node.replace(/^v/, ''), withRange(l.summary.own8), withRange(l.summary.everyday8),
    `${withRange(l.summary.least8)}, ${l.summary.least8.id}`, `${withRange(l.summary.own7)} / ${withRange(l.summary.everyday7)}`,
    withRange(l.summary.api8), `load ${l.loadAverageAtStart.toFixed(1)}; ${l.noisyTimings} of ${l.timings} timings above ±10%`]));
  const ids = targets.everyday;
  const perCase = lines.lines.map((l) => tableRow([l.node.replace(/^v/, ''),
    ...ids.map((id) => `${format.ratio(l.cases[id].rust8)} / ${format.ratio(l.cases[id].rust7)}`)]));
  return [
    LINES_MARKERS[0],
    GENERATED_LINES,
    `Runs of ${lines.date.slice(0, 10)} on ${lines.machine.cores} × ${lines.machine.cpu}, ${lines.machine.os}; ` +
      `${format.commitLine(lines)}; one after the other, each \`node bench/index.js ${lines.args.join(' ')}\` under the ` +
      `latest release of its line from the npm registry (${lines.rounds} rounds; the run took ${format.duration(lines.runtimeSeconds)}). ` +
      `Ratios of ${names.rust} over ${names.pbjs8} and of ${names.rust7} over ${names.pbjs7}; in parentheses the range the ` +
      'timings\' margins allow:',
    '',
    head,
    tableRow(['---', ...Array(6).fill('--:')]),
    ...rows,
    '',
    `Per case, ${names.rust} vs ${names.pbjs8} / ${names.rust7} vs ${names.pbjs7}:`,
    '',
    tableRow(['Node', ...ids]),
    tableRow(['---', ...ids.map(() => '--:')]),
    ...perCase,
    ...linesRealTable(lines),
    ...linesVerdicts(lines),
    LINES_MARKERS[1],
  ].join('\n');
}

/**
 * docs/benchmark.md's verdicts of the per-line figures against their targets (bench/targets.js),
 * the real workloads' where the runs measured them.
 * @param {object} lines Parsed lines.json
 * @returns {string[]} Markdown lines, a blank one first
 */
function linesVerdicts(lines) {
  const { targets } = lines;
  const real = lines.lines.some((l) => l.real);
  const head = ['Node', `geomean, own three (at least ${format.ratio(targets.geomean8)})`,
    `geomean, everyday (at least ${format.ratio(targets.everyday8 || targets.geomean8)})`,
    `least of the everyday (at least ${format.ratio(targets.least8)})`,
    `${lines.names.rust7}: geomean, own three / everyday (at least ${format.ratio(targets.geomean7)})`];
  // Runs from before the real tile's target moved to its trimmed figure have no `tileTrim`, nor a
  // target for the wide case against its Writer-API path.
  const trimmed = lines.lines.some((l) => l.real && l.real.tileTrim);
  const vsApi = targets.wideApi !== undefined;
  if (real) {
    head.push(`wide case (at least ${format.ratio(targets.wide8)})`,
      ...(vsApi ? [`wide case vs its Writer-API path (at least ${format.ratio(targets.wideApi)})`] : []),
      `first encoded result (at most ${format.ratio(targets.firstResult)})`, `peak RSS (at most +${targets.peakRssMB} MB)`,
      `real tile${trimmed ? ', trim threshold raised' : ''} (at least ${format.ratio(targets.tile8)})`);
  }
  const rows = lines.lines.map((l) => {
    const s = l.summary;
    const cells = [l.node.replace(/^v/, ''), verdictOf(s.own8), verdictOf(s.everyday8), verdictOf(s.least8),
      `${verdictOf(s.own7)} / ${verdictOf(s.everyday7)}`];
    if (real) {
      const { wide, tile, tileTrim } = l.real || {};
      cells.push(verdictOf(wide && wide.rust8), ...(vsApi ? [verdictOf(wide && wide.rustApi)] : []),
        verdictOf(wide && wide.firstResult), verdictOf(wide && wide.rssPeakMB),
        verdictOf(trimmed ? tileTrim && tileTrim.rust8 : tile && tile.rust8));
    }
    return tableRow(cells);
  });
  return [
    '',
    `Against the targets (bench/targets.js: ${lines.names.rust} vs ${lines.names.pbjs8} unless named; a miss within noise ` +
      'is one whose range still reaches the target):',
    '',
    tableRow(head),
    tableRow(['---', ...Array(head.length - 1).fill('---')]),
    ...rows,
  ];
}

/**
 * The per-line table of the real workloads (bench/lines.js `real`): the wide case's steady ratios,
 * first encoded result and peak RSS against protobufjs 8.8.1, and the real tile's ratio. Empty for
 * runs made before they were added.
 * @param {object} lines Parsed lines.json
 * @returns {string[]} Markdown lines, a blank one first
 */
function linesRealTable(lines) {
  if (!lines.lines.some((l) => l.real)) return [];
  const steady = (f) => (f ? `${format.ratio(f.value)} [${format.ratio(f.best)}]` : 'n/a');
  const cold = (f, show) => (f ? `${show(f.median)} [${show(f.best)}]` : 'n/a');
  const mb = (x) => `${x < 0 ? '−' : '+'}${Math.abs(x).toFixed(1)} MB`;
  const trimmed = lines.lines.some((l) => l.real && l.real.tileTrim);
  const rows = lines.lines.map((l) => {
    const { wide, tile, tileTrim } = l.real || {};
    return tableRow([l.node.replace(/^v/, ''), steady(wide && wide.rust8), steady(wide && wide.api8),
      cold(wide && wide.firstResult, format.ratio), cold(wide && wide.firstEncode, format.ratio),
      cold(wide && wide.rssPeakMB, mb), steady(tile && tile.rust8),
      ...(trimmed ? [steady(tileTrim && tileTrim.rust8)] : [])]);
  });
  const wideId = (lines.lines.find((l) => l.real && l.real.wide) || { real: { wide: { id: 'temporal' } } }).real.wide.id;
  return [
    '',
    `Real workloads per line (bench/real/), against protobufjs 8.8.1: the wide case \`${wideId}\` (Temporal's schema) ` +
      'in steady state (the fastest rounds\' ratio in brackets), and in fresh processes started with the preload (medians ' +
      '[bests]): start → first encoded result, the first encode call alone, peak RSS above protobufjs alone; the real ' +
      `vector tile in steady state${trimmed ? ', as it runs and with both contenders under glibc\'s trim threshold raised to 64 MiB' : ''}:`,
    '',
    tableRow(['Node', 'wide case: RustWriter', 'Writer API path', 'first encoded result', 'first encode call', 'peak RSS',
      'real tile: RustWriter', ...(trimmed ? ['real tile, trim threshold raised'] : [])]),
    tableRow(['---', '--:', '--:', '--:', '--:', '--:', '--:', ...(trimmed ? ['--:'] : [])]),
    ...rows,
  ];
}

/** The line the per-line parts start with. */
const GENERATED_LINES = '<!-- Generated by bench/render.js from bench/results/lines.json: rerun `npm run bench:lines -- --update` ' +
  'rather than editing. -->';

/**
 * The kinds of app the README's summary goes by: the cases of the run that stand for each, real
 * workloads first, and the comparisons shown (`pbjs8`: RustWriter in protobufjs 8.8.1 vs protobufjs
 * 8.8.1; `pbjs7`: RustWriter in protobufjs 7.6.6 vs protobufjs 7.6.6; each under its own reflection
 * code, or static code for `static`).
 */
const KINDS = [
  { app: 'gRPC and Google Cloud clients (protobufjs 7.x, through `@grpc/proto-loader` or google-gax)', ratios: ['pbjs7'],
    real: ['grpc-firestore', 'grpc-pubsub', 'grpc-spanner'], modelled: ['common', 'catalog', 'stream'] },
  { app: 'Reflection on protobufjs 8.x (a `.proto` or JSON schema loaded at run time)', ratios: ['pbjs8'],
    real: ['temporal', 'temporal-decoded', 'firestore', 'conformance'], modelled: ['common', 'catalog', 'stream'] },
  { app: 'pbjs static code', ratios: ['pbjs8', 'pbjs7'], real: [], modelled: ['static'] },
  { app: 'Vector tiles and other large messages', ratios: ['pbjs8'], real: ['tile-real'], modelled: ['tile', 'large', 'bytes', 'packed-typed'] },
];

/**
 * The README's summary by kind of app (KINDS): per kind, RustWriter's ratios on the real workloads
 * (medians of the rounds, the fastest rounds' in brackets) and on the modelled cases; then what a
 * process started with the preload pays before its first encoded result and in peak memory, over
 * the real workloads.
 * @param {object} run Parsed latest.json
 * @returns {string} Markdown, markers included
 */
function renderExpect(run) {
  const byId = new Map(run.cases.map((c) => [c.id, c]));
  const version = (key) => contender(run, key).protobufjs || run.packages[key === 'pbjs8' ? 'protobufjs' : 'protobufjs7'];
  const ratios = (c, keys, best) => keys.map((key) => {
    if (c.ratios[key] === undefined) return 'n/a';
    const b = best && c.bestRatios && c.bestRatios[key] !== undefined ? ` [${format.ratio(c.bestRatios[key])}]` : '';
    return `${format.ratio(c.ratios[key])}${b}`;
  }).join(' / ');
  const cell = (ids, keys, real) => ids.map((id) => {
    const c = byId.get(id);
    if (c === undefined) return `${id}: not run`;
    const title = real ? `${c.title} (${format.byteSize(c.bytes)})` : caseTitle(c);
    return c.error ? `${title}: bytes differ, not timed` : `${title} ${ratios(c, keys, real)}`;
  }).join('; ') || '—';
  const rows = KINDS.map((k) => tableRow([k.app, k.ratios.map((key) => version(key)).join(' / '), cell(k.real, k.ratios, true),
    cell(k.modelled, k.ratios, false)]));
  // What the preload gives: compiled encoders, in 8.8.1 and (where the case runs it) in 7.6.6.
  const cold = run.cases.filter((c) => (c.group === 'real' || c.group === 'grpc') && c.cold && !c.cold.error)
    .flatMap((c) => ['rust', 'rust7'].filter((key) => c.cold.ratios[key]).map((key) => c.cold.ratios[key]));
  const span = (values, show) => `${show(Math.min(...values))} to ${show(Math.max(...values))}`;
  const mb = (x) => `${x < 0 ? '−' : '+'}${Math.abs(x).toFixed(1)} MB`;
  return [
    EXPECT_MARKERS[0],
    GENERATED,
    `RustWriter's ops/s over protobufjs's own, each protobufjs under its own code, under Node ${run.node.replace(/^v/, '')}; ` +
      'real workloads as medians of the rounds [the fastest rounds\']:',
    '',
    tableRow(['your app', 'against protobufjs', 'real workloads (bench/real/)', 'modelled cases']),
    tableRow(['---', '---', '---', '---']),
    ...rows,
    '',
    ...(cold.length ? [`Started with the preload, a process reached its first encoded result in ${span(cold.map((r) => r.firstResult.median), format.ratio)} ` +
      `the time of protobufjs alone, with a peak RSS ${span(cold.map((r) => r.rssPeakMB.median), mb)} above it (the real workloads, medians).`, ''] : []),
    `${runLine(run)}.`,
    EXPECT_MARKERS[1],
  ].join('\n');
}

/**
 * How long the last full run took, for the README's list of commands.
 * @param {object} run Parsed latest.json
 * @returns {string} Text, markers included
 */
function renderBenchTime(run) {
  return `${BENCH_TIME_MARKERS[0]}${format.duration(run.runtimeSeconds)} under Node ${run.node.replace(/^v/, '')} ` +
    `(the last full run, ${format.commitLine(run)})${BENCH_TIME_MARKERS[1]}`;
}

/**
 * Every generated part: the file it is in, its name (its markers are `<!-- name:start -->` and
 * `<!-- name:end -->`), the JSON it is rendered from, and the function that renders it (markers
 * included) from that JSON, parsed.
 * @type {Array<{file: string, name: string, markers: string[], source: string, render: function(object): string}>}
 */
const PARTS = [
  { file: README, name: 'expect', source: RESULTS, render: renderExpect },
  { file: README, name: 'bench-time', source: RESULTS, render: renderBenchTime },
  { file: DOC, name: 'gains', source: RESULTS, render: renderGains },
  { file: DOC, name: 'real', source: RESULTS, render: renderReal },
  { file: DOC, name: 'bench', source: RESULTS, render: renderSection },
  { file: DOC, name: 'lines', source: LINES, render: renderLinesSection },
].map((part) => ({ ...part, markers: markers(part.name) }));

/**
 * Renders latest.json into the SVG and its parts, and lines.json (where it exists) into its parts.
 * @param {{latest?: boolean, lines?: boolean}} [which] What to render (default: both)
 * @returns {undefined}
 */
function main({ latest = true, lines = true } = {}) {
  const sources = [latest && RESULTS, lines && fs.existsSync(LINES) && LINES].filter(Boolean);
  const wrote = [];
  for (const source of sources) {
    const data = JSON.parse(fs.readFileSync(source, 'utf8'));
    if (source === RESULTS) fs.writeFileSync(SVG, renderSvg(data));
    const parts = PARTS.filter((part) => part.source === source);
    for (const part of parts) replaceSection(part.file, part.markers, part.render(data));
    wrote.push(`${path.relative(process.cwd(), source)} into ${source === RESULTS ? `${path.relative(process.cwd(), SVG)}, ` : ''}` +
      parts.map((part) => `${path.relative(path.join(__dirname, '..'), part.file)}'s ${part.name}`).join(', '));
  }
  process.stdout.write(`rendered ${wrote.join('; ')}\n`);
}

module.exports = { main, PARTS, RESULTS, LINES, SVG, renderSvg };
