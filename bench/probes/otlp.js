'use strict';

/**
 * OTLP export requests through @opentelemetry/otlp-transformer 0.208.0 (the last release on
 * protobufjs 7.x: pbjs static code on its own protobufjs 7.6.6 copy, which calls `$Writer.create()`
 * and the Writer API, so RustWriter's methods do all the work there), protobufjs 7.6.6's own writer
 * against RustWriter installed into that copy, one process per contender, on one or more Node lines.
 *
 *   node bench/probes/otlp.js [--kind traces|logs|metrics] [--op encode|serialize] [--pairs N]
 *     [--node 20,26] [--a pbjs|<checkout>] [--b pbjs|<checkout>] [--flags "<node flags>"]
 *     [--a-flags "<node flags>"] [--b-flags "<node flags>"] [--spans N] [--verbose]
 *
 * The requests are built by the OpenTelemetry SDK itself from seeded data: `--spans` (512) ended
 * spans of an HTTP service (server spans, database and HTTP client spans, internal spans; semantic
 * convention attributes, user agents, SQL statements, some exception events with stack traces, a
 * few links) under one resource of 16 attributes and three instrumentation scopes; as many log
 * records (bodies of 40 to 200 characters, severities, attributes, trace context); or the metrics of
 * 24 instruments (counters, up-down counters, gauges, histograms) over 2 to 40 attribute sets each.
 * `encode` times `Type.encode(request).finish()` of the request the transformer built (the writer's
 * whole share); `serialize` the exporter's `serializeRequest(items)` (the transformer's conversion
 * from SDK objects too).
 *
 * Contender `pbjs` is protobufjs 7.6.6's own writer, a checkout path is RustWriter of that checkout
 * installed into the transformer's protobufjs copy; `--flags` go to every child's Node, `--a-flags` and
 * `--b-flags` to one side's only (A and B may then be the same contender: an A/B of Node flags).
 * Each measurement is a fresh process (V8 shares feedback between functions of identical source,
 * docs/benchmark.md), where the static encoders only ever see the contender's writer: it builds the
 * request, warms up for 1.5 s (Node 26's Maglev and TurboFan tiers need it), times 1.5 s of ops in
 * batches, prints its time per op, and then checks that the bytes are protobufjs's own. Processes
 * alternate A, B, B, A, … and the Node lines take turns within each pair, so that the machine's
 * drifts hit every line and contender alike. The report per Node line and clock: each contender's
 * median time per op, and the median and quartiles of the per-pair speed-ups (A's time over B's).
 * Three clocks: wall time and the process's CPU time (`process.cpuUsage()`, every thread's: the
 * GC's and compiler's helper threads count), medians of the batches; and the main thread's CPU time
 * over the whole window (Linux's schedstat, which moves at scheduler ticks) over the ops in it. On a
 * machine loaded past its cores, wall time mostly measures how long the process waited for a core;
 * the main thread's CPU time comes closest to what an encode costs on an idle machine, where the
 * GC's helper threads run on another core.
 *
 * Node lines are official binaries from the npm registry (scripts/runtimes.js); `20` is the machine's
 * own `node` when it is on that line.
 *
 * One contender alone, for a profiler or callgrind:
 *
 *   node bench/probes/otlp.js --child <pbjs|checkout> <kind> <encode|serialize> <items> [warm,n]
 *
 * times as above and prints wall, process CPU and main-thread ns per op and the request's bytes; with
 * `warm,n` it runs `warm + n` ops, checks the bytes and prints nothing (instructions of `n` ops: a
 * `warm,n` run's less a `warm,0` run's).
 */

const path = require('path');
const { execFileSync } = require('child_process');
const { prng } = require('../../tools/seeded');

const ROOT = path.join(__dirname, '..', '..');
const OTLP_DIR = path.dirname(require.resolve('@opentelemetry/otlp-transformer/package.json', { paths: [ROOT] }));
const SEED = 24;
const WARM_MS = 1500;
const TIME_MS = 1500;

/**
 * Lowercase hex of `bytes` random bytes.
 * @param {function(): number} rnd PRNG
 * @param {number} bytes Bytes
 * @returns {string} Hex
 */
function hex(rnd, bytes) {
  let s = '';
  for (let i = 0; i < bytes; ++i) s += (256 + rnd.int(256)).toString(16).slice(1);
  return s;
}

/**
 * A service's resource, as the SDK's detectors fill it.
 * @param {function(): number} rnd PRNG
 * @returns {object} Resource
 */
function resource(rnd) {
  const { resourceFromAttributes } = require('@opentelemetry/resources');
  return resourceFromAttributes({
    'service.name': 'checkout-service',
    'service.namespace': 'shop',
    'service.version': '2.14.3',
    'service.instance.id': `${hex(rnd, 4)}-${hex(rnd, 2)}-${hex(rnd, 2)}-${hex(rnd, 2)}-${hex(rnd, 6)}`,
    'deployment.environment.name': 'production',
    'host.name': 'ip-10-0-12-34.eu-west-1.compute.internal',
    'host.arch': 'amd64',
    'os.type': 'linux',
    'os.version': '6.1.0-18-cloud-amd64',
    'process.pid': 4127,
    'process.executable.name': 'node',
    'process.runtime.name': 'nodejs',
    'process.runtime.version': '20.20.2',
    'process.command_args': ['/usr/local/bin/node', '--enable-source-maps', '/app/dist/server.js'],
    'telemetry.sdk.language': 'nodejs',
    'telemetry.sdk.name': 'opentelemetry',
    'telemetry.sdk.version': '2.2.0',
  });
}

const AGENTS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Mobile/15E148 Safari/604.1',
  'okhttp/4.12.0',
  'python-requests/2.32.3',
];
const ROUTES = ['/api/cart/:id', '/api/checkout', '/api/products/:sku', '/api/orders/:id/items', '/healthz'];
const SQL = [
  'SELECT id, sku, name, price_cents, currency FROM products WHERE sku = $1',
  'SELECT o.id, o.status, o.created_at, i.sku, i.quantity FROM orders o JOIN order_items i ON i.order_id = o.id ' +
    'WHERE o.customer_id = $1 ORDER BY o.created_at DESC LIMIT 20',
  'UPDATE carts SET updated_at = now(), items = $2 WHERE id = $1',
  'INSERT INTO payments (order_id, amount_cents, currency, provider, status) VALUES ($1, $2, $3, $4, $5) RETURNING id',
];
const STACK = 'Error: connect ECONNREFUSED 10.0.7.21:5432\n' +
  '    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1607:16)\n' +
  '    at Client._connectionCallback (/app/node_modules/pg/lib/client.js:132:24)\n' +
  '    at PaymentsRepository.insert (/app/dist/repositories/payments.js:48:27)\n' +
  '    at async CheckoutService.pay (/app/dist/services/checkout.js:211:9)\n' +
  '    at async /app/dist/routes/checkout.js:37:5';

/**
 * Ended SDK spans of one service: per request a server span, database and HTTP client spans and
 * internal spans under it.
 * @param {number} count Spans
 * @returns {Array<object>} ReadableSpans, as the exporter gets them
 */
function spans(count) {
  const api = require('@opentelemetry/api');
  const { BasicTracerProvider, SimpleSpanProcessor, InMemorySpanExporter } = require('@opentelemetry/sdk-trace-base');
  const rnd = prng(SEED);
  const exporter = new InMemorySpanExporter();
  const idGenerator = { generateTraceId: () => hex(rnd, 16), generateSpanId: () => hex(rnd, 8) };
  const provider = new BasicTracerProvider({
    resource: resource(rnd), idGenerator, spanProcessors: [new SimpleSpanProcessor(exporter)],
    spanLimits: { attributeValueLengthLimit: 4096 },
  });
  const http = provider.getTracer('@opentelemetry/instrumentation-http', '0.208.0');
  const pg = provider.getTracer('@opentelemetry/instrumentation-pg', '0.61.0');
  const app = provider.getTracer('checkout-service', '2.14.3');
  let sec = 1764000000;
  let made = 0;
  const time = (ns) => [sec, ns];
  while (made < count) {
    ++sec;
    const route = rnd.pick(ROUTES);
    const method = route === '/api/checkout' ? 'POST' : 'GET';
    const status = rnd() < 0.05 ? 500 : 200;
    const server = http.startSpan(`${method} ${route}`, {
      kind: api.SpanKind.SERVER, startTime: time(1000),
      attributes: {
        'http.request.method': method, 'url.scheme': 'https', 'url.path': route.replace(/:\w+/, String(rnd.int(1e6))),
        'server.address': 'shop.example.com', 'server.port': 443, 'network.protocol.version': '1.1',
        'client.address': `203.0.113.${rnd.int(255)}`, 'user_agent.original': rnd.pick(AGENTS), 'http.route': route,
        'http.response.status_code': status, 'http.request.body.size': rnd.int(4000),
      },
      links: rnd() < 0.1 ? [{ context: { traceId: hex(rnd, 16), spanId: hex(rnd, 8), traceFlags: 1 } }] : [],
    });
    ++made;
    const ctx = api.trace.setSpan(api.ROOT_CONTEXT, server);
    const children = 1 + rnd.int(6);
    for (let c = 0; c < children && made < count; ++c, ++made) {
      const start = time(2000 + c * 1000000);
      const end = time(2000 + c * 1000000 + rnd.int(900000));
      const which = rnd.int(3);
      let span;
      if (which === 0) {
        const statement = rnd.pick(SQL);
        span = pg.startSpan(`pg.query:${statement.split(' ')[0]} shop`, {
          kind: api.SpanKind.CLIENT, startTime: start,
          attributes: {
            'db.system': 'postgresql', 'db.namespace': 'shop', 'db.query.text': statement,
            'db.operation.name': statement.split(' ')[0], 'server.address': 'db.internal', 'server.port': 5432,
            'db.connection_string': 'postgresql://db.internal:5432/shop',
          },
        }, ctx);
        if (status === 500 && c === 0) {
          span.recordException({ name: 'Error', message: 'connect ECONNREFUSED 10.0.7.21:5432', stack: STACK }, start);
          span.setStatus({ code: api.SpanStatusCode.ERROR, message: 'connect ECONNREFUSED 10.0.7.21:5432' });
        }
      } else if (which === 1) {
        span = http.startSpan('GET', {
          kind: api.SpanKind.CLIENT, startTime: start,
          attributes: {
            'http.request.method': 'GET', 'url.full': `http://inventory.internal:8080/v1/stock/${hex(rnd, 6)}`,
            'server.address': 'inventory.internal', 'server.port': 8080, 'http.response.status_code': 200,
            'network.peer.address': `10.0.${rnd.int(255)}.${rnd.int(255)}`,
          },
        }, ctx);
      } else {
        span = app.startSpan(rnd.pick(['validateCart', 'priceItems', 'applyPromotions', 'reserveStock']), {
          startTime: start, attributes: { 'cart.items': rnd.int(12), 'cart.currency': 'EUR', 'app.feature_flags': 'new-pricing,fast-checkout' },
        }, ctx);
        if (rnd() < 0.3) span.addEvent('cache miss', { 'cache.key': `cart:${hex(rnd, 8)}` }, start);
      }
      span.end(end);
    }
    if (status === 500) server.setStatus({ code: api.SpanStatusCode.ERROR });
    server.end(time(900000000));
  }
  return exporter.getFinishedSpans().slice(0, count);
}

/**
 * SDK log records of the same service: request logs, debug lines, warnings, errors with stacks.
 * @param {number} count Records
 * @returns {Array<object>} ReadableLogRecords, as the exporter gets them
 */
function logs(count) {
  const { LoggerProvider, SimpleLogRecordProcessor, InMemoryLogRecordExporter } = require('@opentelemetry/sdk-logs');
  const api = require('@opentelemetry/api');
  const { SeverityNumber } = require('@opentelemetry/api-logs');
  const rnd = prng(SEED);
  const exporter = new InMemoryLogRecordExporter();
  const processors = [new SimpleLogRecordProcessor(exporter)];
  const provider = new LoggerProvider({ resource: resource(rnd), processors });
  const loggers = [provider.getLogger('pino', '9.5.0'), provider.getLogger('checkout-service', '2.14.3')];
  for (let i = 0; i < count; ++i) {
    const span = { traceId: hex(rnd, 16), spanId: hex(rnd, 8), traceFlags: 1 };
    const ctx = api.trace.setSpanContext(api.ROOT_CONTEXT, span);
    const kind = rnd.int(10);
    const route = rnd.pick(ROUTES);
    let body;
    let severityNumber = SeverityNumber.INFO;
    const attributes = { 'log.logger': 'checkout', 'http.route': route, 'code.function': 'handleRequest' };
    if (kind < 6) {
      body = `request completed: ${rnd.pick(['GET', 'POST'])} ${route} ${rnd.pick([200, 200, 201, 404])} in ${rnd.int(900)} ms`;
      attributes['http.response.status_code'] = 200;
      attributes['user_agent.original'] = rnd.pick(AGENTS);
    } else if (kind < 8) {
      severityNumber = SeverityNumber.DEBUG;
      body = `cache lookup for cart:${hex(rnd, 8)} returned ${rnd.int(12)} items`;
    } else if (kind < 9) {
      severityNumber = SeverityNumber.WARN;
      body = `slow query (${rnd.int(3000)} ms): ${rnd.pick(SQL)}`;
    } else {
      severityNumber = SeverityNumber.ERROR;
      body = 'payment failed: connect ECONNREFUSED 10.0.7.21:5432';
      attributes['exception.type'] = 'Error';
      attributes['exception.stacktrace'] = STACK;
    }
    loggers[i & 1].emit({
      timestamp: [1764000000 + i, rnd.int(1e9)], observedTimestamp: [1764000000 + i, rnd.int(1e9)],
      severityNumber, severityText: SeverityNumber[severityNumber], body, attributes, context: ctx,
    });
  }
  return exporter.getFinishedLogRecords();
}

/**
 * One collection of the same service's metrics: counters, up-down counters, gauges and histograms
 * (default buckets) over 2 to 40 attribute sets each.
 * @returns {Promise<object>} ResourceMetrics, as the exporter gets them
 */
async function metrics() {
  const { MeterProvider, MetricReader } = require('@opentelemetry/sdk-metrics');
  const rnd = prng(SEED);
  /** A reader collected by hand. */
  class Reader extends MetricReader {
    /** @returns {Promise<void>} Nothing to flush */
    async onForceFlush() {}
    /** @returns {Promise<void>} Nothing to shut down */
    async onShutdown() {}
  }
  const reader = new Reader();
  const provider = new MeterProvider({ resource: resource(rnd), readers: [reader] });
  const meters = [provider.getMeter('@opentelemetry/instrumentation-http', '0.208.0'), provider.getMeter('checkout-service', '2.14.3')];
  for (let k = 0; k < 24; ++k) {
    const meter = meters[k & 1];
    const name = `${k & 1 ? 'app.checkout' : 'http.server'}.${['requests', 'duration', 'active', 'queue', 'bytes', 'errors'][k % 6]}.${k}`;
    const instrument = k % 4 === 0 ? meter.createCounter(name, { description: `The ${name} count`, unit: '{request}' })
      : k % 4 === 1 ? meter.createHistogram(name, { description: `Duration of ${name}`, unit: 's' })
        : k % 4 === 2 ? meter.createUpDownCounter(name, { description: `In-flight ${name}`, unit: '{request}' })
          : meter.createGauge(name, { description: `Current ${name}`, unit: 'By' });
    const sets = 2 + rnd.int(39);
    for (let s = 0; s < sets; ++s) {
      const attributes = {
        'http.request.method': rnd.pick(['GET', 'POST', 'PUT']), 'http.route': rnd.pick(ROUTES),
        'http.response.status_code': rnd.pick([200, 201, 404, 500]), 'server.address': 'shop.example.com', shard: s,
      };
      for (let r = 0; r < 1 + rnd.int(20); ++r) {
        if (k % 4 === 0) instrument.add(1 + rnd.int(5), attributes);
        else if (k % 4 === 1) instrument.record(rnd() * 3, attributes);
        else if (k % 4 === 2) instrument.add(rnd.int(9) - 4, attributes);
        else instrument.record(rnd.int(1 << 20), attributes);
      }
    }
  }
  const { resourceMetrics } = await reader.collect();
  return resourceMetrics;
}

const SCHEDSTAT = `/proc/self/task/${process.pid}/schedstat`;

/**
 * @returns {number} Nanoseconds the main thread has run on a CPU (Linux's schedstat; NaN elsewhere)
 */
function threadNs() {
  try {
    return Number(require('fs').readFileSync(SCHEDSTAT, 'latin1').split(' ')[0]);
  } catch {
    return NaN;
  }
}

/**
 * Child: times one contender on one kind and prints its median ns per op.
 * @param {string} contender `pbjs` or a checkout
 * @param {string} kind `traces`, `logs` or `metrics`
 * @param {string} op `encode` or `serialize`
 * @param {number} count Spans or log records
 * @param {string} [ops] `warm,n`: run that many ops and print nothing, instead of timing
 * @returns {Promise<undefined>} When printed
 */
async function child(contender, kind, op, count, ops) {
  const protobuf = require(require.resolve('protobufjs/minimal', { paths: [OTLP_DIR] }));
  const version = require(require.resolve('protobufjs/package.json', { paths: [OTLP_DIR] })).version;
  if (version !== '7.6.6') throw new Error(`otlp-transformer's protobufjs is ${version}, not 7.6.6`);
  const transformer = require(OTLP_DIR);
  const root = require(path.join(OTLP_DIR, 'build', 'src', 'generated', 'root'));
  const v1 = root.opentelemetry.proto.collector;
  const { createExportTraceServiceRequest } = require(path.join(OTLP_DIR, 'build', 'src', 'trace', 'internal'));
  const { createExportLogsServiceRequest } = require(path.join(OTLP_DIR, 'build', 'src', 'logs', 'internal'));
  const { createExportMetricsServiceRequest } = require(path.join(OTLP_DIR, 'build', 'src', 'metrics', 'internal'));
  const kinds = {
    traces: [() => spans(count), transformer.ProtobufTraceSerializer, createExportTraceServiceRequest,
      v1.trace.v1.ExportTraceServiceRequest],
    logs: [() => logs(count), transformer.ProtobufLogsSerializer, createExportLogsServiceRequest,
      v1.logs.v1.ExportLogsServiceRequest],
    metrics: [async () => [await metrics()], transformer.ProtobufMetricsSerializer, createExportMetricsServiceRequest,
      v1.metrics.v1.ExportMetricsServiceRequest],
  };
  const [build, serializer, toRequest, Request] = kinds[kind];
  const items = await build();
  const request = toRequest(items, undefined);
  let rust = null;
  if (contender !== 'pbjs') {
    rust = require(path.resolve(contender));
    rust.install(protobuf);
    if (!(protobuf.Writer.create() instanceof rust.RustWriter)) throw new Error('install() did not take');
  }
  const encodeOp = () => Request.encode(request).finish();
  const serializeOp = kind === 'metrics' ? () => serializer.serializeRequest(items[0]) : () => serializer.serializeRequest(items);
  const run = op === 'serialize' ? serializeOp : encodeOp;
  /**
   * Checks the contender's bytes against protobufjs 7.6.6's own writer. For RustWriter this runs
   * after the timing: protobufjs's writer passing through the static encoders first would leave
   * its classes in their feedback, and the timed encoders polymorphic.
   * @returns {number} Bytes of the request
   */
  const check = () => {
    const ours = [Buffer.from(encodeOp()), Buffer.from(serializeOp())];
    if (rust !== null) rust.uninstall(protobuf);
    const reference = Buffer.from(Request.encode(request).finish());
    if (!ours.every((bytes) => bytes.equals(reference))) throw new Error(`${contender}: bytes differ from protobufjs 7.6.6's`);
    return reference.length;
  };
  const until = (ms, fn) => {
    const end = process.hrtime.bigint() + BigInt(ms * 1e6);
    while (process.hrtime.bigint() < end) fn();
  };
  if (ops !== undefined) {
    // Fixed counts, nothing printed: for instruction counts (callgrind) of `warm + n` ops less `warm`.
    const [warm, n] = ops.split(',').map(Number);
    for (let i = 0; i < warm + n; ++i) run();
    check();
    return;
  }
  until(WARM_MS, run);
  const times = [];
  const cpu = [];
  // The main thread's schedstat advances at scheduler ticks only: read over the whole window.
  const ran = threadNs();
  let timed = 0;
  until(TIME_MS, () => {
    const start = process.hrtime.bigint();
    const used = process.cpuUsage();
    for (let i = 0; i < 4; ++i) run();
    const { user, system } = process.cpuUsage(used);
    times.push(Number(process.hrtime.bigint() - start) / 4);
    cpu.push((user + system) * 1e3 / 4);
    timed += 4;
  });
  const thread = (threadNs() - ran) / timed;
  const median = (xs) => xs.sort((a, b) => a - b)[xs.length >> 1];
  process.stdout.write(`${median(times)} ${median(cpu)} ${thread} ${check()}\n`);
}

/**
 * The Node binary of a line: the machine's own `node` if it is on it, else the registry's.
 * @param {string} line Major version
 * @returns {string} Path
 */
function nodeBin(line) {
  if (process.versions.node.split('.')[0] === line) return process.execPath;
  return require('../../scripts/runtimes').node(line).bin;
}

/**
 * Parent: alternates child processes of both contenders on each Node line and reports.
 * @param {object} o Options
 * @returns {undefined}
 */
function parent(o) {
  const lines = o.node.split(',');
  const bins = Object.fromEntries(lines.map((l) => [l, nodeBin(l)]));
  const split = (f) => (f ? f.split(' ').filter(Boolean) : []);
  const flags = split(o.flags);
  const sideFlags = [split(o['a-flags']), split(o['b-flags'])];
  let size = 0;
  const run = (line, side) => {
    const contender = side ? o.b : o.a;
    const args = [...flags, ...sideFlags[side], __filename, '--child', contender, o.kind, o.op, String(o.spans)];
    const out = execFileSync(bins[line], args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    const [wall, cpu, thread, bytes] = out.trim().split(' ').map(Number);
    size = bytes;
    return { wall, cpu, thread };
  };
  const clocks = ['wall', 'thread', 'cpu'];
  const perClock = () => Object.fromEntries(clocks.map((c) => [c, []]));
  const data = Object.fromEntries(lines.map((l) => [l, { times: [[], []], ratios: perClock() }]));
  for (let k = 0; k < o.pairs; ++k) {
    for (const line of k % 2 ? lines.slice().reverse() : lines) {
      const t = [null, null];
      for (const side of k % 2 ? [1, 0] : [0, 1]) {
        t[side] = run(line, side);
        data[line].times[side].push(t[side]);
      }
      for (const c of clocks) data[line].ratios[c].push(t[0][c] / t[1][c]);
      if (o.verbose) {
        process.stderr.write(`pair ${k + 1} Node ${line}: ${clocks.map((c) => `${c} ${(t[0][c] / 1e3).toFixed(1)} / ` +
          `${(t[1][c] / 1e3).toFixed(1)} µs`).join(', ')}\n`);
      }
    }
  }
  const sorted = (xs) => xs.slice().sort((a, b) => a - b);
  const median = (xs) => sorted(xs)[xs.length >> 1];
  const us = (ns) => `${(ns / 1e3).toFixed(1)} µs`;
  const name = (c) => (c === 'pbjs' ? 'protobufjs 7.6.6' : `RustWriter ${path.relative(process.cwd(), path.resolve(c)) || '.'}`);
  const named = (side) => `${name(side ? o.b : o.a)}${sideFlags[side].length ? ` ${sideFlags[side].join(' ')}` : ''}`;
  process.stdout.write(`OTLP ${o.kind} (${o.kind === 'metrics' ? '24 instruments' : `${o.spans} items`}, ${size} bytes), ` +
    `${o.op}, ${o.pairs} pairs${flags.length ? `, flags ${flags.join(' ')}` : ''}; A = ${named(0)}, B = ${named(1)}\n`);
  for (const line of lines) {
    const d = data[line];
    const version = execFileSync(bins[line], ['-p', 'process.version'], { encoding: 'utf8' }).trim();
    for (const c of clocks) {
      const r = sorted(d.ratios[c]);
      const n = r.length;
      const times = (side) => us(median(d.times[side].map((t) => t[c])));
      process.stdout.write(`  Node ${version}, ${`${c} time:`.padEnd(12)} A ${times(0)}, B ${times(1)}; A/B per pair: ` +
        `median ${median(r).toFixed(2)}x (quartiles ${r[n >> 2].toFixed(2)}–${r[(3 * n) >> 2].toFixed(2)})\n`);
    }
  }
}

const argv = process.argv.slice(2);
if (argv[0] === '--child') {
  child(argv[1], argv[2], argv[3], Number(argv[4]), argv[5]).catch((err) => {
    process.stderr.write(`${err.stack}\n`);
    process.exitCode = 1;
  });
} else {
  const o = {
    kind: 'traces', op: 'encode', pairs: 8, node: '20,26', a: 'pbjs', b: ROOT, flags: '', 'a-flags': '', 'b-flags': '',
    spans: 512, verbose: false,
  };
  for (let i = 0; i < argv.length; ++i) {
    const key = argv[i].replace(/^--/, '');
    if (key === 'verbose') o.verbose = true;
    else if (key in o) o[key] = typeof o[key] === 'number' ? Number(argv[++i]) : argv[++i];
    else {
      process.stderr.write('usage: node bench/probes/otlp.js [--kind traces|logs|metrics] [--op encode|serialize] [--pairs N] ' +
        '[--node 20,26] [--a pbjs|<checkout>] [--b pbjs|<checkout>] [--flags "<node flags>"] ' +
        '[--a-flags "<node flags>"] [--b-flags "<node flags>"] [--spans N] ' +
        '[--verbose]\n');
      process.exit(2);
    }
  }
  parent(o);
}
