#!/usr/bin/env bash
# Installs what the project needs to run, idempotently: Bun (from the npm registry, since no other
# download route exists here), the workspace dependencies, and the local embedding model files.
# Sourced by scripts/serve and scripts/test; puts Bun on PATH.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUN_VERSION=1.3.14
TOOLS="$ROOT/.tools"

if [ ! -x "$TOOLS/bin/bun" ] || [ "$("$TOOLS/bin/bun" --version)" != "$BUN_VERSION" ]; then
  echo "bootstrap: installing bun $BUN_VERSION from the npm registry" >&2
  tmp="$(mktemp -d)"
  # npm pack fetches the platform package's tarball as is; npm install would need bun's postinstall.
  (cd "$tmp" && npm pack --silent "@oven/bun-linux-x64@$BUN_VERSION" >/dev/null 2>&1)
  mkdir -p "$TOOLS/bin"
  tar -xzf "$tmp"/oven-bun-linux-x64-*.tgz -C "$tmp"
  install -m 0755 "$tmp/package/bin/bun" "$TOOLS/bin/bun"
  ln -sf bun "$TOOLS/bin/bunx"
  rm -rf "$tmp"
fi
export PATH="$TOOLS/bin:$PATH"

stamp="$ROOT/node_modules/.bootstrap-stamp"
if [ ! -f "$stamp" ] || [ "$ROOT/bun.lock" -nt "$stamp" ] || [ "$ROOT/package.json" -nt "$stamp" ]; then
  (cd "$ROOT" && bun install --frozen-lockfile)
  touch "$stamp"
fi

bash "$ROOT/scripts/install-model.sh"

# The worker as one module for plain Node (apps/worker/build.ts says why): about a second.
(cd "$ROOT" && bun apps/worker/build.ts)
