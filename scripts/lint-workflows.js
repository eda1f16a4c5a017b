'use strict';

/**
 * Part of `npm run lint`: actionlint over the GitHub Actions workflows (.github/workflows/*.yml),
 * with shellcheck over their `run:` scripts.
 * - actionlint, pinned, is installed on first use with `go install` from the Go module proxy into
 *   target/tools/go/bin (ignored by git, like all of target/); without Go this fails with one line
 *   saying what to install.
 * - shellcheck comes from Debian: installed as root when missing, as the platform scripts install
 *   their tools (scripts/platforms.js); otherwise this names the `apt-get install` to run.
 *   actionlint would silently skip the scripts without it, so it is required, not optional.
 */

const fs = require('fs');
const path = require('path');
const { ROOT, run, probe, has, ensureApt } = require('./platforms');

/** Pinned: a new actionlint (new checks, new runner labels) is a deliberate change here. */
const ACTIONLINT_VERSION = 'v1.7.12';
const GOBIN = path.join(ROOT, 'target', 'tools', 'go', 'bin');
const ACTIONLINT = path.join(GOBIN, process.platform === 'win32' ? 'actionlint.exe' : 'actionlint');
const WORKFLOWS = path.join('.github', 'workflows');

/** @returns {string|null} The first line of the installed actionlint's `--version`, if any */
function installedVersion() {
  const out = fs.existsSync(ACTIONLINT) ? probe(ACTIONLINT, ['--version']) : null;
  return out === null ? null : out.split('\n')[0].trim();
}

if (installedVersion() !== ACTIONLINT_VERSION) {
  if (!has('go')) {
    process.stderr.write(`lint-workflows: actionlint ${ACTIONLINT_VERSION} is installed with Go, which is not on the PATH: install Go 1.25 or later (https://go.dev/doc/install), then run this again\n`);
    process.exit(1);
  }
  run('go', ['install', `github.com/rhysd/actionlint/cmd/actionlint@${ACTIONLINT_VERSION}`], { env: { ...process.env, GOBIN } });
  if (installedVersion() !== ACTIONLINT_VERSION) throw new Error(`go install left ${ACTIONLINT} at ${installedVersion()}, not ${ACTIONLINT_VERSION}`);
}
ensureApt(['shellcheck'], () => has('shellcheck'), 'actionlint\'s check of the workflows\' run: scripts');

const files = fs.readdirSync(path.join(ROOT, WORKFLOWS)).filter((f) => /\.ya?ml$/.test(f)).sort().map((f) => path.join(WORKFLOWS, f));
if (!files.length) throw new Error(`no workflow files in ${WORKFLOWS}`);
// -pyflakes= : no Python in the workflows, and nothing should depend on whether pyflakes is installed.
run(ACTIONLINT, ['-shellcheck', 'shellcheck', '-pyflakes=', ...files]);
process.stdout.write(`lint-workflows: actionlint ${ACTIONLINT_VERSION} found nothing in ${files.join(', ')}\n`);
