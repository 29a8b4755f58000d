import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listing } from "../../test/helpers/listing.js";
import { openStore, type Store } from "../store/index.js";
import { resolveTicker, resolveTickersAtOnce } from "./tickers.js";

const security = (id: string) => listing(id);

describe("resolving many ticker references at once", () => {
  let store: Store;
  beforeAll(() => {
    store = openStore(":memory:");
    store.market.upsertSecurities(
      ["AAA:XNYS", "BBB:XTSE", "BBB:XNYS", "BRK.B:XNYS", "CCC:XNAS", "ZZZ:XTSE", "ZZZ:XNAS", "ZZZ:XNYS"].map(
        security,
      ),
    );
  });
  afterAll(() => store.close());

  it("gives the resolutions resolveTicker gives one by one, in order", () => {
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
    expect(resolveTickersAtOnce(store, refs)).toEqual(refs.map((r) => resolveTicker(store, r)));
    expect(resolveTickersAtOnce(store, [])).toEqual([]);
  });

  it("looks listings up by id and by symbol in bulk", () => {
    expect([...store.market.securitiesByIds(["CCC:XNAS", "NOPE:XNYS", "AAA:XNYS"]).keys()].sort()).toEqual([
      "AAA:XNYS",
      "CCC:XNAS",
    ]);
    expect(store.market.securitiesByIds(["AAA:XNYS"]).get("AAA:XNYS")).toEqual(
      store.market.security("AAA:XNYS"),
    );
    const bySymbol = store.market.securitiesBySymbols(["zzz", "AAA", "NOPE"]);
    expect([...bySymbol.keys()].sort()).toEqual(["AAA", "ZZZ"]);
    expect(bySymbol.get("ZZZ")).toEqual(store.market.findSecuritiesBySymbol("zzz"));
  });
});
