#!/usr/bin/env bash
# Installs Debian's Prometheus (prometheus and promtool), which the metrics test (test/deployment)
# runs against the API and the worker on loopback, unless it is there already. Needs root, as CI and
# the developers' machines are. Without its recommendations (node exporter); the package's own
# service is not used: the test starts Prometheus with a configuration of its own.
set -euo pipefail
if command -v prometheus >/dev/null 2>&1 && command -v promtool >/dev/null 2>&1; then exit 0; fi
echo "install-prometheus: installing prometheus from Debian's packages" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends prometheus >/dev/null
