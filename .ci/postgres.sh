#!/usr/bin/env bash
# .ci/postgres.sh — a throwaway PostgreSQL cluster for corpusbot's tests.
#
#   eval "$(.ci/postgres.sh start)"   # installs (Debian packages) if needed, initialises, starts;
#                                     # prints: export CORPUSBOT_TEST_POSTGRES=...
#   .ci/postgres.sh stop              # stops it (the data directory stays, for the next start)
#   .ci/postgres.sh destroy           # stops it and removes the data directory
#
# Idempotent: start on a running cluster only prints the export line again.
# The server refuses to run as root, so it runs as the postgres user (or as
# the calling user when not root). It listens on 127.0.0.1 only.
set -euo pipefail

PGPORT="${PGPORT:-55432}"
PGDATA="${PGDATA:-/tmp/corpusbot-pgdata}"
PGSOCK="${PGSOCK:-/tmp}"

bindir() {
	local d
	d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
	if [ -z "$d" ]; then
		echo "postgres.sh: installing postgresql" >&2
		if [ "$(id -u)" = 0 ]; then
			apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
		else
			sudo apt-get update -qq >&2 && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
		fi
		d=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
	fi
	echo "$d"
}

# as runs a command as the cluster's owner.
as() {
	if [ "$(id -u)" = 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

owner() { if [ "$(id -u)" = 0 ]; then echo postgres; else id -un; fi; }

start() {
	local bin
	bin=$(bindir)
	if [ ! -s "$PGDATA/PG_VERSION" ]; then
		mkdir -p "$PGDATA"
		[ "$(id -u)" = 0 ] && chown postgres: "$PGDATA"
		chmod 700 "$PGDATA"
		as "$bin/initdb" -D "$PGDATA" -U "$(owner)" --auth=trust -E UTF8 --locale=C.UTF-8 >&2 ||
			as "$bin/initdb" -D "$PGDATA" -U "$(owner)" --auth=trust -E UTF8 >&2
	fi
	if ! as "$bin/pg_ctl" -D "$PGDATA" status >/dev/null 2>&1; then
		as "$bin/pg_ctl" -D "$PGDATA" -l "$PGDATA/server.log" -w \
			-o "-p $PGPORT -k $PGSOCK -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=off -c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track_planning=on" start >&2
	fi
	echo "export CORPUSBOT_TEST_POSTGRES='postgres://$(owner)@127.0.0.1:$PGPORT/postgres?sslmode=disable'"
}

stop() {
	local bin
	bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
	[ -n "$bin" ] && [ -s "$PGDATA/PG_VERSION" ] || return 0
	if as "$bin/pg_ctl" -D "$PGDATA" status >/dev/null 2>&1; then
		as "$bin/pg_ctl" -D "$PGDATA" -m fast -w stop >&2
	fi
}

case "${1:-start}" in
start) start ;;
stop) stop ;;
destroy) stop && rm -rf "$PGDATA" ;;
*) echo "usage: $0 start|stop|destroy" >&2; exit 2 ;;
esac
