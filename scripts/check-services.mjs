#!/usr/bin/env node
// CI pre-flight: the PostgreSQL store and the BullMQ queue tests need PostgreSQL and Redis. This checks that both
// answer (LOTWISE_TEST_PG / LOTWISE_TEST_REDIS, or the local defaults) and fails with a message that says which one
// is missing and how to start it. On a developer machine without them the suite still runs: those tests skip.
import net from "node:net";
import pg from "pg";

const pgUrl = process.env.LOTWISE_TEST_PG ?? "postgres://postgres@127.0.0.1:5432/test";
const redisUrl = new URL(process.env.LOTWISE_TEST_REDIS ?? "redis://127.0.0.1:6379");
const TIMEOUT_MS = 5000;

async function checkPostgres() {
  const client = new pg.Client({ connectionString: pgUrl, connectionTimeoutMillis: TIMEOUT_MS });
  try {
    await client.connect();
    const { rows } = await client.query("SELECT current_setting('server_version') AS v");
    return `PostgreSQL ${rows[0].v}`;
  } finally {
    await client.end().catch(() => {});
  }
}

function checkRedis() {
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(redisUrl.port || 6379), redisUrl.hostname);
    const timer = setTimeout(() => socket.destroy(new Error(`no answer in ${TIMEOUT_MS} ms`)), TIMEOUT_MS);
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.once("data", (data) => {
      clearTimeout(timer);
      socket.end();
      const text = data.toString();
      if (text.startsWith("+PONG")) resolve("Redis (PONG)");
      else reject(new Error(`unexpected answer ${JSON.stringify(text.trim())}`));
    });
    socket.once("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

const redact = (url) => url.replace(/\/\/([^:@/]+):[^@/]*@/, "//$1:***@");
let failed = false;
for (const [name, where, check, hint] of [
  [
    "PostgreSQL",
    redact(pgUrl),
    checkPostgres,
    "pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start",
  ],
  ["Redis", redisUrl.href, checkRedis, "redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save ''"],
]) {
  try {
    console.log(`services: ${await check()} answers at ${where}`);
  } catch (err) {
    failed = true;
    console.error(`services: ${name} does not answer at ${where}: ${err.message}`);
    console.error(
      `  start it (e.g. \`${hint}\`) or point LOTWISE_TEST_${name === "Redis" ? "REDIS" : "PG"} at one.`,
    );
  }
}
process.exit(failed ? 1 : 0);
