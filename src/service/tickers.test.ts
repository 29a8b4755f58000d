import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listing } from "../../test/helpers/listing.js";
import { openSqliteStore, type SqliteStore } from "../store/index.js";
import { resolveTicker, resolveTickersAtOnce } from "./tickers.js";

const security = (id: string) => listing(id);

describe("resolving many ticker references at once", () => {
  let store: SqliteStore;
  beforeAll(async () => {
    store = openSqliteStore(":memory:");
    await store.market.upsertSecurities(
      ["AAA:XNYS", "BBB:XTSE", "BBB:XNYS", "BRK.B:XNYS", "CCC:XNAS", "ZZZ:XTSE", "ZZZ:XNAS", "ZZZ:XNYS"].map(
        security,
      ),
    );
  });
  afterAll(() => store.close());

  it("gives the resolutions resolveTicker gives one by one, in order", async () => {
    const refs = [
      "AAA",
      "aaa",
      " AAA:xnys ",
      "AAA:XNYS",
      "AAA:XNAS",
      "BBB",
      "bbb",
      "BBB:XTSE",
      "brk.b",
      "BRK.B:XNYS",
      "ZZZ",
      "CCC",
      "ccc:xnas",
      "DDD",
      "DDD:XNYS",
      "AAA:XNYS:EXTRA",
      "AAA:",
      ":XNYS",
      "",
      "   ",
      "AAA",
    ];
    expect(await resolveTickersAtOnce(store, refs)).toEqual(
      await Promise.all(refs.map((r) => resolveTicker(store, r))),
    );
    expect(await resolveTickersAtOnce(store, [])).toEqual([]);
  });

  it("looks listings up by id and by symbol in bulk", async () => {
    expect(
      [...(await store.market.securitiesByIds(["CCC:XNAS", "NOPE:XNYS", "AAA:XNYS"])).keys()].sort(),
    ).toEqual(["AAA:XNYS", "CCC:XNAS"]);
    expect((await store.market.securitiesByIds(["AAA:XNYS"])).get("AAA:XNYS")).toEqual(
      await store.market.security("AAA:XNYS"),
    );
    const bySymbol = await store.market.securitiesBySymbols(["zzz", "AAA", "NOPE"]);
    expect([...bySymbol.keys()].sort()).toEqual(["AAA", "ZZZ"]);
    expect(bySymbol.get("ZZZ")).toEqual(await store.market.findSecuritiesBySymbol("zzz"));
  });
});
