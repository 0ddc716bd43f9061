#!/usr/bin/env bash
# A throwaway PostgreSQL server for tests and benchmarks, listening on 127.0.0.1 only.
#
#   scripts/postgres.sh bindir     prints the directory of the server binaries; exits 1 if none
#   scripts/postgres.sh start      initdb into a fresh temp directory, start the server on a free
#                                  port, create the database "toolplane"; prints the connection
#                                  URL on line 1 and the directory to pass to `stop` on line 2
#   scripts/postgres.sh stop DIR   stops that server and removes DIR
#
# With TOOLPLANE_PG_TEMPLATE naming an existing directory (the test run's global setup makes one
# and removes it after the run), the first `start` runs initdb once into it, under a lock, and
# every start copies that cluster instead of running initdb again: a copy takes about a fifth of
# initdb's CPU. The copies share the template's superuser password and nothing else.
#
# Install the binaries on Debian/Ubuntu with:
#   apt-get install -y --no-install-recommends postgresql
set -euo pipefail

MARKER=.toolplane-postgres

bindir() {
  local dir
  # Debian installs each major version side by side; take the newest.
  for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [[ -x "$dir/initdb" && -x "$dir/pg_ctl" ]]; then
      echo "$dir"
      return 0
    fi
  done
  if command -v pg_config >/dev/null 2>&1; then
    dir=$(pg_config --bindir)
    if [[ -x "$dir/initdb" && -x "$dir/pg_ctl" ]]; then
      echo "$dir"
      return 0
    fi
  fi
  if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
    dirname "$(command -v initdb)"
    return 0
  fi
  echo "no PostgreSQL server binaries (initdb, pg_ctl) found; install them with:" >&2
  echo "  apt-get install -y --no-install-recommends postgresql" >&2
  return 1
}

# initdb and the server refuse to run as root, so root runs them as the postgres user.
as_owner() {
  if [[ "$(id -u)" -eq 0 ]]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

free_port() {
  node -e '
    const server = require("node:net").createServer();
    server.listen(0, "127.0.0.1", () => {
      console.log(server.address().port);
      server.close();
    });
  '
}

# A new cluster in DIR/data whose superuser has a fresh random password, printed on stdout.
init_cluster() {
  local bin=$1 dir=$2 password
  password=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
  printf '%s\n' "$password" >"$dir/pwfile"
  if [[ "$(id -u)" -eq 0 ]]; then
    chown -R postgres "$dir"
  fi
  # Local socket connections are trusted (only the owner can reach the socket directory);
  # TCP connections need the password, so tests see real authentication.
  as_owner "$bin/initdb" --pgdata="$dir/data" --username=postgres --pwfile="$dir/pwfile" \
    --auth-local=trust --auth-host=scram-sha-256 --encoding=UTF8 --no-locale \
    --no-instructions >"$dir/initdb.log" 2>&1 || {
    cat "$dir/initdb.log" >&2
    rm -f "$dir/pwfile"
    return 1
  }
  rm -f "$dir/pwfile"
  printf '%s\n' "$password"
}

# Copies the template cluster into DIR/data, making the template first if it has none yet;
# prints the template's password.
copy_template() {
  local bin=$1 dir=$2 template=$TOOLPLANE_PG_TEMPLATE
  (
    flock 9
    if [[ ! -f "$template/password" ]]; then
      if ! init_cluster "$bin" "$template" >"$template/password.new"; then
        rm -rf "$template/data" "$template/password.new"
        exit 1
      fi
      mv "$template/password.new" "$template/password"
    fi
  ) 9>"$template/.lock" || return 1
  cp -a "$template/data" "$dir/data"
  cat "$template/password"
}

start() {
  local bin dir password port attempt
  bin=$(bindir)
  dir=$(mktemp -d -t toolplane-pg.XXXXXX)
  touch "$dir/$MARKER"
  mkdir "$dir/socket"
  if [[ -n "${TOOLPLANE_PG_TEMPLATE:-}" ]]; then
    password=$(copy_template "$bin" "$dir") || {
      rm -rf "$dir"
      return 1
    }
    if [[ "$(id -u)" -eq 0 ]]; then
      chown postgres "$dir" "$dir/socket"
    fi
  else
    password=$(init_cluster "$bin" "$dir") || {
      rm -rf "$dir"
      return 1
    }
  fi
  # A free port can be taken between choosing and binding it: try a few.
  for attempt in 1 2 3 4 5; do
    port=$(free_port)
    # A throwaway cluster needs no crash safety: fsync off keeps tests fast.
    if as_owner "$bin/pg_ctl" --pgdata="$dir/data" --log="$dir/server.log" --wait \
      --timeout=60 --silent start \
      --options="-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$dir/socket -c fsync=off -c max_connections=200" \
      >/dev/null; then
      as_owner "$bin/createdb" --host="$dir/socket" --port="$port" --username=postgres toolplane
      echo "postgres://postgres:$password@127.0.0.1:$port/toolplane"
      echo "$dir"
      return 0
    fi
    if [[ $attempt -eq 5 ]]; then
      cat "$dir/server.log" >&2 || true
    fi
  done
  rm -rf "$dir"
  return 1
}

stop() {
  local dir=${1:?usage: postgres.sh stop DIR}
  if [[ ! -f "$dir/$MARKER" ]]; then
    echo "$dir was not made by postgres.sh start; leaving it alone" >&2
    return 1
  fi
  if [[ -f "$dir/data/postmaster.pid" ]]; then
    as_owner "$(bindir)/pg_ctl" --pgdata="$dir/data" --mode=immediate --wait --silent stop \
      >/dev/null || true
  fi
  rm -rf "$dir"
}

case "${1:-}" in
  bindir) bindir ;;
  start) start ;;
  stop) stop "${2:-}" ;;
  *)
    echo "usage: postgres.sh bindir | start | stop DIR" >&2
    exit 2
    ;;
esac
