#!/usr/bin/env node
// Thin launcher: the CLI is compiled to dist/ by `npm ci` (the `prepare` script).
import('../dist/src/cli/main.js').then((m) => m.main(process.argv.slice(2))).then(
  (code) => { process.exitCode = code ?? 0; },
  (error) => { console.error(error?.stack ?? String(error)); process.exitCode = 1; },
);
