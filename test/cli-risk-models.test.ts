/**
 * `lotwise risk-models` as users run it: a vendor model imported from CSV files for the demo store, used by
 * `lotwise optimize` once the demo configuration names it, the same locally and against `lotwise serve`; a custom
 * asset covariance repaired with a warning; bad files named by line and column. The commands run in-process
 * (test/helpers/cli-inprocess.ts: the same text and exit codes as the binary); the server is a real `lotwise serve`
 * process of the built binary (`npm run build` first).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accountOptimizationSchema, riskModelListSchema, riskModelSchema } from "../src/contract/index.js";
import { openSqliteStore } from "../src/store/index.js";
import { type Served, serveStore } from "./helpers/cli.js";
import { okJson as json, run } from "./helpers/cli-inprocess.js";

describe("lotwise risk-models", () => {
  let dir: string;
  let store: string;
  let demo: { api_key: string; account_uuid: string; portfolio_config_uuid: string };
  /** The demo's listings; the vendor files leave out the last 10. */
  let ids: string[];
  const file = (name: string) => join(dir, name);
  const local = () => ["--store", store];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "lotwise-cli-risk-"));
    store = file("demo.db");
    demo = json(await run(["init", "--demo", "--store", store, "--json"]));
    const s = openSqliteStore(store, { create: false });
    ids = (await s.market.securities()).map((x) => x.themeAssetId);
    await s.close();
    const covered = ids.slice(0, -10);
    // Daily numbers in percent: market 1.5 %^2, size 0.5 %^2, covariance 0.3; specific 1.5-2.5% a day.
    writeFileSync(
      file("exposures.csv"),
      `asset,factor,exposure\n${covered.map((id, i) => `${id},market,1\n${id},size,${(-1 + (2 * i) / (covered.length - 1)).toFixed(4)}`).join("\n")}\n`,
    );
    writeFileSync(
      file("exposures-wide.csv"),
      `asset,market,size\n${covered.map((id, i) => `${id},1,${(-1 + (2 * i) / (covered.length - 1)).toFixed(4)}`).join("\n")}\n`,
    );
    writeFileSync(
      file("factor_cov.csv"),
      "factor1,factor2,covariance\nmarket,market,1.5\nmarket,size,0.3\nsize,size,0.5\n",
    );
    writeFileSync(
      file("srisk.csv"),
      `asset,specific_risk\n${covered.map((id, i) => `${id},${1.5 + (i % 3) * 0.5}`).join("\n")}\n`,
    );
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const vendorImport = (name: string, asOf: string, exposures = "exposures.csv") => [
    "risk-models",
    "import",
    "--kind",
    "vendor",
    "--name",
    name,
    "--as-of",
    asOf,
    "--frequency",
    "daily",
    "--units",
    "percent",
    "--exposures",
    file(exposures),
    "--covariance",
    file("factor_cov.csv"),
    "--specific-risk",
    file("srisk.csv"),
  ];

  it("imports a vendor model from long or wide files, annualized in fractions, and lists and shows it", async () => {
    const m = riskModelSchema.parse(
      json(await run([...vendorImport("Demo vendor", "2025-12-31"), "--json", ...local()])),
    );
    expect(m).toMatchObject({
      kind: "vendor",
      as_of_date: "2025-12-31",
      asset_count: ids.length - 10,
      factor_count: 2,
    });
    // 1.5 %^2 a day = 1.5e-4 x 252 = 0.0378 a year: a 19.44% market volatility; 0.5 %^2 -> 11.22%.
    expect(m.factors.map((f) => f.name)).toEqual(["market", "size"]);
    expect(m.factors[0]!.volatility).toBeCloseTo(Math.sqrt(0.0378), 14);
    expect(m.factors[1]!.volatility).toBeCloseTo(Math.sqrt(0.0126), 14);
    // 1.5% a day is sqrt(252) x 1.5% = 23.81% a year.
    expect(m.specific_volatility.min).toBeCloseTo(0.015 * Math.sqrt(252), 14);
    const wide = riskModelSchema.parse(
      json(
        await run([...vendorImport("Demo wide", "2025-06-30", "exposures-wide.csv"), "--json", ...local()]),
      ),
    );
    expect({ ...wide, uuid: "", name: "", as_of_date: "", created: "" }).toEqual({
      ...m,
      uuid: "",
      name: "",
      as_of_date: "",
      created: "",
    });
    const list = riskModelListSchema.parse(json(await run(["risk-models", "list", "--json", ...local()])));
    expect(list.map((x) => [x.name, x.as_of_date])).toEqual([
      ["Demo wide", "2025-06-30"],
      ["Demo vendor", "2025-12-31"],
    ]);
    const shown = await run(["risk-models", "show", m.uuid, ...local()]);
    expect(shown.code, shown.stderr).toBe(0);
    for (const s of ["Demo vendor", "19.44%", "11.22%", "daily numbers in percent", "23.81% min"])
      expect(shown.stdout).toContain(s);
    const table = await run(["risk-models", "list", ...local()]);
    expect(table.stdout).toContain(`│ ${m.uuid} │ vendor │ Demo vendor │ 2025-12-31 │`);
  });

  it("imports the README's fixture model, which covers every demo listing, and optimizes with it", async () => {
    // The README tour's commands, on a fresh demo store.
    const fresh = file("fixture.db");
    const d = json(await run(["init", "--demo", "--store", fresh, "--json"])) as typeof demo;
    const fixture = (name: string) => join(import.meta.dirname, "..", "fixtures", "risk-model", name);
    const m = riskModelSchema.parse(
      json(
        await run([
          "risk-models",
          "import",
          "--kind",
          "vendor",
          "--name",
          "Demo vendor model",
          "--as-of",
          "2025-12-31",
          "--frequency",
          "annual",
          "--units",
          "percent",
          "--exposures",
          fixture("exposures.csv"),
          "--covariance",
          fixture("factor_cov.csv"),
          "--specific-risk",
          fixture("srisk.csv"),
          "--json",
          "--store",
          fresh,
        ]),
      ),
    );
    expect(m).toMatchObject({ asset_count: ids.length, factor_count: 16, warnings: [] });
    // 256 %^2 a year is a 16% market volatility.
    expect(m.factors[0]).toMatchObject({ name: "market" });
    expect(m.factors[0]!.volatility).toBeCloseTo(0.16, 12);
    const set = await run([
      "configs",
      "update",
      d.portfolio_config_uuid,
      "--set",
      "risk_model_name=vendor",
      "--store",
      fresh,
    ]);
    expect(set.code, set.stderr).toBe(0);
    const o = accountOptimizationSchema.parse(
      json(await run(["optimize", "--account", d.account_uuid, "--json", "--store", fresh])),
    );
    expect(o.status).toBe("optimal");
    expect(o.uploaded_risk_model).toMatchObject({ uuid: m.uuid, assets_imputed: 0 });
    expect(o.uploaded_risk_model!.assets_covered).toBe(o.universe_size);
    expect(o.total_risk!).toBeGreaterThan(0.1);
    expect(o.total_risk!).toBeLessThan(0.3);
  }, 120_000);

  it("optimizes the demo account with the vendor model once the configuration names it", async () => {
    const optimize = async (...extra: string[]) =>
      accountOptimizationSchema.parse(
        json(await run(["optimize", "--account", demo.account_uuid, "--json", ...extra, ...local()])),
      );
    const before = await optimize();
    expect(before.risk_model).toBe("characteristics");
    expect(before.uploaded_risk_model).toBeNull();
    const set = await run([
      "configs",
      "update",
      demo.portfolio_config_uuid,
      "--set",
      "risk_model_name=vendor",
      ...local(),
    ]);
    expect(set.code, set.stderr).toBe(0);
    const [december] = riskModelListSchema
      .parse(json(await run(["risk-models", "list", "--json", ...local()])))
      .filter((x) => x.name === "Demo vendor");
    const o = await optimize();
    expect(o.status).toBe("optimal");
    expect(o.risk_model).toBe("vendor");
    const used = o.uploaded_risk_model!;
    expect(used).toMatchObject({ uuid: december!.uuid, name: "Demo vendor", as_of_date: "2025-12-31" });
    // The universe's assets among the 10 left out of the files are imputed, and a warning says how many.
    const left = new Set(ids.slice(-10));
    const universe = new Set(o.weights.map((w) => w.ticker));
    expect(used.assets_imputed).toBeGreaterThan(0);
    expect(used.assets_imputed).toBeGreaterThanOrEqual([...universe].filter((id) => left.has(id)).length);
    expect(used.assets_covered + used.assets_imputed).toBe(o.universe_size);
    expect(o.warnings).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^${used.assets_imputed} of ${o.universe_size} assets are not in the vendor risk model "Demo vendor"`,
        ),
      ),
    );
    // A two-factor model with 19% market volatility, not the characteristics model's answer.
    expect(o.total_risk).not.toBeCloseTo(before.total_risk!, 3);
    expect(o.total_risk!).toBeGreaterThan(0.15);
    // Point in time: as of 2025-11-28 the June model serves.
    const november = await optimize("--as-of", "2025-11-28");
    expect(november.uploaded_risk_model?.name).toBe("Demo wide");
    const table = await run(["optimize", "--account", demo.account_uuid, ...local()]);
    expect(table.stdout).toContain(
      `vendor "Demo vendor" as of 2025-12-31 (${used.assets_covered} of ${o.universe_size} assets covered, ${used.assets_imputed} imputed)`,
    );
    expect(table.stdout).toContain(`warning: ${used.assets_imputed} of ${o.universe_size} assets are not in`);
    const early = await run([
      "optimize",
      "--account",
      demo.account_uuid,
      "--as-of",
      "2025-05-30",
      ...local(),
    ]);
    expect(early.code).toBe(1);
    expect(early.stderr).toContain(
      "no vendor risk model is dated on or before 2025-05-30 (the earliest is dated 2025-06-30)",
    );
  }, 60_000);

  it("repairs a custom covariance that is not positive semidefinite, and names bad files by line and column", async () => {
    const [a, b, c] = ids;
    // Eigenvalues 0.09, 0.04 and -0.01.
    writeFileSync(
      file("asset_cov.csv"),
      `,${a},${b},${c}\n${a},0.04,0.05,0\n${b},0.05,0.04,0\n${c},0,0,0.04\n`,
    );
    const custom = await run([
      "risk-models",
      "import",
      "--kind",
      "custom",
      "--name",
      "House",
      "--as-of",
      "2025-12-31",
      "--covariance",
      file("asset_cov.csv"),
      ...local(),
    ]);
    expect(custom.code, custom.stderr).toBe(0);
    expect(custom.stdout).toContain("asset covariance, annual numbers in fractions");
    expect(custom.stdout).toMatch(
      /warning: Covariance was not positive definite \(min eigenvalue -0\.0099999/,
    );
    expect(custom.stdout).toContain("pc3");
    writeFileSync(
      file("bad_exposures.csv"),
      `asset,factor,exposure\n${a},market,1\n${b},value,0.5\n${c},market,abc\n`,
    );
    const bad = await run([...vendorImport("Bad", "2025-12-31", "bad_exposures.csv"), ...local()]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('bad_exposures.csv: line 4, exposure: expected a number, got "abc"');
    writeFileSync(file("bad_exposures.csv"), `asset,factor,exposure\n${a},market,1\n${b},value,0.5\n`);
    const unknown = await run([...vendorImport("Bad", "2025-12-31", "bad_exposures.csv"), ...local()]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain(`unknown factor "value" for ${b}`);
    const noFrequency = await run([
      ...vendorImport("Bad", "2025-12-31").filter(
        (x, i, all) => x !== "--frequency" && all[i - 1] !== "--frequency",
      ),
      ...local(),
    ]);
    expect(noFrequency.code).toBe(2);
    expect(noFrequency.stderr).toContain("Vendor models need --frequency");
    const list = riskModelListSchema.parse(json(await run(["risk-models", "list", "--json", ...local()])));
    expect(list.map((x) => x.name)).not.toContain("Bad");
  });

  describe("against a served instance", () => {
    let server: Served;
    let url: string;

    beforeAll(async () => {
      server = await serveStore(store, ["--workers", "0"]);
      url = server.url;
    }, 30_000);
    afterAll(() => server.stop());

    it("reads the same files into the same model locally and remotely, and refuses a bad file alike", async () => {
      const remote = ["--url", url, "--api-key", demo.api_key];
      const strip = (stdout: string) => ({
        ...riskModelSchema.parse(JSON.parse(stdout)),
        uuid: "",
        created: "",
      });
      const here = await run([
        ...vendorImport("Twin", "2025-12-30", "exposures-wide.csv"),
        "--json",
        ...local(),
      ]);
      const there = await run([
        ...vendorImport("Twin", "2025-12-30", "exposures-wide.csv"),
        "--json",
        ...remote,
      ]);
      expect(here.code, here.stderr).toBe(0);
      expect(there.code, there.stderr).toBe(0);
      expect(strip(there.stdout)).toEqual(strip(here.stdout));
      expect(strip(here.stdout)).toMatchObject({
        name: "Twin",
        factor_count: 2,
        asset_count: ids.length - 10,
      });
      const [a, b] = ids;
      writeFileSync(file("bad_srisk.csv"), `asset,specific_risk\n${a},1.5\n${b},"2\n`);
      const badImport = [...vendorImport("Twin bad", "2025-12-30")];
      badImport[badImport.indexOf(file("srisk.csv"))] = file("bad_srisk.csv");
      const badHere = await run([...badImport, ...local()]);
      const badThere = await run([...badImport, ...remote]);
      expect(badHere.code).toBe(1);
      expect(badThere.code).toBe(1);
      expect(badHere.stderr).toContain("bad_srisk.csv is not a readable CSV file: Quote Not Closed");
      expect(badThere.stderr).toBe(badHere.stderr);
      for (const m of [here, there])
        await run(["risk-models", "delete", riskModelSchema.parse(JSON.parse(m.stdout)).uuid, ...local()]);
    }, 60_000);

    it("imports, lists, shows, optimizes and deletes the same remotely", async () => {
      const remote = ["--url", url, "--api-key", demo.api_key];
      const m = riskModelSchema.parse(
        json(await run([...vendorImport("Remote", "2025-12-31"), "--json", ...remote])),
      );
      for (const cmd of [
        ["risk-models", "list", "--json"],
        ["risk-models", "show", m.uuid, "--json"],
        ["optimize", "--account", demo.account_uuid, "--json"],
      ]) {
        const a = await run([...cmd, ...local()]);
        const b = await run([...cmd, ...remote]);
        expect(a.code, a.stderr).toBe(0);
        expect(b.stdout, cmd.join(" ")).toBe(a.stdout);
      }
      // The latest upload of a date wins.
      const o = accountOptimizationSchema.parse(
        json(await run(["optimize", "--account", demo.account_uuid, "--json", ...remote])),
      );
      expect(o.uploaded_risk_model?.uuid).toBe(m.uuid);
      expect(json(await run(["risk-models", "delete", m.uuid, "--json", ...remote]))).toEqual({
        deleted: m.uuid,
      });
      const gone = await run(["risk-models", "show", m.uuid, ...local()]);
      expect(gone.code).toBe(1);
      expect(gone.stderr).toContain(`Risk model ${m.uuid} not found.`);
    }, 60_000);
  });
});
