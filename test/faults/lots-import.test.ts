/**
 * Fault injection on `lotwise lots import` (the built binary on a store file): two appends at once must both land
 * (or one be refused with a clear error and a non-zero exit; never a silent loss), and an import killed with
 * SIGKILL must leave the account exactly as it was (nothing half-written). Every command is a process of its own
 * (test/helpers/cli.ts, not the in-process runner): the point is two processes on one file and a process killed
 * mid-write. Run `npm run build` first.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, createClient } from "../../src/service/index.js";
import { openSqliteStore } from "../../src/store/index.js";
import { BIN, ROOT, type Run, run } from "../helpers/cli.js";
import { createTestStore } from "../helpers/fixture.js";

let dir: string;
let storePath: string;
let org: string;
let symbols: string[];

/** A lots CSV of `n` rows; every row's cost basis is `tag`, so the lots of each file can be told apart. */
function writeLots(name: string, n: number, tag: string): string {
  const lines = ["Symbol,Quantity,Cost Basis,Open Date"];
  for (let i = 0; i < n; i++) lines.push(`${symbols[i % symbols.length]},${i + 1},${tag},2024-01-02`);
  const file = join(dir, name);
  writeFileSync(file, `${lines.join("\n")}\n`);
  return file;
}

/** A fresh account of `lots` lots in the store file (written in-process, then the file is closed). */
async function accountWithLots(lots: number): Promise<string> {
  const store = openSqliteStore(storePath, { create: false });
  try {
    const ctx = { store, clock: () => new Date("2025-07-01T12:00:00Z") };
    const client = await createClient(ctx, org, {});
    return (
      await createAccount(ctx, org, client.uuid, {
        holdings: {
          tax_lots: Array.from({ length: lots }, (_, i) => ({
            theme_asset_id: `${symbols[i % symbols.length]}:XNYS`,
            quantity: String(i + 1),
            cost_basis: "7",
            trade_date: "2023-05-04",
          })),
        },
      })
    ).uuid;
  } finally {
    await store.close();
  }
}

/** The stored lots of an account: "symbol quantity cost" in stored order. */
async function storedLots(account: string): Promise<string[]> {
  const store = openSqliteStore(storePath, { create: false });
  try {
    return (await store.accounts.lotRows(account)).map((r) => `${r[1]} ${r[2]} ${r[3]}`);
  } finally {
    await store.close();
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "lotwise-faults-lots-"));
  storePath = join(dir, "store.db");
  const t = await createTestStore({ path: storePath });
  org = t.orgA.uuid;
  // Symbols listed once, on XNYS (plain symbols resolve without --mic).
  const bySymbol = new Map<string, number>();
  for (const id of [...t.usTickers, ...t.caTickers]) {
    const s = id.split(":")[0]!;
    bySymbol.set(s, (bySymbol.get(s) ?? 0) + 1);
  }
  symbols = t.usTickers
    .filter((id) => id.endsWith(":XNYS") && bySymbol.get(id.split(":")[0]!) === 1)
    .slice(0, 8)
    .map((id) => id.split(":")[0]!);
  t.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const importArgs = (file: string, account: string, ...extra: string[]) => [
  "lots",
  "import",
  file,
  "--account",
  account,
  "--store",
  storePath,
  "--org",
  org,
  ...extra,
];

describe("lots import under faults", () => {
  it("two concurrent appends of 5,000 lots to an account of 10 end with 10,010 lots (no silent loss)", async () => {
    const account = await accountWithLots(10);
    const before = await storedLots(account);
    const a = writeLots("a.csv", 5000, "1.5");
    const b = writeLots("b.csv", 5000, "2.5");
    const runs: Run[] = await Promise.all([
      run(importArgs(a, account, "--append", "--json")),
      run(importArgs(b, account, "--append", "--json")),
    ]);
    const after = await storedLots(account);
    const landed = runs.filter((r) => r.code === 0).length;
    expect(landed).toBeGreaterThan(0);
    for (const r of runs.filter((x) => x.code !== 0)) {
      // A refused writer says so (never exit 0 with its lots missing) and shows no stack trace.
      expect(r.stderr).toMatch(/lotwise: /);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
    expect(after).toHaveLength(10 + 5000 * landed);
    expect(after.slice(0, 10)).toEqual(before);
    expect(after.filter((l) => l.endsWith(" 1.5"))).toHaveLength(5000);
    expect(after.filter((l) => l.endsWith(" 2.5"))).toHaveLength(5000);
  });

  it("kill -9 during an import leaves the account exactly as before (and the store usable)", async () => {
    const account = await accountWithLots(10);
    const before = await storedLots(account);
    // Big enough that the import outlasts the first kill (about 2.6 s idle; 60,000 lots once took over 1 s, now 0.9 s).
    const BIG = 200_000;
    const big = writeLots("big.csv", BIG, "3.5");
    const wal = `${storePath}-wal`;
    const walSize = () => {
      try {
        return statSync(wal).size;
      } catch {
        return 0;
      }
    };

    // Kill 1: a second after start, while the file is being read and staged.
    // Kill 2: as soon as the store's write-ahead log grows, i.e. inside the import's one transaction.
    for (const when of ["reading", "committing"] as const) {
      const child: ChildProcess = spawn(process.execPath, [BIN, ...importArgs(big, account)], {
        cwd: ROOT,
        env: { ...process.env, CI: "true", LOTWISE_STORE: "", LOTWISE_URL: "", LOTWISE_API_KEY: "" },
        stdio: "ignore",
      });
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
        child.once("exit", (code, signal) => done({ code, signal })),
      );
      const startWal = walSize();
      const started = Date.now();
      let finished: { code: number | null; signal: NodeJS.Signals | null } | undefined;
      void exited.then((x) => {
        finished = x;
      });
      while (!finished) {
        const due = when === "reading" ? Date.now() - started > 1000 : walSize() > startWal + 64 * 1024;
        if (due) {
          child.kill("SIGKILL");
          break;
        }
        await new Promise((r) => setTimeout(r, 2));
      }
      const end = await exited;
      const after = await storedLots(account);
      if (when === "reading") {
        // Killed mid-way: the account is exactly as it was.
        expect(end.signal).toBe("SIGKILL");
        expect(after).toEqual(before);
      } else if (end.signal === "SIGKILL") {
        // Killed inside (or right after) the transaction: all of the file or none of it, never a part.
        if (after.length === 10) expect(after).toEqual(before);
        else expect(after).toHaveLength(BIG);
      }
    }
    const check = openSqliteStore(storePath, { create: false });
    try {
      expect(await check.transaction(async () => "ok")).toBe("ok");
    } finally {
      await check.close();
    }
    // The store is usable afterwards: an import now completes (a smaller file: the big one only had to outlast the
    // kills, and importing all of it again took most of this test's time on a busy machine).
    const small = writeLots("small.csv", 2_000, "4.5");
    const done = await run(importArgs(small, account, "--json"));
    expect(done.code, done.stderr).toBe(0);
    expect(JSON.parse(done.stdout)).toMatchObject({ lots_in_file: 2_000, lots_after: 2_000 });
    const final = await storedLots(account);
    expect(final).toHaveLength(2_000);
    expect(final.every((l) => l.endsWith(" 4.5"))).toBe(true);
  }, 240_000); // two 200,000-lot imports to kill: 38-60 s seen on a busy two-core machine
});
