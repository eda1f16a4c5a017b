'use strict';

/**
 * package.json `prepack`: refuses `npm pack` and `npm publish` of the repository itself. Its
 * package.json names no platform packages and its files hold no addon (both come from
 * `npm run pack`, scripts/pack.js), so a tarball of it would install with the JS path only, on
 * every platform. scripts/pack.js packs staged copies without this script.
 *
 * npm also runs `prepack` before `npm run pack`, as the pre-script of the script named `pack`:
 * there npm's command (`npm_command`) is `run` (npm 11) or `run-script` (npm 10), and this lets it
 * be.
 */

const command = process.env.npm_command;
if (command !== 'run' && command !== 'run-script') {
  process.stderr.write('protobufjs-rustwriter: npm pack (or npm publish) of the repository makes a package without its ' +
    'platform packages, which installs without the native addon. Run `npm run pack` instead: it writes the main ' +
    'tarball, with the platform packages as optional dependencies, and one tarball per platform built, to dist/ ' +
    '(docs/platforms.md, "Publishing").\n');
  process.exitCode = 1;
}
