#!/bin/sh
# Container healthcheck of the API server: healthy when GET /health answers 200 in time, which
# means the process serves HTTP and its storage takes a write (see README, "Supervision").
#   Dockerfile: HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 CMD ["infra/container/healthcheck.sh"]
#   compose:    healthcheck: { test: ["CMD", "infra/container/healthcheck.sh"], interval: 15s, timeout: 5s, start_period: 60s, retries: 3 }
# Uses Bun's fetch, so the image needs no curl. PORT is the server's own setting (default 8081).
set -eu
url="http://127.0.0.1:${PORT:-8081}/health"
exec bun -e "const r = await fetch('$url', { signal: AbortSignal.timeout(4000) }).catch(() => undefined); process.exit(r?.status === 200 ? 0 : 1)"
