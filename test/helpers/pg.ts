/**
 * @module test/helpers/pg
 * PostgreSQL for tests: a probe (the reason it is unusable, or null), a private schema per test (a `postgres://` URL
 * whose search_path names it; lotwise creates it on open) and its removal.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";

export const PG_URL = process.env.LOTWISE_TEST_PG ?? "postgres://postgres@127.0.0.1:5432/test";

/** Null when PostgreSQL answers at `url`, else why not. */
export async function probePostgres(url = PG_URL): Promise<string | null> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  client.on("error", () => {});
  try {
    await client.connect();
    await client.query("SELECT 1");
    return null;
  } catch (err) {
    return (err as Error).message;
  } finally {
    await client.end().catch(() => {});
  }
}

/** A new schema name no other test uses, and the store URL selecting it. */
export function privateSchema(name: string, url = PG_URL): { schema: string; url: string } {
  const schema = `lw_${name}_${process.pid}_${randomBytes(4).toString("hex")}`;
  const u = new URL(url);
  u.searchParams.set("options", `-c search_path=${schema}`);
  return { schema, url: u.toString() };
}

/** Drop schemas created by {@link privateSchema}. */
export async function dropSchemas(schemas: Iterable<string>, url = PG_URL): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  client.on("error", () => {});
  await client.connect();
  try {
    for (const s of schemas) await client.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
  } finally {
    await client.end();
  }
}
