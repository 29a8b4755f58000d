import { describe, expect, it } from "vitest";
import { openSqliteStore } from "./sqlite-store.js";

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("SqliteStore (the asynchronous face of one SQLite connection)", () => {
  it("commits every write of a transaction together and rolls all of them back on a throw", async () => {
    const store = openSqliteStore(":memory:");
    await store.transaction(async (tx) => {
      await tx.organizations.create("A");
      await store.organizations.create("B");
    });
    await expect(
      store.transaction(async (tx) => {
        await tx.organizations.create("C");
        await tick();
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect((await store.organizations.list()).map((o) => o.name).sort()).toEqual(["A", "B"]);
    await store.close();
  });

  it("makes callers outside a transaction wait until it commits, so they never see its writes half-done", async () => {
    const store = openSqliteStore(":memory:");
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tx = store.transaction(async () => {
      await store.organizations.create("first");
      await gate;
      await store.organizations.create("second");
    });
    await tick();
    const outside = store.organizations.list().then((list) => list.map((o) => o.name));
    let seen: string[] | undefined;
    void outside.then((names) => {
      seen = names;
    });
    await tick();
    expect(seen).toBeUndefined();
    release();
    await tx;
    // Both writes, never one: organizations created in the same millisecond list in either order.
    expect((await outside).sort()).toEqual(["first", "second"]);
    await store.close();
  });

  it("runs concurrent transactions one after the other and joins nested ones to the outer", async () => {
    const store = openSqliteStore(":memory:");
    const order: string[] = [];
    const run = (name: string) =>
      store.transaction(async () => {
        order.push(`${name}:start`);
        await tick();
        await store.transaction(async () => {
          await store.organizations.create(name);
        });
        order.push(`${name}:end`);
      });
    await Promise.all([run("a"), run("b"), run("c")]);
    expect(order).toEqual(["a:start", "a:end", "b:start", "b:end", "c:start", "c:end"]);
    expect((await store.organizations.list()).length).toBe(3);
    await store.close();
  });

  it("stages a lot import and moves it in one transaction after the check, or not at all", async () => {
    const store = openSqliteStore(":memory:");
    const org = await store.organizations.create("Org");
    const client = await store.clients.create(org.uuid, {});
    const account = await store.accounts.create(org.uuid, client.uuid, {});
    const lot = {
      themeAssetId: "AAA:XNYS",
      quantity: "10",
      costBasis: "100",
      costBasisUnit: "total" as const,
      costBasisCurrency: "USD",
      fxRate: "1",
      tradeDate: "2024-01-02",
      holdingPeriodStart: null,
      washSaleDate: null,
      lastSoldForLossDate: null,
    };
    const refused = await store.beginLotImport();
    await refused.add([lot]);
    await expect(
      refused.commit(account.uuid, "replace", async () => {
        throw new Error("account gone");
      }),
    ).rejects.toThrow("account gone");
    expect((await store.accounts.lots(account.uuid)).length).toBe(0);

    const staging = await store.beginLotImport();
    await staging.add([lot, { ...lot, quantity: "5" }]);
    const seen: string[] = [];
    for await (const l of staging.lots()) seen.push(l.quantity);
    expect(seen).toEqual(["10", "5"]);
    expect(await staging.commit(account.uuid, "append")).toEqual({ before: 0, after: 2 });
    expect((await store.accounts.lots(account.uuid)).length).toBe(2);
    await store.close();
  });
});
