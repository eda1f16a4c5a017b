'use strict';

/**
 * How far one round of `npm run bench` can be trusted: times two contenders of a case in many
 * interleaved rounds, each in a process of its own and each round one benchmark.js run, as
 * bench/suite.js does, and prints every round's ratio, the ratio of the medians over all rounds
 * and over each block of as many rounds as the bench takes for the case (what one bench run would
 * have reported). Ratios are the second contender's speed over the first's.
 *
 *   node bench/probes/rounds.js [cases] [rounds] [first,second]
 *
 * Defaults: the everyday cases (common,catalog,tile,stream), 33 rounds, pbjs8,rust.
 */

const { Worker } = require('../worker');
const { CONTENDERS } = require('../cases');
const { roundsOf, WARM_MS } = require('../suite');

const [cases = 'common,catalog,tile,stream', rounds = '33', keys = 'pbjs8,rust'] = process.argv.slice(2);

/**
 * @param {number[]} values Numbers
 * @returns {number} Their median (the upper one of an even count)
 */
function median(values) {
  return values.slice().sort((a, b) => a - b)[values.length >> 1];
}

/**
 * Times the two contenders of one case over `count` rounds.
 * @param {string} id Case
 * @param {number} count Rounds
 * @returns {Promise<number[][]>} Speeds (ops/s) per contender, per round
 */
async function timeRounds(id, count) {
  const workers = keys.split(',').map((key) => {
    const contender = CONTENDERS.find((c) => c.key === key);
    if (!contender) throw new Error(`unknown contender ${key}`);
    return new Worker(id, contender);
  });
  try {
    await Promise.all(workers.map((worker) => worker.ready()));
    for (const worker of workers) await worker.warm(WARM_MS);
    const hz = workers.map(() => []);
    for (let round = 0; round < count; round++) {
      for (let i = 0; i < workers.length; i++) hz[i].push((await workers[i].time()).hz);
    }
    return hz;
  } finally {
    await Promise.all(workers.map((worker) => worker.close()));
  }
}

(async () => {
  const count = Number(rounds);
  for (const id of cases.split(',')) {
    const [first, second] = await timeRounds(id, count);
    const perRound = second.map((hz, round) => hz / first[round]);
    const block = roundsOf(id);
    const blocks = [];
    for (let at = 0; at + block <= count; at += block) {
      blocks.push(median(second.slice(at, at + block)) / median(first.slice(at, at + block)));
    }
    const fixed = (x) => x.toFixed(2);
    process.stdout.write(`${id}: per round ${perRound.map(fixed).join(' ')}; ratio of the medians ${fixed(median(second) / median(first))}; ` +
      `of each ${block} rounds ${blocks.map(fixed).join(' ')}\n`);
  }
})().catch((err) => {
  process.stderr.write(`${err.stack || err}\n`);
  process.exitCode = 1;
});
