import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { run } from "../../../test/helpers/cli-inprocess.js";
import { storeFlagForHints } from "./init.js";

const dir = mkdtempSync(join(tmpdir(), "lotwise-init-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("init's next steps", () => {
  it("name the store given with --store when LOTWISE_STORE names another", () => {
    expect(storeFlagForHints("market.db", { LOTWISE_STORE: "tour.db" })).toBe(" --store market.db");
    expect(storeFlagForHints("my store.db", {})).toBe(" --store 'my store.db'");
    expect(storeFlagForHints("tour.db", { LOTWISE_STORE: "tour.db" })).toBe("");
    expect(storeFlagForHints(undefined, {})).toBe("");
    expect(storeFlagForHints("postgres://u:secret@db/lotwise", {})).toBe("");
  });

  it("are printed with the store, so that they do not run on LOTWISE_STORE's", async () => {
    const other = join(dir, "other.db");
    const r = await run(["init", "--store", other], { LOTWISE_STORE: join(dir, "tour.db") });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      `Next: lotwise market generate --store ${other}  (or lotwise market import ...`,
    );
    expect(r.stdout).toContain(`then lotwise clients create --store ${other}.`);
  });
});
