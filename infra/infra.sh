#!/usr/bin/env bash
# Local infrastructure for machines without a Docker engine: the same components as
# docker-compose.yml, provisioned from package registries and run as loopback processes.
#
#   infra.sh up|down|kill|pause|resume|status|logs [component...]     components: mongo kafka redis minio mail
#
# Downloads and builds are cached in $RASEED_CACHE (default ~/.cache/raseed); data and
# logs live in $RASEED_DATA (default ~/.local/share/raseed) and survive restarts.
set -euo pipefail

INFRA_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CACHE="${RASEED_CACHE:-$HOME/.cache/raseed}"
DATA="${RASEED_DATA:-$HOME/.local/share/raseed}"
RUN="$DATA/run"
LOGS="$DATA/logs"
BIN="$CACHE/bin"

KAFKA_VERSION=3.9.2
FERRETDB_VERSION=v1.24.2
MINIO_VERSION=latest
MAILDEV_VERSION=2.2.1

MONGO_PORT=27017
KAFKA_PORT=9092
KAFKA_CONTROLLER_PORT=9093
REDIS_PORT=6379
MINIO_PORT=9000
MINIO_CONSOLE_PORT=9001
SMTP_PORT=1025
MAIL_HTTP_PORT=1080
MINIO_USER="${S3_ACCESS_KEY:-raseed}"
MINIO_PASSWORD="${S3_SECRET_KEY:-raseed-secret}"

ALL=(mongo kafka redis minio mail)

say() { printf '\033[1m[infra]\033[0m %s\n' "$*"; }
die() { printf '\033[31m[infra] %s\033[0m\n' "$*" >&2; exit 1; }
need() { command -v "$1" >/dev/null 2>&1 || die "$2"; }

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

wait_port() { # name port seconds
  local i
  for ((i = 0; i < $3 * 4; i++)); do
    port_open "$2" && return 0
    sleep 0.25
  done
  die "$1 did not open port $2 within $3 s; see $LOGS/$1.log"
}

# A process that has exited but was not yet reaped (a zombie) counts as gone.
alive() { local state; state=$(ps -o stat= -p "$1" 2>/dev/null) && [ -n "$state" ] && [[ $state != Z* ]]; }
pid_alive() { [ -f "$RUN/$1.pid" ] && alive "$(cat "$RUN/$1.pid")"; }

# launch NAME COMMAND...: detached from this shell, output to the component's log.
launch() {
  local name=$1
  shift
  rm -f "$RUN/$name.pid"
  mkdir -p "$RUN" "$LOGS"
  # The process records its own pid (setsid may fork), leads its own process group, and outlives this shell.
  nohup setsid bash -c 'echo $$ >"$0"; exec "$@"' "$RUN/$name.pid" "$@" >>"$LOGS/$name.log" 2>&1 </dev/null &
  local i
  for ((i = 0; i < 40; i++)); do
    [ -s "$RUN/$name.pid" ] && return 0
    sleep 0.05
  done
}

# Go builds print one line per compiled package; show a running count instead
# (in place on a terminal, every 100 packages in a log).
progress() {
  local tty=0
  [ -t 1 ] && tty=1
  awk -v what="$1" -v tty="$tty" '{
    n++
    if (tty) { printf "\r  %s: %d packages compiled", what, n; fflush() }
    else if (n % 100 == 0) { printf "  %s: %d packages compiled\n", what, n; fflush() }
  } END { if (tty && n) print ""; else if (n) printf "  %s: %d packages compiled\n", what, n }'
}

go_env() {
  need go "Go is missing: install Go 1.22 or newer (https://go.dev/doc/install) and re-run."
  export GOPATH="$CACHE/go" GOCACHE="$CACHE/go-build" GOFLAGS=-buildvcs=false
}

# ---------------------------------------------------------------- mongo (FerretDB on PostgreSQL, or mongod)
# FerretDB 1.x speaks the MongoDB wire protocol over a PostgreSQL database of its own.
# Its SQLite backend filters documents in its own process, so every read scans the
# whole collection there (measured: 100 ms for an _id lookup at 50,000 documents, 1 s
# for any other field); PostgreSQL evaluates the same filters about 50 times faster.
PG_PORT=5433
PG_DIR="$DATA/postgres"
# As root, PostgreSQL runs as the postgres account, which may not reach $DATA (under a
# private home): its files then live in that account's home, one folder per $DATA.
if [ "$(id -u)" = 0 ]; then
  PG_DIR="/var/lib/postgresql/raseed-$(printf '%s' "$DATA" | md5sum | cut -c1-8)"
fi
pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }
# PostgreSQL refuses to run as root: then it runs as the postgres account Debian's package creates.
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

# FerretDB 1.x evaluates most of a query in its own process: it sends equality filters to
# PostgreSQL as `_jsonb->'field' @> value`, which its btree indexes cannot serve, and sorts,
# skips, limits and counts every matching document itself. Two patches make its indexes work:
# - gin-indexes.patch gives each index on top-level fields a GIN (jsonb_path_ops) companion
#   that serves those equalities (gin-indexes.sql adds them to indexes made before, at start);
# - pushdown.patch has PostgreSQL sort, skip, limit and count when it evaluates the whole
#   filter (top-level equalities), so a page of the newest orders reads ten rows by index,
#   and sends a lookup by a list of ids as one comparison that the `_id` index serves.
# A third saves round trips: single-statement.patch sends an insert of one batch, or an update of
# one document, as that one statement (atomic by itself) instead of wrapping it in BEGIN and COMMIT.
FERRETDB_PATCHES=("$INFRA_DIR/ferretdb/gin-indexes.patch" "$INFRA_DIR/ferretdb/pushdown.patch" "$INFRA_DIR/ferretdb/single-statement.patch")
ferretdb_build() { echo "$FERRETDB_VERSION $(cat "${FERRETDB_PATCHES[@]}" | sha256sum | cut -c1-12)"; }

mongo_provision() {
  command -v mongod >/dev/null 2>&1 && return 0
  if [ -z "$(pg_bin)" ]; then
    [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 ||
      die "PostgreSQL is missing: install it (apt-get install postgresql) and re-run."
    say "installing PostgreSQL from Debian's packages (FerretDB's storage)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql >/dev/null 2>&1 ||
      { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql >/dev/null; } ||
      die "could not install postgresql with apt-get"
  fi
  [ -x "$BIN/ferretdb" ] && [ "$(cat "$BIN/ferretdb.build" 2>/dev/null)" = "$(ferretdb_build)" ] && return 0
  go_env
  say "building FerretDB $FERRETDB_VERSION from the Go module proxy; first run only"
  local mod build="$CACHE/build/ferretdb"
  rm -rf "$build" && mkdir -p "$build"
  (cd "$build" && go mod init raseed.local/ferretdb >/dev/null 2>&1 &&
    go mod download -json "github.com/FerretDB/FerretDB@$FERRETDB_VERSION" >mod.json) ||
    die "could not download FerretDB $FERRETDB_VERSION from the Go module proxy"
  mod=$(sed -n 's/.*"Dir": "\(.*\)".*/\1/p' "$build/mod.json")
  # The release embeds its version from a file that only the project's build task writes.
  cp -r "$mod" "$build/src" && chmod -R u+w "$build/src"
  echo "$FERRETDB_VERSION" >"$build/src/build/version/version.txt"
  local p
  for p in "${FERRETDB_PATCHES[@]}"; do
    patch -s -p1 -d "$build/src" <"$p" || die "could not apply $p"
  done
  mkdir -p "$BIN"
  rm -f "$BIN/ferretdb"
  (cd "$build/src" && go build -v -o "$BIN/ferretdb" ./cmd/ferretdb 2>&1 | progress FerretDB)
  [ -x "$BIN/ferretdb" ] || die "FerretDB build failed"
  ferretdb_build >"$BIN/ferretdb.build"
  rm -rf "$build"
}

# Orders, ledger entries and payments are mostly inserted: vacuum a table after each 1% of new
# rows (PostgreSQL's default waits for 20%), which keeps its pages marked all-visible so that a
# count is read from an index alone (1,000,000 orders: 63 ms against 234 ms from the table).
PG_VACUUM="-c autovacuum_vacuum_insert_scale_factor=0.01"
postgres_start() {
  local bin
  bin=$(pg_bin)
  mkdir -p "$PG_DIR" "$LOGS"
  if [ "$(id -u)" = 0 ]; then chown postgres "$PG_DIR"; fi
  if [ ! -f "$PG_DIR/data/PG_VERSION" ]; then
    say "creating FerretDB's PostgreSQL database in $PG_DIR"
    as_pg "$bin/initdb" -D "$PG_DIR/data" -A trust -U postgres -E UTF8 --locale=C >"$PG_DIR/initdb.log" 2>&1 ||
      die "initdb failed; see $PG_DIR/initdb.log"
  fi
  if ! port_open "$PG_PORT"; then
    as_pg "$bin/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/postgres.log" -w -t 60 start \
      -o "-p $PG_PORT -c listen_addresses=127.0.0.1 -k $PG_DIR -c fsync=on -c max_connections=200 $PG_VACUUM" >/dev/null ||
      die "PostgreSQL did not start; see $PG_DIR/postgres.log"
  fi
  as_pg "$bin/psql" -h 127.0.0.1 -p "$PG_PORT" -U postgres -tAc "SELECT 1 FROM pg_database WHERE datname = 'ferretdb'" |
    grep -q 1 || as_pg "$bin/createdb" -h 127.0.0.1 -p "$PG_PORT" -U postgres ferretdb
}

mongo_start() {
  mkdir -p "$DATA/mongo"
  if command -v mongod >/dev/null 2>&1; then
    launch mongo mongod --dbpath "$DATA/mongo" --bind_ip 127.0.0.1 --port "$MONGO_PORT"
  else
    postgres_start
    launch mongo "$BIN/ferretdb" --handler=pg \
      --postgresql-url="postgres://postgres@127.0.0.1:$PG_PORT/ferretdb?pool_max_conns=50" \
      --listen-addr="127.0.0.1:$MONGO_PORT" --state-dir="$DATA/mongo" --debug-addr=127.0.0.1:8088 \
      --telemetry=disable --log-level=warn
    as_pg "$(pg_bin)/psql" -q -h 127.0.0.1 -p "$PG_PORT" -U postgres -d ferretdb -v ON_ERROR_STOP=1 \
      -f - <"$INFRA_DIR/ferretdb/gin-indexes.sql" >/dev/null || die "could not add the GIN indexes"
  fi
  wait_port mongo "$MONGO_PORT" 30
}

mongo_stop() {
  local bin
  bin=$(pg_bin)
  [ -n "$bin" ] && [ -f "$PG_DIR/data/postmaster.pid" ] || return 0
  as_pg "$bin/pg_ctl" -D "$PG_DIR/data" -m fast -w stop >/dev/null 2>&1 || true
}
mongo_port() { echo "$MONGO_PORT"; }
mongo_url() { echo "mongodb://127.0.0.1:$MONGO_PORT"; }

# ---------------------------------------------------------------- kafka (KRaft, one broker)
KAFKA_HOME="$CACHE/kafka-$KAFKA_VERSION"
kafka_provision() {
  need java "Java is missing: install a JDK 17 or newer (apt-get install openjdk-17-jre-headless) and re-run."
  [ -f "$KAFKA_HOME/.complete" ] && return 0
  need mvn "Maven is missing: install it (apt-get install maven) and re-run."
  say "fetching Apache Kafka $KAFKA_VERSION jars from Maven Central; first run only"
  rm -rf "$KAFKA_HOME" && mkdir -p "$KAFKA_HOME"
  local work
  work=$(mktemp -d)
  cp "$INFRA_DIR/kafka/pom.xml" "$work/"
  (cd "$work" && mvn -B package -Dmaven.repo.local="$CACHE/m2" -Dkafka.version="$KAFKA_VERSION" -DoutputDir="$KAFKA_HOME/lib" |
    grep -E 'Downloaded from|BUILD|ERROR' | awk '/Downloaded from/ { n++; if (n % 50 == 0) { printf "  %d files downloaded\n", n; fflush() }; next } { print }')
  rm -rf "$work"
  ls "$KAFKA_HOME"/lib/kafka_2.13-*.jar >/dev/null 2>&1 || die "Kafka download failed"
  touch "$KAFKA_HOME/.complete"
}

kafka_cmd() {
  KAFKA_CMD=(java -Xms256m -Xmx512m -XX:+UseG1GC -Djava.awt.headless=true
    "-Dlog4j.configuration=file:$INFRA_DIR/kafka/log4j.properties" -cp "$KAFKA_HOME/lib/*")
}

kafka_start() {
  local dir="$DATA/kafka" props="$DATA/kafka.properties"
  mkdir -p "$dir"
  sed -e "s#@DATA@#$dir#" -e "s#@PORT@#$KAFKA_PORT#g" -e "s#@CONTROLLER_PORT@#$KAFKA_CONTROLLER_PORT#g" \
    "$INFRA_DIR/kafka/server.properties" >"$props"
  kafka_cmd
  if [ ! -f "$dir/meta.properties" ]; then
    mkdir -p "$LOGS"
    "${KAFKA_CMD[@]}" kafka.tools.StorageTool format --ignore-formatted -c "$props" \
      -t "$("${KAFKA_CMD[@]}" kafka.tools.StorageTool random-uuid)" >>"$LOGS/kafka.log" 2>&1 ||
      die "could not format the Kafka log directory; see $LOGS/kafka.log"
  fi
  # A Kafka killed mid-write may find its metadata log cut and stop at once; the next start
  # truncates the cut record and comes up, so a start that dies early is tried again.
  local try i
  for try in 1 2 3; do
    kafka_stop
    launch kafka "${KAFKA_CMD[@]}" kafka.Kafka "$props"
    for ((i = 0; i < 240; i++)); do
      port_open "$KAFKA_PORT" && return 0
      pid_alive kafka || break
      sleep 0.25
    done
    pid_alive kafka && die "kafka did not open port $KAFKA_PORT within 60 s; see $LOGS/kafka.log"
    say "kafka stopped while starting (attempt $try, see $LOGS/kafka.log); starting it again"
  done
  die "kafka stopped while starting, three times; see $LOGS/kafka.log"
}

# The broker closes its port before the controller closes its own, and a Kafka whose pid has
# gone may still be tearing down its threads: a new one could not bind the controller's port.
# So a stopped Kafka is gone only once that port is closed too; one of ours still holding it
# after 30 s is killed.
kafka_stop() {
  local i
  for ((i = 0; i < 160; i++)); do
    port_open "$KAFKA_CONTROLLER_PORT" || return 0
    if [ "$i" = 120 ]; then pkill -KILL -f "kafka.Kafka $DATA/kafka.properties" || true; fi
    sleep 0.25
  done
  die "kafka still answers on port $KAFKA_CONTROLLER_PORT after stopping it; see $LOGS/kafka.log"
}
kafka_port() { echo "$KAFKA_PORT"; }
kafka_url() { echo "127.0.0.1:$KAFKA_PORT"; }

# ---------------------------------------------------------------- redis
redis_provision() {
  command -v redis-server >/dev/null 2>&1 && return 0
  port_open "$REDIS_PORT" && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    say "installing Redis from Debian's packages"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q redis-server >/dev/null 2>&1 ||
      { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q redis-server >/dev/null; } ||
      die "could not install redis-server with apt-get"
  else
    die "Redis is missing: install it (apt-get install redis-server) and re-run."
  fi
}

redis_start() {
  mkdir -p "$DATA/redis"
  # Append-only persistence so queued jobs survive a restart.
  launch redis redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --dir "$DATA/redis" \
    --appendonly yes --appendfsync everysec --save "" --daemonize no
  wait_port redis "$REDIS_PORT" 15
}
redis_port() { echo "$REDIS_PORT"; }
redis_url() { echo "redis://127.0.0.1:$REDIS_PORT"; }

# ---------------------------------------------------------------- minio
minio_provision() {
  [ -x "$BIN/minio" ] && return 0
  go_env
  say "building MinIO from the Go module proxy; first run only, this takes several minutes"
  mkdir -p "$BIN"
  GOBIN="$BIN" go install -v "github.com/minio/minio@$MINIO_VERSION" 2>&1 | progress MinIO
  [ -x "$BIN/minio" ] || die "MinIO build failed"
}

minio_start() {
  mkdir -p "$DATA/minio"
  MINIO_ROOT_USER="$MINIO_USER" MINIO_ROOT_PASSWORD="$MINIO_PASSWORD" MINIO_BROWSER=off \
    launch minio "$BIN/minio" server "$DATA/minio" --quiet \
    --address "127.0.0.1:$MINIO_PORT" --console-address "127.0.0.1:$MINIO_CONSOLE_PORT"
  wait_port minio "$MINIO_PORT" 30
}
minio_port() { echo "$MINIO_PORT"; }
minio_url() { echo "http://127.0.0.1:$MINIO_PORT"; }

# ---------------------------------------------------------------- mail catcher (MailDev)
MAILDEV_HOME="$CACHE/maildev-$MAILDEV_VERSION"
mail_provision() {
  [ -x "$MAILDEV_HOME/node_modules/.bin/maildev" ] && return 0
  need npm "npm is missing: install Node.js 20 or newer and re-run."
  say "installing MailDev $MAILDEV_VERSION from the npm registry; first run only"
  mkdir -p "$MAILDEV_HOME"
  npm install --prefix "$MAILDEV_HOME" --no-audit --no-fund --loglevel=error "maildev@$MAILDEV_VERSION" >/dev/null ||
    die "could not install MailDev"
}

mail_start() {
  launch mail "$MAILDEV_HOME/node_modules/.bin/maildev" --ip 127.0.0.1 --smtp "$SMTP_PORT" \
    --web "$MAIL_HTTP_PORT" --silent
  wait_port mail "$MAIL_HTTP_PORT" 20
}
mail_port() { echo "$MAIL_HTTP_PORT"; }
mail_url() { echo "smtp://127.0.0.1:$SMTP_PORT  api http://127.0.0.1:$MAIL_HTTP_PORT/email"; }

# ---------------------------------------------------------------- commands
up_one() {
  local c=$1
  if port_open "$("${c}_port")"; then
    return 0
  fi
  "${c}_provision"
  say "starting $c"
  "${c}_start"
}

# As a crash or the OOM killer would: no shutdown at all (fault tests).
kill_one() {
  local c=$1 pid
  pid_alive "$c" || die "$c is not running under infra.sh: nothing to kill"
  pid=$(cat "$RUN/$c.pid")
  say "killing $c (SIGKILL)"
  kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
  rm -f "$RUN/$c.pid"
  if declare -F "${c}_stop" >/dev/null; then "${c}_stop"; fi
  still_listening "$c"
}

# As a machine that stalls would: the process and its children stop, sockets stay open (fault tests).
signal_one() {
  local c=$1 signal=$2 pid
  pid_alive "$c" || die "$c is not running under infra.sh: nothing to signal"
  pid=$(cat "$RUN/$c.pid")
  say "$3 $c (SIG$signal)"
  kill "-$signal" -- "-$pid" 2>/dev/null || kill "-$signal" "$pid"
}

down_one() {
  local c=$1 pid i
  if ! pid_alive "$c"; then
    rm -f "$RUN/$c.pid"
    if declare -F "${c}_stop" >/dev/null; then "${c}_stop"; fi
    still_listening "$c"
    return 0
  fi
  pid=$(cat "$RUN/$c.pid")
  say "stopping $c"
  kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < 120; i++)); do
    alive "$pid" || break
    sleep 0.25
  done
  kill -KILL -- "-$pid" 2>/dev/null || true
  rm -f "$RUN/$c.pid"
  if declare -F "${c}_stop" >/dev/null; then "${c}_stop"; fi
  still_listening "$c"
}

# A component asked to stop must really be down: a test that needs it gone would prove nothing.
still_listening() {
  local c=$1 port i
  port=$("${c}_port")
  for ((i = 0; i < 40; i++)); do
    port_open "$port" || return 0
    sleep 0.25
  done
  die "$c still answers on port $port after stopping it (not started by infra.sh? stop it yourself)"
}

status() {
  local c state
  for c in "${ALL[@]}"; do
    if port_open "$("${c}_port")"; then state=$'\033[32mup\033[0m  '; else state=$'\033[31mdown\033[0m'; fi
    printf '  %-6s %s  %s\n' "$c" "$state" "$("${c}_url")"
  done
}

cmd=${1:-status}
shift || true
components=("$@")
[ ${#components[@]} -gt 0 ] || components=("${ALL[@]}")
for c in "${components[@]}"; do
  [[ " ${ALL[*]} " == *" $c "* ]] || die "unknown component '$c' (one of: ${ALL[*]})"
done

case "$cmd" in
  up)
    started=$(date +%s)
    for c in "${components[@]}"; do up_one "$c"; done
    say "infrastructure ready in $(($(date +%s) - started)) s"
    status
    ;;
  down)
    for c in "${components[@]}"; do down_one "$c"; done
    ;;
  kill)
    for c in "${components[@]}"; do kill_one "$c"; done
    ;;
  pause)
    for c in "${components[@]}"; do signal_one "$c" STOP pausing; done
    ;;
  resume)
    for c in "${components[@]}"; do signal_one "$c" CONT resuming; done
    ;;
  status) status ;;
  logs)
    for c in "${components[@]}"; do [ -f "$LOGS/$c.log" ] && echo "$LOGS/$c.log"; done |
      xargs -r tail -n 40 -F
    ;;
  *) die "usage: infra.sh up|down|kill|pause|resume|status|logs [${ALL[*]}]" ;;
esac
