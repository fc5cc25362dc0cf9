#!/usr/bin/env bash
# Local PostgreSQL 15 + pgvector for the test suite and full mode, on 127.0.0.1 only.
#
#   infra/postgres.sh install   # apt: postgresql-15, postgresql-server-dev-15; pgvector built from
#                               # Debian trixie's `pgvector` source package (deb-src only)
#   infra/postgres.sh start     # initdb <repo>/.data/postgres if missing, start, create db `als` + vector
#   infra/postgres.sh stop      # pg_ctl stop -m fast, if running
#   infra/postgres.sh status    # exit 0 if running
#   infra/postgres.sh url       # print DATABASE_URL
#
# Port: 55432, or $PGPORT_TEST. Every subcommand is idempotent.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PG_VERSION=15
PG_BIN="/usr/lib/postgresql/$PG_VERSION/bin"
PG_CONFIG="$PG_BIN/pg_config"
PORT="${PGPORT_TEST:-55432}"
HOST=127.0.0.1
DB=als
DATA_ROOT="$ROOT/.data"
PGDATA_LINK="$DATA_ROOT/postgres"      # the cluster, or a symlink to it (see cluster_dir)
VECTOR_CONTROL="/usr/share/postgresql/$PG_VERSION/extension/vector.control"
TRIXIE_SRC_LIST=/etc/apt/sources.list.d/trixie-src.sources

log() { echo "postgres.sh: $*" >&2; }
die() { log "error: $*"; exit 1; }

# Postgres refuses to run as root: as root, run server tools as the `postgres` OS user.
as_pg() {
  if [ "$(id -u)" = 0 ]; then
    (cd / && runuser -u postgres -- "$@")
  else
    (cd / && "$@")
  fi
}

need_root() { [ "$(id -u)" = 0 ] || die "'$1' needs root (apt-get)"; }

# The mirror the existing Debian entries use (deb822 or one-line format); deb.debian.org by default.
debian_mirror() {
  local m=""
  m="$(grep -hsE '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null \
        | awk '{for(i=2;i<=NF;i++) print $i}' | grep -E '/debian/?$' | head -n1 || true)"
  if [ -z "$m" ]; then
    m="$(grep -hsE '^deb(-src)?[[:space:]]' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null \
          | sed -E 's/\[[^]]*\]//' | awk '{print $2}' | grep -E '/debian/?$' | head -n1 || true)"
  fi
  echo "${m:-http://deb.debian.org/debian}"
}

cmd_install() {
  local pkgs=()
  dpkg -s "postgresql-$PG_VERSION" >/dev/null 2>&1 || pkgs+=("postgresql-$PG_VERSION")
  if [ ! -f "$VECTOR_CONTROL" ]; then
    dpkg -s "postgresql-server-dev-$PG_VERSION" >/dev/null 2>&1 || pkgs+=("postgresql-server-dev-$PG_VERSION")
    dpkg -s dpkg-dev >/dev/null 2>&1 || pkgs+=(dpkg-dev)
    command -v make >/dev/null 2>&1 || pkgs+=(make)
    command -v gcc >/dev/null 2>&1 || pkgs+=(gcc)
  fi
  if [ "${#pkgs[@]}" -gt 0 ]; then
    need_root install
    log "apt-get install ${pkgs[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null
  fi
  # postgresql-common may have created and started the default `main` cluster on 5432: we don't use it.

  if [ -f "$VECTOR_CONTROL" ]; then
    log "pgvector already installed ($(grep -E '^default_version' "$VECTOR_CONTROL" | tr -d "'" ))"
    return 0
  fi
  need_root install
  # Source only (deb-src): binary packages never come from trixie, so nothing gets upgraded to it.
  if [ ! -f "$TRIXIE_SRC_LIST" ]; then
    local mirror keyring=/usr/share/keyrings/debian-archive-keyring.gpg
    mirror="$(debian_mirror)"
    log "adding deb-src for trixie from $mirror ($TRIXIE_SRC_LIST)"
    {
      echo "# Added by infra/postgres.sh: source packages only (pgvector), never binaries."
      echo "Types: deb-src"
      echo "URIs: $mirror"
      echo "Suites: trixie"
      echo "Components: main"
      [ -f "$keyring" ] && echo "Signed-By: $keyring"
    } >"$TRIXIE_SRC_LIST"
    apt-get update -qq
  fi
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  log "apt-get source pgvector/trixie in $tmp"
  (cd "$tmp" && apt-get source -qq pgvector/trixie >/dev/null 2>&1) \
    || (cd "$tmp" && apt-get source pgvector/trixie)
  local src
  src="$(find "$tmp" -mindepth 1 -maxdepth 1 -type d -name 'pgvector-*' | head -n1)"
  [ -n "$src" ] || die "apt-get source pgvector produced no source tree"
  log "building $(basename "$src") against $PG_CONFIG"
  make -C "$src" -s -j"$(nproc)" PG_CONFIG="$PG_CONFIG" >/dev/null
  make -C "$src" -s install PG_CONFIG="$PG_CONFIG" >/dev/null
  [ -f "$VECTOR_CONTROL" ] || die "pgvector install did not produce $VECTOR_CONTROL"
  log "pgvector installed ($(grep -E '^default_version' "$VECTOR_CONTROL" | tr -d "'"))"
}

# The cluster lives in <repo>/.data/postgres. If the postgres user cannot reach that path (a parent
# directory without o+x, e.g. a repo under /root), the cluster goes to
# /var/lib/postgresql/als/<hash of repo path> instead, and .data/postgres is a symlink to it.
cluster_dir() {
  if [ -L "$PGDATA_LINK" ]; then readlink -f "$PGDATA_LINK"; return; fi
  if [ -d "$PGDATA_LINK" ]; then echo "$PGDATA_LINK"; return; fi
  mkdir -p "$DATA_ROOT"
  if [ "$(id -u)" != 0 ] || runuser -u postgres -- test -x "$DATA_ROOT" 2>/dev/null; then
    echo "$PGDATA_LINK"
  else
    local alt
    alt="/var/lib/postgresql/als/$(printf '%s' "$ROOT" | sha1sum | cut -c1-12)"
    log "postgres cannot traverse $DATA_ROOT; cluster goes to $alt (symlinked from $PGDATA_LINK)"
    mkdir -p "$alt"
    chown postgres:postgres "$(dirname "$alt")" "$alt"
    ln -sfn "$alt" "$PGDATA_LINK"
    echo "$alt"
  fi
}

is_running() {
  local d
  [ -e "$PGDATA_LINK" ] || return 1
  d="$(cluster_dir)"
  [ -f "$d/PG_VERSION" ] || return 1
  as_pg "$PG_BIN/pg_ctl" -D "$d" status >/dev/null 2>&1
}

psql_admin() {
  "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$HOST" -p "$PORT" -U postgres "$@"
}

cmd_start() {
  [ -x "$PG_BIN/pg_ctl" ] || die "PostgreSQL $PG_VERSION is not installed: run infra/postgres.sh install"
  [ -f "$VECTOR_CONTROL" ] || die "pgvector is not installed: run infra/postgres.sh install"
  local d
  d="$(cluster_dir)"
  if [ ! -f "$d/PG_VERSION" ]; then
    log "initdb $d"
    mkdir -p "$d"
    [ "$(id -u)" = 0 ] && chown postgres:postgres "$d"
    chmod 0700 "$d"
    as_pg "$PG_BIN/initdb" -D "$d" -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 >/dev/null
  fi
  # A quarter of the memory (PostgreSQL's usual advice), between 512 MB and 8 GB: the bench's 100k
  # learnings per type hold 560 MB of HNSW graphs beside their rows, and a search whose graph pages
  # were evicted copies them back from the OS cache (about 200 pages a search at 512 MB).
  local shared_mb
  shared_mb=$(awk '/^MemTotal:/ { mb = int($2 / 1024 / 4); print (mb < 512 ? 512 : (mb > 8192 ? 8192 : mb)) }' /proc/meminfo)
  # Regenerated on every start; postgresql.conf includes it once.
  cat >"$d/als.conf" <<EOF
# Written by infra/postgres.sh start: local test tuning. Not crash-safe by design.
listen_addresses = '$HOST'
port = $PORT
unix_socket_directories = ''
fsync = off
synchronous_commit = off
full_page_writes = off
shared_buffers = ${shared_mb}MB
max_connections = 200
EOF
  [ "$(id -u)" = 0 ] && chown postgres:postgres "$d/als.conf"
  grep -q "^include_if_exists = 'als.conf'" "$d/postgresql.conf" \
    || echo "include_if_exists = 'als.conf'" >>"$d/postgresql.conf"
  # Loopback only, trust (initdb --auth=trust already writes this; re-assert for older clusters).
  if ! grep -qE '^host[[:space:]]+all[[:space:]]+all[[:space:]]+127\.0\.0\.1/32[[:space:]]+trust' "$d/pg_hba.conf"; then
    printf 'host all all 127.0.0.1/32 trust\nhost all all ::1/128 trust\n' >"$d/pg_hba.conf"
  fi

  if as_pg "$PG_BIN/pg_ctl" -D "$d" status >/dev/null 2>&1; then
    log "already running ($d, port $PORT)"
  else
    # The server log lives in the cluster dir: the postgres user can always write there.
    log "starting on $HOST:$PORT (log $PGDATA_LINK/server.log)"
    as_pg "$PG_BIN/pg_ctl" -D "$d" -l "$d/server.log" -w -t 60 start >/dev/null \
      || { tail -n 20 "$d/server.log" >&2; die "pg_ctl start failed"; }
  fi
  local i
  for i in $(seq 1 60); do
    "$PG_BIN/pg_isready" -q -h "$HOST" -p "$PORT" && break
    [ "$i" = 60 ] && die "not accepting connections on $HOST:$PORT"
    sleep 0.5
  done
  if [ -z "$(psql_admin -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$DB'")" ]; then
    psql_admin -d postgres -c "CREATE DATABASE $DB"
  fi
  PGOPTIONS="-c client_min_messages=warning" psql_admin -d "$DB" -c "CREATE EXTENSION IF NOT EXISTS vector"
  log "ready: $(cmd_url)"
}

cmd_stop() {
  if is_running; then
    log "stopping"
    as_pg "$PG_BIN/pg_ctl" -D "$(cluster_dir)" -m fast -w stop >/dev/null
  else
    log "not running"
  fi
}

cmd_url() { echo "postgres://postgres@$HOST:$PORT/$DB"; }

case "${1:-}" in
  install) cmd_install ;;
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) if is_running; then echo running; else echo stopped; exit 1; fi ;;
  url) cmd_url ;;
  *) echo "usage: $0 install|start|stop|status|url" >&2; exit 2 ;;
esac
