#!/usr/bin/env node
// Thin launcher for the compiled CLI: dist/ is built by `npm run build`, and by `prepack`
// before `npm pack` / `npm publish`, so the published package ships it and runs no install script.
import('../dist/src/cli/main.js').then((m) => m.main(process.argv.slice(2))).then(
  (code) => { process.exitCode = code ?? 0; },
  (error) => { console.error(error?.stack ?? String(error)); process.exitCode = 1; },
);
