#!/usr/bin/env bash
# A lotwise cluster on one machine (docs/deploy.md): two `lotwise serve` instances and three `lotwise worker`
# processes on the local PostgreSQL and Redis, in a private schema and queue prefix. Ctrl-C (or SIGTERM) stops
# every process the way an orchestrator would: SIGTERM, then wait.
#
#   scripts/cluster.sh            # start (creates the demo data on the first run), print the URLs, wait
#   scripts/cluster.sh --reset    # drop the schema and queue keys first
#
# Environment: LOTWISE_PG (default postgres://postgres@127.0.0.1:5432/test), LOTWISE_QUEUE (default
# redis://127.0.0.1:6379), CLUSTER_NAME (schema and key prefix, default lotwise_local), PORTS (default "8001 8002"),
# WORKERS (default 3). Run `npm run build` first.
set -euo pipefail
cd "$(dirname "$0")/.."
PG="${LOTWISE_PG:-postgres://postgres@127.0.0.1:5432/test}"
NAME="${CLUSTER_NAME:-lotwise_local}"
PORTS="${PORTS:-8001 8002}"
WORKERS="${WORKERS:-3}"
export LOTWISE_STORE="${PG}?options=-c%20search_path%3D${NAME}"
export LOTWISE_QUEUE="${LOTWISE_QUEUE:-redis://127.0.0.1:6379}"
export LOTWISE_QUEUE_PREFIX="${NAME}"
LOTWISE=(node bin/lotwise.js)

if [[ "${1:-}" == "--reset" ]]; then
  node -e '
    const pg = require("pg"); const { Redis } = require("ioredis");
    (async () => {
      const c = new pg.Client({ connectionString: process.argv[1] }); await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS ${process.argv[2]} CASCADE`); await c.end();
      const r = new Redis(process.argv[3]); const keys = await r.keys(`${process.argv[2]}:*`);
      if (keys.length) await r.del(...keys); r.disconnect();
    })().catch((e) => { console.error(e.message); process.exit(1); });' "$PG" "$NAME" "$LOTWISE_QUEUE"
  echo "cluster: dropped schema ${NAME} and its queue keys"
fi

# The store: migrate (or create) the schema; the demo data on the first run only.
if "${LOTWISE[@]}" store migrate | tee /dev/stderr | grep -q "^Created"; then
  "${LOTWISE[@]}" init --demo --json > "cluster-${NAME}.json"
  echo "cluster: demo data created; its API key is in cluster-${NAME}.json"
fi

pids=()
stop() {
  trap - INT TERM
  echo "cluster: stopping ${#pids[@]} processes (SIGTERM)"
  kill -TERM "${pids[@]}" 2>/dev/null || true
  wait "${pids[@]}" 2>/dev/null || true
  exit 0
}
trap stop INT TERM

for port in $PORTS; do
  "${LOTWISE[@]}" serve --host 127.0.0.1 --port "$port" &
  pids+=($!)
done
for _ in $(seq "$WORKERS"); do
  "${LOTWISE[@]}" worker --concurrency 1 &
  pids+=($!)
done
for port in $PORTS; do
  ready="not answering after 60 s"
  for _ in $(seq 120); do
    if answer=$(curl -sf "http://127.0.0.1:${port}/readyz"); then ready="$answer"; break; fi
    sleep 0.5
  done
  echo "cluster: http://127.0.0.1:${port}  readyz: ${ready}"
done
echo "cluster: ${WORKERS} workers on queue prefix ${NAME}; Ctrl-C stops everything"
wait
