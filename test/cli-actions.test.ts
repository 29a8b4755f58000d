/**
 * `lotwise actions import|list|apply` and `lotwise accounts holdings --as-of` end to end, on a local store and
 * against a served instance: same answers, actions applied once. The commands run in-process
 * (test/helpers/cli-inprocess.ts: the same text and exit codes as the binary); the server is a real `lotwise serve`
 * process of the built binary (`npm run build` first).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Served, serveStore } from "./helpers/cli.js";
import { okJson, run } from "./helpers/cli-inprocess.js";

let dir: string;
let store: string;
let demo: { api_key: string; account_uuid: string };
let server: Served;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "lotwise-cli-actions-"));
  store = join(dir, "store.db");
  demo = okJson(await run(["init", "--demo", "--store", store, "--json"]));
  server = await serveStore(store);
}, 60_000);
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("lotwise actions and accounts holdings", () => {
  it("imports, lists and applies actions once; holdings as of a date before them undo them; local equals remote", async () => {
    const local = ["--store", store, "--json"];
    const remote = ["--url", server.url, "--api-key", demo.api_key, "--json"];
    const csv = join(dir, "actions.csv");
    writeFileSync(csv, "id,kind,listing,ex_date,ratio\nDEL-SPLIT,split,DEL,2025-06-02,2:1\n");
    const bad = join(dir, "bad.csv");
    writeFileSync(bad, "id,kind,listing,ex_date,ratio\nX,split,DEL,2025-06-02,two\n");

    const refused = await run(["actions", "import", bad, "--store", store]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('bad.csv: line 2, column "ratio"');

    // Importing is store administration (the actions are shared by every organization): local only.
    const overHttp = await run(["actions", "import", csv, ...remote]);
    expect(overHttp.code).not.toBe(0);
    expect(`${overHttp.stdout}${overHttp.stderr}`).toContain("local store only");
    const imported = okJson(await run(["actions", "import", csv, ...local]));
    expect(imported).toMatchObject({ actions_in_file: 1, by_kind: { split: 1 } });
    const listed = await run(["actions", "list", ...local]);
    expect((await run(["actions", "list", ...remote])).stdout).toBe(listed.stdout);
    expect(JSON.parse(listed.stdout).map((a: { id: string }) => a.id)).toEqual(["DEL-SPLIT"]);

    const before = okJson(
      await run(["accounts", "holdings", demo.account_uuid, "--as-of", "2025-05-30", ...local]),
    );
    const applied = okJson(
      await run(["actions", "apply", "--account", demo.account_uuid, "--through", "2025-12-31", ...remote]),
    );
    expect(applied.accounts).toHaveLength(1);
    const changed = applied.accounts[0].lots.filter(
      (l: { theme_asset_id: string }) => l.theme_asset_id === "DEL:XNYS",
    );
    expect(changed.length).toBeGreaterThan(0);
    for (const l of changed) expect(Number(l.quantity_after)).toBe(2 * Number(l.quantity_before));
    // Applying again (locally this time) applies nothing.
    expect(
      okJson(await run(["actions", "apply", "--all", "--through", "2025-12-31", ...local])).accounts,
    ).toEqual([]);

    // Holdings before the split date are those of before the application (the split undone), locally and remotely.
    const after = await run(["accounts", "holdings", demo.account_uuid, "--as-of", "2025-05-30", ...local]);
    expect(
      (await run(["accounts", "holdings", demo.account_uuid, "--as-of", "2025-05-30", ...remote])).stdout,
    ).toBe(after.stdout);
    const h = JSON.parse(after.stdout);
    expect(h.tax_lots).toEqual(before.tax_lots);
    expect(h.undone.corporate_actions).toEqual(["DEL-SPLIT"]);
    // For people: a summary, one row per lot with its term and days held on the date, lot ids in full.
    const shown = await run([
      "accounts",
      "holdings",
      demo.account_uuid,
      "--as-of",
      "2025-05-30",
      "--store",
      store,
    ]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain("Long lots on 2025-05-30");
    // A blank line between the summary and the lots, as between the tables of every other command.
    expect(shown.stdout).toMatch(/┘\n\nLong lots on 2025-05-30/);
    expect(shown.stdout).toMatch(/Undone\s+│ 0 execution\(s\), 1 corporate action\(s\)/);
    for (const l of h.tax_lots as { lot_uuid: string }[]) expect(shown.stdout).toContain(l.lot_uuid);
    expect(shown.stdout.split("\n").filter((line) => /│ (LT|ST) +│/.test(line))).toHaveLength(
      h.tax_lots.length,
    );

    const usage = await run(["actions", "apply", "--through", "2025-12-31", "--store", store]);
    expect(usage.code).toBe(2);
  }, 120_000);
});
