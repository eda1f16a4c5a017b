'use strict';

/**
 * Differences fuzz:schemas found that are fixed: each entry's `repro` replays the shrunk case, which must
 * pass now (test/fuzz-schemas.test.js). An entry leaves known-bugs.js for here with its fix.
 */

const FIXED_BUGS = [
  {
    bug: 'nested-setup',
    title: 'after Type#add or #remove, a compiled encoder writes the messages of a nested Type itself, so the ' +
      "nested Type is not set up again as protobufjs's encoder sets it up (by calling its encode), and its " +
      'fromObject stays the one generated before the change (it drops an added field)',
    fix: 'Compiled encoders call a nested Type\'s own encode unless it is its compiled one',
    /** Found as case 200056 (and 200035, an error instead of bytes) on both versions, with the compiled encoders. */
    repro: {
      version: '8',
      path: 'js', // the addon plays no part
      desc: {
        seed: 200056,
        schema: {
          syntax: 'proto3',
          build: 'parse',
          keepCase: false,
          resolveAll: false,
          fileFeatures: null,
          enums: [],
          types: [
            {
              name: 'fz.T0',
              parent: null,
              group: false,
              fields: [
                {
                  id: 8,
                  name: 'the_field_8',
                  kind: 'message',
                  type: 'fz.T0.N1',
                  label: 'repeated',
                },
              ],
              oneofs: [],
            },
            { name: 'fz.T0.N1', parent: 'fz.T0', group: false, fields: [], oneofs: [] },
          ],
          extensions: [],
        },
        options: { customBuffer: false, recursionLimit: null },
        messages: [
          {
            type: 'fz.T0',
            value: {
              k: 'msg',
              type: 'fz.T0',
              mode: 'plain',
              fields: [
                [
                  8,
                  {
                    k: 'arr',
                    elems: [{ k: 'msg', type: 'fz.T0.N1', mode: 'plain', fields: [] }],
                  },
                  'own',
                ],
              ],
            },
          },
          {
            type: 'fz.T0.N1',
            value: { k: 'msg', type: 'fz.T0.N1', mode: 'fromObject', fields: [] },
          },
        ],
        intos: [],
        after: {
          add: [
            {
              type: 'fz.T0.N1',
              field: { id: 28, name: 'added_28', kind: 'scalar', type: 'int32', label: '' },
              value: { k: 'num', v: 0 },
            },
          ],
          remove: [],
          recursionLimit: null,
          customBuffer: false,
        },
      },
    },
  },
];

module.exports = { FIXED_BUGS };
