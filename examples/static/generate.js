'use strict';

/**
 * Regenerates metrics.js, the static code pbjs (protobufjs-cli, a devDependency) makes of
 * metrics.proto, as an app's build step would:
 *
 *   node examples/static/generate.js
 *
 * With `--check` it writes nothing and exits with 1 if the committed metrics.js differs from what
 * pbjs makes now (`npm run examples` checks that, so a changed .proto or a new protobufjs-cli
 * cannot leave a stale file behind).
 */

const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const pbjs = path.join(path.dirname(require.resolve('protobufjs-cli/package.json')), 'bin', 'pbjs');
const output = path.join(__dirname, 'metrics.js');

const code = execFileSync(process.execPath, [pbjs, '-t', 'static-module', '-w', 'commonjs', path.join(__dirname, 'metrics.proto')], { encoding: 'utf8' });
if (process.argv.includes('--check')) {
  // Compared without carriage returns, in case git checked the file out with CRLF line ends.
  if (fs.readFileSync(output, 'utf8').replace(/\r\n/g, '\n') !== code) {
    console.error('examples/static/metrics.js is not what pbjs makes of metrics.proto now: run node examples/static/generate.js');
    process.exit(1);
  }
  console.log('examples/static/metrics.js is what pbjs makes of metrics.proto');
} else {
  fs.writeFileSync(output, code);
  console.log(`wrote examples/static/metrics.js (${code.length} characters)`);
}
