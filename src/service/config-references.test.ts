import { describe, expect, it } from "vitest";
import type { PortfolioConfigResolvers } from "../contract/index.js";
import { NotFoundError } from "../core/errors.js";
import { type AsyncConfigResolvers, ConfigReferences } from "./portfolio-configs.js";
import { mapSerial } from "./serial.js";

/** Lookups that record each call and fail for the ids in `missing`. */
function lookups(missing: ReadonlySet<string> = new Set()) {
  const calls: string[] = [];
  const answer =
    (kind: keyof PortfolioConfigResolvers) =>
    async (id: string): Promise<never> => {
      calls.push(`${kind}:${id}`);
      await new Promise((resolve) => setImmediate(resolve));
      if (missing.has(id)) throw new NotFoundError(`${kind} ${id} not found.`, `${kind}_not_found`);
      return { kind, id } as never;
    };
  const resolvers: AsyncConfigResolvers = {
    ticker: answer("ticker"),
    assetClass: answer("assetClass"),
    theme: answer("theme"),
    index: answer("index"),
  };
  return { calls, resolvers };
}

describe("ConfigReferences (synchronous resolvers over asynchronous lookups)", () => {
  it("answers what the synchronous read builds, looking each reference up once across reads", async () => {
    const { calls, resolvers } = lookups();
    const refs = new ConfigReferences(resolvers);
    const build = (r: PortfolioConfigResolvers) => [
      r.ticker("AAA:XNYS"),
      r.assetClass("ac-1"),
      r.ticker("AAA:XNYS"),
    ];
    expect(await refs.read(build)).toEqual([
      { kind: "ticker", id: "AAA:XNYS" },
      { kind: "assetClass", id: "ac-1" },
      { kind: "ticker", id: "AAA:XNYS" },
    ]);
    expect(await refs.read((r) => r.theme("th-1"))).toEqual({ kind: "theme", id: "th-1" });
    expect(await refs.read(build)).toHaveLength(3);
    expect(calls).toEqual(["ticker:AAA:XNYS", "assetClass:ac-1", "theme:th-1"]);
  });

  it("throws the error of the first failing reference in read order, as direct lookups would", async () => {
    const { resolvers } = lookups(new Set(["ac-2", "BBB:XNYS"]));
    const refs = new ConfigReferences(resolvers);
    const read = refs.read((r) => [r.ticker("AAA:XNYS"), r.assetClass("ac-2"), r.ticker("BBB:XNYS")]);
    await expect(read).rejects.toMatchObject({
      code: "assetClass_not_found",
      message: "assetClass ac-2 not found.",
    });
  });

  it("lets the read's own errors through once every reference it reached is resolved", async () => {
    const { resolvers } = lookups();
    const refs = new ConfigReferences(resolvers);
    const read = refs.read((r) => {
      const t = r.ticker("AAA:XNYS") as unknown as { id: string };
      if (t.id === "AAA:XNYS") throw new RangeError("bad weight at target_ticker_weights[0]");
      return t;
    });
    await expect(read).rejects.toThrow("bad weight at target_ticker_weights[0]");
  });

  it("reports what a read misses without running a lookup (tryRead)", () => {
    const { calls, resolvers } = lookups();
    const r = new ConfigReferences(resolvers).tryRead((x) => [x.index("ix-1"), x.ticker("AAA:XNYS")]);
    expect(r).toEqual({
      done: false,
      missing: [
        ["index", "ix-1"],
        ["ticker", "AAA:XNYS"],
      ],
    });
    expect(calls).toEqual([]);
  });
});

describe("mapSerial", () => {
  it("maps in order, one call at a time, and stops at the first rejection", async () => {
    const started: number[] = [];
    let running = 0;
    let most = 0;
    const out = await mapSerial([3, 1, 2], async (n, i) => {
      started.push(n);
      most = Math.max(most, ++running);
      await new Promise((resolve) => setTimeout(resolve, n));
      running--;
      return n * 10 + i;
    });
    expect(out).toEqual([30, 11, 22]);
    expect(started).toEqual([3, 1, 2]);
    expect(most).toBe(1);
    const seen: number[] = [];
    await expect(
      mapSerial([1, 2, 3], async (n) => {
        seen.push(n);
        if (n === 2) throw new Error("two");
        return n;
      }),
    ).rejects.toThrow("two");
    expect(seen).toEqual([1, 2]);
  });
});
