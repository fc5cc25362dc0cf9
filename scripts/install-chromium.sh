#!/usr/bin/env bash
# Installs Debian's chromium for the console's browser tests (playwright-core drives it; no browser
# build is downloaded), unless one is there already. Needs root, as CI and the developers' machines are.
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then exit 0; fi
echo "install-chromium: installing chromium from Debian's packages" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq chromium >/dev/null
