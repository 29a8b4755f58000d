import pg from "pg";
import { describe, expect, it } from "vitest";
import type { LotwiseStore } from "../lotwise-store.js";
import { isPgTransientError } from "./errors.js";
import { lastByKey } from "./pg-db.js";
import { PgStore } from "./pg-store.js";

describe("PgStore without a database", () => {
  it("shows its URL without the password as location and keeps the full URL as connection string", async () => {
    const url = "postgres://lotwise:s3cr%40t@db.example:5432/prod?options=-c%20search_path%3Dacme";
    const store = new PgStore(new pg.Pool({ connectionString: url }), url);
    expect(store.kind).toBe("postgres");
    expect(store.connectionString).toBe(url);
    expect(store.location).toBe("postgres://lotwise@db.example:5432/prod?options=-c%20search_path%3Dacme");
    expect(store.location).not.toContain("s3cr");
    expect((store as LotwiseStore).sqlite).toBeUndefined();
    await store.close();
    expect(store.isOpen).toBe(false);
  });

  it("keeps the last row of each key, in the order of those last rows", () => {
    const rows = [
      { k: "a", v: 1 },
      { k: "b", v: 2 },
      { k: "a", v: 3 },
      { k: "c", v: 4 },
    ];
    expect(lastByKey(rows, (r) => r.k)).toEqual([
      { k: "b", v: 2 },
      { k: "a", v: 3 },
      { k: "c", v: 4 },
    ]);
    const unique = [{ k: "x" }, { k: "y" }];
    expect(lastByKey(unique, (r) => r.k)).toEqual(unique);
  });
});

describe("isPgTransientError", () => {
  it("recognizes deadlocks, serialization failures and unavailable locks, and nothing else", () => {
    const pgError = (code: string) => Object.assign(new Error("x"), { code, severity: "ERROR" });
    expect(isPgTransientError(pgError("40P01"))).toBe(true);
    expect(isPgTransientError(pgError("40001"))).toBe(true);
    expect(isPgTransientError(pgError("55P03"))).toBe(true);
    expect(isPgTransientError(pgError("23503"))).toBe(false);
    expect(isPgTransientError(Object.assign(new Error("x"), { code: "40P01" }))).toBe(false);
    expect(isPgTransientError(null)).toBe(false);
  });
});
