#!/usr/bin/env bash
# Installs Debian's HAProxy (the balancer of the deployment tests, test/deployment) and curl (their
# clients, each from its own loopback address), unless they are there already. Needs root, as CI
# and the developers' machines are.
set -euo pipefail
if command -v haproxy >/dev/null 2>&1 && command -v curl >/dev/null 2>&1; then exit 0; fi
echo "install-haproxy: installing haproxy and curl from Debian's packages" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq haproxy curl >/dev/null
