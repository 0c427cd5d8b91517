#!/usr/bin/env bash
# Second CI lane: the whole suite (typecheck + mocha) on Node 24 with OpenTelemetry JS 3.x
# (@opentelemetry/sdk-trace 3, api 1.10) and AI SDK 7, next to `npm test` (Node 20, OTel JS 2.x,
# AI SDK 6). Everything comes from the npm registry: the Node binary is the `node` package.
# The repository is copied (without node_modules) to a temporary directory and the copy's
# package.json gets the 3.x / v7 versions; the real package.json and lock are never touched.
#   LANE_KEEP=1         keep the temporary copy (its path is printed)
#   NODE24_VERSION      the `node` package version to install (default: latest 24.x)
#   LANE_UPDATE_LOCK=1  resolve the 3.x / v7 versions afresh and, once the lane passes, save them
#                       in .ci/node24/ (commit that folder)
#
# The lane installs from .ci/node24/package-lock.json with `npm ci` when that lock was made from
# the repository's current package.json (.ci/node24/source-package.json): a release published
# after a commit cannot change what CI ran on that commit. The last session's CI failed that way:
# a fresh resolve paired ai 7.0.185 with an @ai-sdk/mcp built on an older provider-utils. When
# package.json has changed since the lock was made, the lane resolves afresh (as before) and says
# so; LANE_UPDATE_LOCK=1 then refreshes the lock.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
started=$(date +%s)

# 1. Node 24 from the npm registry, cached in .tmp/ (git-ignored) between local runs.
NODE24_DIR="$ROOT/.tmp/node24"
NODE24_BIN="$NODE24_DIR/node_modules/node/bin"
if ! "$NODE24_BIN/node" --version 2>/dev/null | grep -q '^v24\.'; then
  mkdir -p "$NODE24_DIR"
  [ -f "$NODE24_DIR/package.json" ] || echo '{"name":"node24-lane","private":true}' >"$NODE24_DIR/package.json"
  npm install --no-audit --no-fund --loglevel=error --prefix "$NODE24_DIR" "node@${NODE24_VERSION:-24}" >/dev/null
fi
export PATH="$NODE24_BIN:$PATH" # npm, npx, tsx and mocha now run on Node 24
node --version | grep -q '^v24\.' || { echo "lane-node24: expected Node 24, got $(node --version)" >&2; exit 1; }

# 2. A copy of the repository with the current lines substituted.
LANE=$(mktemp -d "${TMPDIR:-/tmp}/loopguard-node24.XXXXXX")
cleanup() { if [ "${LANE_KEEP:-0}" = 1 ]; then echo "lane-node24: kept $LANE"; else rm -rf "$LANE"; fi; }
trap cleanup EXIT
tar -C "$ROOT" --exclude=./node_modules --exclude=./.git --exclude=./.tmp --exclude=./dist -cf - . | tar -C "$LANE" -xf -
cd "$LANE"
LOCK_DIR="$ROOT/.ci/node24"
if [ "${LANE_UPDATE_LOCK:-0}" != 1 ] && [ -f "$LOCK_DIR/package-lock.json" ] && cmp -s "$LOCK_DIR/source-package.json" package.json; then
  cp "$LOCK_DIR/package.json" "$LOCK_DIR/package-lock.json" .
  echo "lane-node24: installing the locked 3.x / v7 versions (.ci/node24/package-lock.json)"
  npm ci --no-audit --no-fund --loglevel=error
  locked=1
else
  if [ "${LANE_UPDATE_LOCK:-0}" != 1 ]; then
    echo "lane-node24: package.json changed since .ci/node24/ was made: resolving the 3.x / v7 versions afresh (refresh the lock with LANE_UPDATE_LOCK=1)"
  fi
  locked=0
fi
if [ "$locked" = 0 ]; then
node - <<'EOF'
// Rewrites every dependency section of the copy: each OpenTelemetry package to its 3.x line
// (sdk-trace-base and sdk-trace-node, which 3.x dropped, to @opentelemetry/sdk-trace), the
// API to 1.10, AI SDK 6 to 7 with its provider types, @types/node to 24.
const fs = require('node:fs');
const pkg = JSON.parse(fs.readFileSync('package.json', 'utf8'));
// By name, not by the range found: a peer range may span both lines.
const STABLE = '^3.1.1';
const STABLE_NAMES = ['core', 'resources', 'sdk-trace', 'sdk-metrics', 'sdk-logs', 'context-async-hooks'].map((name) => `@opentelemetry/${name}`);
const EXPERIMENTAL = '^0.301.0'; // exporters, otlp-*, sdk-node: the 0.x packages released with 3.x
const pinned = {
  '@opentelemetry/api': '~1.10.0',
  '@opentelemetry/api-logs': null, // keep: still the logs API for api < 1.10, no 3.x release
  '@opentelemetry/semantic-conventions': null, // keep: 1.x on both lines
  ai: '^7.0.0',
  '@ai-sdk/provider': '^4.0.0',
  '@ai-sdk/mcp': '^2.0.0', // the AI SDK 7 line of the MCP client (1.x is AI SDK 6's)
  '@types/node': '^24.0.0',
};
const renamed = { '@opentelemetry/sdk-trace-base': '@opentelemetry/sdk-trace', '@opentelemetry/sdk-trace-node': '@opentelemetry/sdk-trace' };
const changed = [];
for (const section of ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies']) {
  const deps = pkg[section];
  if (!deps) continue;
  const out = {};
  for (const [name, range] of Object.entries(deps)) {
    const target = renamed[name] ?? name;
    let next = range;
    if (name in pinned) next = pinned[name] ?? range;
    else if (target.startsWith('@opentelemetry/')) next = STABLE_NAMES.includes(target) ? STABLE : EXPERIMENTAL;
    out[target] = next;
    if (target !== name || next !== range) changed.push(`${section}: ${name}@${range} -> ${target}@${next}`);
  }
  pkg[section] = out;
}
// AI SDK 7's OpenTelemetry integration (GenAI spans, LegacyOpenTelemetry), tested on this lane only.
pkg.devDependencies['@ai-sdk/otel'] = '^1.0.0';
changed.push('devDependencies: + @ai-sdk/otel@^1.0.0');
fs.writeFileSync('package.json', JSON.stringify(pkg, null, 2) + '\n');
fs.rmSync('package-lock.json', { force: true });
console.log(changed.map((line) => `lane-node24: ${line}`).join('\n'));
EOF
npm install --no-audit --no-fund --loglevel=error
# The AI SDK pins exact versions of its shared packages, and its packages ship on separate
# trains: a fresh install can pair ai@7.x.N with an @ai-sdk/mcp built on an older
# @ai-sdk/provider-utils, and the two copies' schema types do not match (TS2322 in
# test/integrations/mcp, seen with ai 7.0.185 + @ai-sdk/mcp 2.0.99). Pin the shared packages to the
# versions `ai` itself depends on, and install again when that changed anything.
if node - <<'EOF'
const fs = require('node:fs');
const ai = JSON.parse(fs.readFileSync('node_modules/ai/package.json', 'utf8'));
const pkg = JSON.parse(fs.readFileSync('package.json', 'utf8'));
const overrides = {};
for (const name of ['@ai-sdk/provider-utils', '@ai-sdk/provider']) {
  const wanted = ai.dependencies?.[name];
  if (typeof wanted === 'string' && /^\d+\.\d+\.\d+$/.test(wanted)) overrides[name] = wanted;
}
if (Object.keys(overrides).length === 0) process.exit(1);
pkg.overrides = { ...pkg.overrides, ...overrides };
// npm requires a direct dependency to equal its override: follow ai's version there too.
for (const section of ['dependencies', 'devDependencies']) {
  for (const name of Object.keys(overrides)) if (pkg[section]?.[name] !== undefined) pkg[section][name] = overrides[name];
}
fs.writeFileSync('package.json', JSON.stringify(pkg, null, 2) + '\n');
console.log(`lane-node24: AI SDK shared packages pinned to ai@${ai.version}'s: ${Object.entries(overrides).map(([name, version]) => `${name}@${version}`).join(', ')}`);
EOF
then
  npm install --no-audit --no-fund --loglevel=error
fi
fi
installed=$(date +%s)

# 3. Check that the lane really runs what it claims, then the same commands as `npm test`.
node --input-type=module - <<'EOF'
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
const require = createRequire(`${process.cwd()}/package.json`);
// Read from node_modules: the 3.x packages export no ./package.json.
const version = (name) => JSON.parse(readFileSync(`node_modules/${name}/package.json`, 'utf8')).version;
const expect = { '@opentelemetry/sdk-trace': /^3\./, '@opentelemetry/api': /^1\.10\./, '@opentelemetry/sdk-metrics': /^3\./, '@opentelemetry/sdk-logs': /^3\./, '@opentelemetry/core': /^3\./, ai: /^7\./, '@ai-sdk/provider': /^4\./ };
const report = Object.entries(expect).map(([name, pattern]) => {
  const found = version(name);
  if (!pattern.test(found)) throw new Error(`lane-node24: ${name} is ${found}, expected ${pattern}`);
  return `${name}@${found}`;
});
for (const gone of ['@opentelemetry/sdk-trace-base', '@opentelemetry/sdk-trace-node']) {
  try {
    require.resolve(gone);
    throw new Error(`lane-node24: ${gone} is still installed; 3.x code must not need it`);
  } catch (error) {
    if (error.code !== 'MODULE_NOT_FOUND') throw error;
  }
}
console.log(`lane-node24: node ${process.version}, ${report.join(', ')}`);
EOF
npx tsc -p tsconfig.json --noEmit
npx mocha
if [ "${LANE_UPDATE_LOCK:-0}" = 1 ]; then
  mkdir -p "$LOCK_DIR"
  cp package.json package-lock.json "$LOCK_DIR/"
  cp "$ROOT/package.json" "$LOCK_DIR/source-package.json"
  echo "lane-node24: saved the versions this run passed with in .ci/node24/ (commit it)"
fi
finished=$(date +%s)
echo "lane-node24: passed in $((finished - started)) s (install $((installed - started)) s, typecheck + tests $((finished - installed)) s)"
