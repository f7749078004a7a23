#!/usr/bin/env bash
# A throw-away PostgreSQL server for the tests, reachable only through a Unix socket.
#
#   .ci/postgres.sh start DIR   initdb into DIR/data, start it, print the libpq DSN on stdout
#   .ci/postgres.sh stop DIR    stop it (DIR can then be deleted)
#
# initdb refuses to run as root, so as root the server runs as $C45RULES_PG_USER (default `postgres`, created
# if missing); otherwise as the caller. Trust authentication and no TCP port: the socket in
# DIR is the only way in. fsync is off because the data is thrown away.
set -euo pipefail

cmd=${1:?usage: postgres.sh start|stop DIR}
dir=${2:?usage: postgres.sh start|stop DIR}
port=${C45RULES_PG_PORT:-5432}

pg_bin() {
    local bin
    bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
    if [[ -z $bin || ! -x $bin/initdb ]]; then
        echo "postgres.sh: no PostgreSQL server found under /usr/lib/postgresql (apt-get install postgresql)" >&2
        exit 1
    fi
    echo "$bin"
}

if [[ $(id -u) -eq 0 ]]; then
    owner=${C45RULES_PG_USER:-postgres}
    id -u "$owner" >/dev/null 2>&1 || useradd --system --user-group --no-create-home --shell /usr/sbin/nologin "$owner"
    as_owner() { runuser -u "$owner" -- "$@"; }
else
    owner=$(id -un)
    as_owner() { "$@"; }
fi

bin=$(pg_bin)
case $cmd in
start)
    mkdir -p "$dir"
    chown "$owner" "$dir" 2>/dev/null || true
    as_owner "$bin/initdb" -D "$dir/data" -U "$owner" -A trust -E UTF8 --locale=C --no-sync >"$dir/initdb.log" 2>&1 \
        || { cat "$dir/initdb.log" >&2; exit 1; }
    cat >>"$dir/data/postgresql.conf" <<CONF
listen_addresses = ''
unix_socket_directories = '$dir'
port = $port
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 50
CONF
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start >&2 \
        || { cat "$dir/server.log" >&2; exit 1; }
    echo "host=$dir port=$port dbname=postgres user=$owner"
    ;;
stop)
    if [[ -f $dir/data/postmaster.pid ]]; then
        as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w -t 60 stop >&2 || true
    fi
    ;;
*)
    echo "usage: postgres.sh start|stop DIR" >&2
    exit 2
    ;;
esac
