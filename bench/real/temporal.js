'use strict';

/**
 * The wide real-workload case: Temporal's schema (`@temporalio/proto`, 1,061 message types in one
 * Root) and a workflow task as a worker receives it, a `PollWorkflowTaskQueueResponse` whose
 * history holds HISTORY_EVENTS events of every kind.
 *
 * The schema: the package's `protos/json-module.js` is a module that hands a JSON descriptor to
 * `Root.addJSON` of the `protobufjs/light` it requires (protobufjs 8.x, the package's dependency).
 * `descriptor()` runs that module with a stand-in for protobufjs that only keeps the descriptor, so
 * that every contender loads the same descriptor into a Root of its own protobufjs copy (8.8.1 or
 * 7.6.6) with `Root.fromJSON`, not into the module's own Root.
 *
 * The message: every one of the 60 `*EventAttributes` members of HistoryEvent's `attributes` oneof
 * at least once, the other events drawn from the kinds that make up most real histories (workflow
 * and activity tasks, timers, signals, markers); each event's attributes filled by bench/real/fill.js
 * to depth 4, with Temporal's Payloads shaped as its SDK makes them (an `encoding` metadata entry, and
 * JSON data). Plain objects as a TypeScript worker holds them: int64 fields as numbers, `bytes` as
 * Uint8Arrays; bench/cases.js makes the decoded variant from its bytes.
 */

const fs = require('fs');
const { Filler, between, uuid, EPOCH_SECONDS } = require('./fill');

/** The message type of the case. */
const TYPE = 'temporal.api.workflowservice.v1.PollWorkflowTaskQueueResponse';
/** Events of the history. */
const HISTORY_EVENTS = 600;
/**
 * Probability that the filler sets a field: with 600 events, 0.9 makes the message ~250 KB encoded,
 * the size of the workflow task measured in issue 37 (0.6 gave 115 KB, 0.8 195 KB).
 */
const PRESENCE = 0.9;
/** Event kinds of a typical workflow's history, and how often each comes (weights). */
const COMMON_KINDS = {
  workflowTaskScheduledEventAttributes: 6,
  workflowTaskStartedEventAttributes: 6,
  workflowTaskCompletedEventAttributes: 6,
  activityTaskScheduledEventAttributes: 5,
  activityTaskStartedEventAttributes: 5,
  activityTaskCompletedEventAttributes: 4,
  activityTaskFailedEventAttributes: 1,
  timerStartedEventAttributes: 2,
  timerFiredEventAttributes: 2,
  workflowExecutionSignaledEventAttributes: 2,
  markerRecordedEventAttributes: 2,
  upsertWorkflowSearchAttributesEventAttributes: 1,
};
/** The oneof of HistoryEvent that holds its attributes, and the suffix of its members' names. */
const ATTRIBUTES = 'attributes';
const SUFFIX = 'EventAttributes';

let cached = null;

/**
 * The JSON descriptor `@temporalio/proto/protos/json-module.js` hands to `Root.addJSON` (its
 * `nested` map), read once by running the module against a stand-in for protobufjs.
 * @returns {object} Descriptor (`Root.fromJSON` takes `{ nested: descriptor }`)
 */
function descriptor() {
  if (cached) return cached;
  const file = require.resolve('@temporalio/proto/protos/json-module.js');
  let json = null;
  const standIn = { roots: {}, Root: class { addJSON(nested) { json = nested; return this; } } };
  const module = { exports: {} };
  new Function('require', 'module', 'exports', fs.readFileSync(file, 'utf8'))(() => standIn, module, module.exports);
  if (!json) throw new Error(`${file} did not call Root.addJSON`);
  cached = json;
  return cached;
}

/**
 * The schema as `Root.fromJSON` takes it.
 * @returns {object} `{ nested: descriptor() }`
 */
function schema() {
  return { nested: descriptor() };
}

/**
 * The bytes of a string as UTF-8.
 * @param {string} text Text
 * @returns {Uint8Array} Bytes
 */
function utf8(text) {
  return new TextEncoder().encode(text);
}

/**
 * A Payload as Temporal's default data converter makes it: `encoding` metadata and JSON data of a
 * small object; a few protobuf-JSON payloads name their message type too.
 * @param {{rnd: Function}} context Filler context
 * @returns {object} temporal.api.common.v1.Payload
 */
function payload({ rnd }) {
  const value = {};
  const keys = between(rnd, 1, 6);
  for (let i = 0; i < keys; ++i) {
    value[`${rnd.pick(['id', 'name', 'amount', 'status', 'items', 'customer', 'note'])}${i}`] = rnd() < 0.5
      ? rnd.int(100000) : `${rnd.pick(['ok', 'pending', 'shipped', 'EUR', 'order'])}-${rnd.int(1e6).toString(36)}`;
  }
  if (rnd() < 0.15) {
    return {
      metadata: { encoding: utf8('json/protobuf'), messageType: utf8(`acme.orders.v1.${rnd.pick(['Order', 'Invoice', 'Refund'])}`) },
      data: utf8(JSON.stringify(value)),
    };
  }
  return { metadata: { encoding: utf8('json/plain') }, data: utf8(JSON.stringify(value)) };
}

/**
 * The EventType value of an attributes member: `activityTaskStartedEventAttributes` →
 * `EVENT_TYPE_ACTIVITY_TASK_STARTED`.
 * @param {object} eventType The EventType enum
 * @param {string} member Member name
 * @returns {number} Enum value
 */
function eventTypeOf(eventType, member) {
  const name = `EVENT_TYPE_${member.slice(0, -SUFFIX.length).replace(/[A-Z]/g, (ch) => `_${ch}`).toUpperCase()}`;
  const value = eventType.values[name];
  if (value === undefined) throw new Error(`temporal: no ${name} in ${eventType.fullName} for ${member}`);
  return value;
}

/**
 * The kinds of the history's events in order: the execution's start first, every other kind at least
 * once, the rest drawn by COMMON_KINDS' weights, in a seeded order.
 * @param {Function} rnd prng
 * @param {string[]} members Every attributes member
 * @returns {string[]} Member per event
 */
function eventKinds(rnd, members) {
  const first = 'workflowExecutionStartedEventAttributes';
  const weighted = Object.entries(COMMON_KINDS).flatMap(([kind, weight]) => Array(weight).fill(kind));
  const kinds = members.filter((m) => m !== first);
  while (kinds.length < HISTORY_EVENTS - 1) kinds.push(rnd.pick(weighted));
  for (let i = kinds.length - 1; i > 0; --i) {
    const j = rnd.int(i + 1);
    [kinds[i], kinds[j]] = [kinds[j], kinds[i]];
  }
  return [first, ...kinds];
}

/**
 * The case's message: a workflow task with HISTORY_EVENTS history events.
 * @param {Function} rnd prng (tools/seeded.js)
 * @param {object} root A resolved Root of the schema (any protobufjs copy)
 * @returns {object} PollWorkflowTaskQueueResponse as plain objects
 */
function build(rnd, root) {
  const filler = new Filler(rnd, { presence: PRESENCE, overrides: { '.temporal.api.common.v1.Payload': payload } });
  const Response = root.lookupType(TYPE);
  const HistoryEvent = root.lookupType('temporal.api.history.v1.HistoryEvent');
  const eventType = root.lookupEnum('temporal.api.enums.v1.EventType');
  const members = HistoryEvent.oneofs[ATTRIBUTES].fieldsArray;
  const byName = new Map(members.map((m) => [m.name, m]));
  const kinds = eventKinds(rnd, members.map((m) => m.name));
  const taskIds = 1048576 + rnd.int(1e7);
  let seconds = EPOCH_SECONDS + rnd.int(1e6);
  const events = kinds.map((kind, i) => {
    seconds += rnd.int(30);
    return {
      eventId: i + 1,
      eventTime: { seconds, nanos: 1 + rnd.int(999999999) },
      eventType: eventTypeOf(eventType, kind),
      taskId: taskIds + i,
      [kind]: filler.message(byName.get(kind).resolvedType),
    };
  });
  const response = filler.message(Response);
  delete response.history;
  return {
    ...response,
    taskToken: filler.single(Response.fields.taskToken, 0),
    workflowExecution: { workflowId: `order-${rnd.int(1e6)}`, runId: uuid(rnd) },
    workflowType: { name: 'processOrder' },
    previousStartedEventId: HISTORY_EVENTS - 3,
    startedEventId: HISTORY_EVENTS,
    attempt: 1,
    history: { events },
  };
}

module.exports = { TYPE, HISTORY_EVENTS, descriptor, schema, build };
