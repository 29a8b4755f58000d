/**
 * `lotwise backtest ...` as users run it, on a demo store: start/status/wait/show/list/cancel/batch with their exit
 * codes, the HTML report, usage errors, a remote run on `lotwise serve` giving the same result as a local one, and
 * a `backtest start` killed with SIGKILL mid-job whose job the next command recovers and finishes.
 * The commands run in-process (test/helpers/cli-inprocess.ts: `main()` with the output captured, the same text and
 * exit codes as the binary; local jobs run on worker threads of the test process, as they do in the binary's).
 * Real processes of the built binary (`npm run build` first) where a process is the point: the `lotwise serve`
 * instances and the `backtest start` killed with SIGKILL.
 *
 * These tests need the account backtest engine wired into the build (dist/service/jobs/default-executor.js imports
 * backtest-run.js); without it they are skipped and say so.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildProgram } from "../src/cli/main.js";
import { type BacktestJob, backtestJobListSchema, backtestJobSchema } from "../src/contract/index.js";
import { openSqliteStore } from "../src/store/index.js";
import { BIN, ROOT, serveStore } from "./helpers/cli.js";
import { type Run, run } from "./helpers/cli-inprocess.js";

function jobOf(r: Run, code = 0): BacktestJob {
  expect(r.code, r.stderr).toBe(code);
  return backtestJobSchema.parse(JSON.parse(r.stdout));
}

describe("lotwise backtest commands", () => {
  it("has the sub-commands of PRODUCT.md section 6 (plus cancel)", async () => {
    const backtest = (await buildProgram()).commands.find((c) => c.name() === "backtest")!;
    expect(backtest.commands.map((c) => c.name()).sort()).toEqual(
      ["batch", "cancel", "list", "show", "start", "status", "wait"].sort(),
    );
  });
});

describe("lotwise backtest", () => {
  let dir: string;
  let store: string;
  let demo: { api_key: string; client_uuid: string; account_uuid: string; portfolio_config_uuid: string };
  const local = (...args: string[]) => run([...args, "--store", store]);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "lotwise-cli-backtest-"));
    store = join(dir, "demo.db");
    const init = await run(["init", "--demo", "--store", store, "--json"]);
    expect(init.code, init.stderr).toBe(0);
    demo = JSON.parse(init.stdout);
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("start runs the job here and prints the summary by case and the value chart; --json prints the job", async () => {
    const human = await local(
      "backtest",
      "start",
      "--account",
      demo.account_uuid,
      "--end-date",
      "2024-12-31",
    );
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain("Summary by case");
    expect(human.stdout).toMatch(/│ Status\s+│ SUCCESS \d+ periods/);
    expect(human.stdout).toContain("● tax_managed   ○ harvest_baseline   ◆ pre_tax");
    // Tax first: the tax effect section comes before the summary, with the assumptions.
    expect(human.stdout.indexOf("Tax effect vs pre_tax, annualized")).toBeGreaterThan(0);
    expect(human.stdout.indexOf("Tax effect vs pre_tax, annualized")).toBeLessThan(
      human.stdout.indexOf("Summary by case"),
    );
    expect(human.stdout).toContain(
      "Assumptions: 37.0% short-term / 20.0% long-term rates; losses: account only",
    );
    const job = jobOf(
      await local("backtest", "start", "--account", demo.account_uuid, "--tax-gamma", "2", "--json"),
    );
    expect(job.status).toBe("SUCCESS");
    expect(job.params).toEqual({ tax_gamma: 2 });
    expect(job.resolved_params.tax_gamma).toBe(2);
    expect(Object.keys(job.result!)).toEqual(expect.arrayContaining(["tax_managed", "pre_tax", "benchmark"]));
    expect(job.progress.completed_periods).toBe(job.progress.planned_periods);
    expect(job.progress.planned_periods).toBeGreaterThan(0);
  });

  it("start --no-wait leaves a PENDING job; status shows it; wait runs it; list and show find it", async () => {
    const pending = jobOf(
      await local("backtest", "start", "--account", demo.account_uuid, "--no-wait", "--json"),
    );
    expect(pending.status).toBe("PENDING");
    const status = await local("backtest", "status", pending.id);
    expect(status.code).toBe(0);
    expect(status.stdout.trim()).toBe(`${pending.id}  PENDING`);
    const done = jobOf(await local("backtest", "wait", pending.id, "--json"));
    expect(done.status).toBe("SUCCESS");
    const list = await local("backtest", "list", "--account", demo.account_uuid, "--json");
    expect(backtestJobListSchema.parse(JSON.parse(list.stdout)).map((j) => j.id)).toContain(pending.id);
    // The list file carries tax_alpha_bps with its parts and assumptions, never alone.
    const csv = join(dir, "backtests.csv");
    expect((await local("backtest", "list", "--account", demo.account_uuid, "--out", csv)).code).toBe(0);
    const [header, ...lines] = readFileSync(csv, "utf8").trim().split("\n");
    const cols = header!.split(",");
    const row = lines.map((l) => l.split(",")).find((r) => r[0] === pending.id)!;
    const cell = (name: string) => row[cols.indexOf(name)];
    const tm = done.result!.tax_managed!;
    expect(Number(cell("tax_alpha_bps"))).toBe(tm.tax_alpha_bps);
    expect(Number(cell("tax_effect"))).toBe(tm.attribution!.tax_effect);
    expect(Number(cell("pre_tax_active_return"))).toBe(tm.attribution!.pre_tax_active_return);
    expect([cell("loss_usage"), cell("liquidate_at_end")]).toEqual([
      tm.assumptions!.loss_usage,
      String(tm.assumptions!.liquidate_at_end),
    ]);
    expect(Number(cell("short_term_rate"))).toBe(tm.assumptions!.short_term_rate);
    const shown = jobOf(await local("backtest", "show", pending.id, "--json"));
    expect(shown).toEqual(done);
    const html = join(dir, "report.html");
    const show = await local("backtest", "show", pending.id, "--html", html);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stderr).toContain(`wrote ${html}`);
    const page = readFileSync(html, "utf8");
    expect(page).toMatch(/^<!doctype html>/);
    expect(page).not.toMatch(/https?:\/\/|<script|<link|<img/i);
    // Value, drawdown and return charts; titled by the account's name, the tax section first.
    expect(page.match(/<svg /g)?.length).toBe(3);
    expect(page).toContain(pending.id);
    expect(page).toMatch(/<title>Backtest of Joint taxable, \d{4}-\d{2}-\d{2} to \d{4}-\d{2}-\d{2}<\/title>/);
    expect(page.indexOf('<section id="tax">')).toBeGreaterThan(0);
    expect(page.indexOf('<section id="tax">')).toBeLessThan(page.indexOf("<svg"));
  }, 120_000);

  it("wait --no-run only waits, and gives up with exit code 1 after --timeout", async () => {
    const pending = jobOf(
      await local("backtest", "start", "--account", demo.account_uuid, "--no-wait", "--json"),
    );
    const r = await local("backtest", "wait", pending.id, "--no-run", "--timeout", "0.5");
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`backtest job ${pending.id} is still PENDING after 0.5 s`);
  });

  it("cancel fails a PENDING job at once; waiting on it exits 1; cancelling again exits 1", async () => {
    const pending = jobOf(
      await local("backtest", "start", "--account", demo.account_uuid, "--no-wait", "--json"),
    );
    const cancelled = jobOf(await local("backtest", "cancel", pending.id, "--json"));
    expect(cancelled).toMatchObject({ status: "FAILURE", error_message: "Cancelled before it started." });
    const waited = await local("backtest", "wait", pending.id);
    expect(waited.code).toBe(1);
    expect(waited.stderr).toContain("failed: Cancelled before it started.");
    const again = await local("backtest", "cancel", pending.id);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("[backtest_finished]");
  });

  it("refuses a job beyond LOTWISE_MAX_QUEUED_JOBS with the queue-full message (exit 1), and lotwise serve's limits answer 429", async () => {
    const db = openSqliteStore(store, { create: false });
    const org = (await db.organizations.list())[0]!.uuid;
    const waiting = (await db.backtestJobs.list(org, { status: "PENDING" })).length;
    await db.close();
    const cap = { LOTWISE_MAX_QUEUED_JOBS: String(waiting + 1) };
    const startNoWait = ["backtest", "start", "--account", demo.account_uuid, "--no-wait", "--store", store];
    const queued = jobOf(await run([...startNoWait, "--json"], cap));
    const refused = await run(startNoWait, cap);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toBe(
      `lotwise: This organization already has ${waiting + 1} backtest jobs waiting to run (the limit is ${waiting + 1}). Wait until some of them have started, or cancel some, then start this one again. [too_many_queued_jobs]`,
    );
    // The same store over HTTP, with the server's own cap and a rate limit of one request at once.
    const server = await serveStore(store, [
      "--workers",
      "0",
      "--max-queued-jobs",
      String(waiting + 1),
      "--rate-limit",
      "60",
      "--rate-burst",
      "1",
    ]);
    try {
      const post = () =>
        fetch(
          `${server.url}/api/v1/custom/org/${org}/clients/${demo.client_uuid}/accounts/${demo.account_uuid}/backtests/`,
          {
            method: "POST",
            headers: { "X-Api-Key": demo.api_key, "Content-Type": "application/json" },
            body: "{}",
          },
        );
      const full = await post();
      expect(full.status).toBe(429);
      expect(((await full.json()) as { error: { code: string } }).error.code).toBe("too_many_queued_jobs");
      const limited = await post();
      expect(limited.status).toBe(429);
      expect(limited.headers.get("retry-after")).toBe("1");
      expect(((await limited.json()) as { error: { code: string } }).error.code).toBe("rate_limited");
    } finally {
      await server.stop();
    }
    expect((await local("backtest", "cancel", queued.id)).code).toBe(0);
    const bad = await local("serve", "--rate-limit", "ten");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--rate-limit must be an integer from 0 to 1000000000, got "ten"');
  });

  it("refuses bad parameters as usage errors naming the option, and unknown accounts as failures", async () => {
    const bad = await local("backtest", "start", "--account", demo.account_uuid, "--tax-gamma", "101");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--tax-gamma: 101 is above the maximum 100");
    const nav = await local("backtest", "start", "--account", demo.account_uuid, "--starting-nav", "50");
    expect(nav.code).toBe(2);
    expect(nav.stderr).toContain("--starting-nav: 50 is below the minimum 100");
    const period = await local(
      "backtest",
      "start",
      "--account",
      demo.account_uuid,
      "--rebalance-period",
      "weekly",
    );
    expect(period.code).toBe(2);
    expect(period.stderr).toContain("--rebalance-period");
    const ghost = await local("backtest", "start", "--account", "00000000-0000-4000-8000-000000000000");
    expect(ghost.code).toBe(1);
    expect(ghost.stderr).toContain("[account_not_found]");
  });

  it("batch runs many accounts, writes JSON and CSV, and sets the exit code from the thresholds", async () => {
    const more: string[] = [];
    for (const name of ["Cash", "Second"]) {
      const r = await local(
        "accounts",
        "create",
        "--client",
        demo.client_uuid,
        "--name",
        name,
        "--cash",
        "50000",
        "--portfolio-config",
        demo.portfolio_config_uuid,
        "--json",
      );
      expect(r.code, r.stderr).toBe(0);
      more.push(JSON.parse(r.stdout).uuid);
    }
    const out = join(dir, "results.json");
    const pass = await local(
      "backtest",
      "batch",
      "--all",
      "--concurrency",
      "2",
      "--out",
      out,
      "--min-tax-alpha",
      "-100000",
    );
    expect(pass.code, pass.stderr).toBe(0);
    const doc = JSON.parse(readFileSync(out, "utf8"));
    expect(doc.summary).toMatchObject({
      accounts: 3,
      succeeded: 3,
      failed: 0,
      breached: 0,
      passed: true,
      concurrency: 2,
    });
    expect(doc.results.map((r: { account_uuid: string }) => r.account_uuid).sort()).toEqual(
      [demo.account_uuid, ...more].sort(),
    );
    expect(pass.stdout).toMatch(
      /3 accounts in [\d.]+ s \([\d.]+ per minute, concurrency 2\): 3 succeeded.*PASS/,
    );
    // CI logs (CI=true) get one line per account on stderr.
    expect(pass.stderr.match(/^\[\d\/3\] /gm)).toHaveLength(3);

    const list = join(dir, "accounts.txt");
    writeFileSync(list, `# gate\n${demo.account_uuid}\n${more[0]}\n00000000-0000-4000-8000-000000000000\n`);
    const csv = join(dir, "results.csv");
    const gate = await local(
      "backtest",
      "batch",
      "--accounts",
      list,
      "--out",
      csv,
      "--min-tax-alpha",
      "100000",
      "--max-tracking-error",
      "100%",
      "--json",
    );
    expect(gate.code).toBe(1);
    const result = JSON.parse(gate.stdout);
    expect(result.summary).toMatchObject({
      accounts: 3,
      succeeded: 2,
      rejected: 1,
      breached: 2,
      passed: false,
    });
    expect(result.results[2]).toMatchObject({
      status: "REJECTED",
      error: expect.stringContaining("not found"),
    });
    expect(result.results[0].breaches[0]).toMatch(/^tax_alpha -?[\d.]+ bps < min 100000 bps$/);
    const rows = readFileSync(csv, "utf8").trim().split("\n");
    expect(rows).toHaveLength(4);
    expect(rows[0]!.startsWith("account_uuid,client_uuid,job_id,status,case,")).toBe(true);
  }, 120_000);

  it("batch usage errors exit 2", async () => {
    expect((await local("backtest", "batch")).code).toBe(2);
    expect((await local("backtest", "batch", "--all", "--out", join(dir, "r.txt"))).code).toBe(2);
    expect((await local("backtest", "batch", "--all", "--concurrency", "0")).code).toBe(2);
    const r = await local("backtest", "batch", "--all", "--max-tracking-error", "wide");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      '--max-tracking-error expects a fraction (0.02) or a percent (2%), got "wide"',
    );
  });

  it("runs remotely on lotwise serve's workers with the same result as locally", async () => {
    const server = await serveStore(store, ["--workers", "1"]);
    try {
      const url = server.url;
      const remote = (...args: string[]) => run([...args, "--url", url, "--api-key", demo.api_key]);
      const args = [
        "backtest",
        "start",
        "--account",
        demo.account_uuid,
        "--end-date",
        "2024-06-28",
        "--json",
      ];
      const there = jobOf(await remote(...args));
      const here = jobOf(await local(...args));
      expect(there.status).toBe("SUCCESS");
      expect(there.result).toEqual(here.result);
      expect(there.id).not.toBe(here.id);
      const status = await remote("backtest", "status", there.id);
      expect(status.stdout).toContain("SUCCESS");
    } finally {
      await server.stop();
    }
  }, 120_000);

  it("recovers a job whose `backtest start` was killed with SIGKILL mid-job: the next command finishes it", async () => {
    const child: ChildProcess = spawn(
      process.execPath,
      [BIN, "backtest", "start", "--account", demo.account_uuid, "--json", "--store", store],
      { cwd: ROOT, env: { ...process.env, CI: "true" }, stdio: "ignore" },
    );
    const exited = new Promise((r) => child.once("exit", r));
    const db = openSqliteStore(store, { create: false });
    let id: string | undefined;
    try {
      const end = Date.now() + 30_000;
      for (;;) {
        const running = (
          await db.backtestJobs.list((await db.organizations.list())[0]!.uuid, { status: "RUNNING" })
        ).find((j) => (j.progress?.completed_periods ?? 0) >= 2);
        if (running) {
          id = running.id;
          break;
        }
        if (Date.now() > end) throw new Error("the job never ran");
        await new Promise((r) => setTimeout(r, 10));
      }
      child.kill("SIGKILL");
      await exited;
      expect((await db.backtestJobs.getById(id))!.status).toBe("RUNNING");
    } finally {
      await db.close();
    }
    // The next command on the store recovers it: re-queued, then run to the end by `wait`.
    const status = await local("backtest", "status", id);
    expect(status.stdout.trim()).toBe(`${id}  PENDING (re-queued after its worker stopped)`);
    expect(status.stderr).toContain(
      "recovered backtest jobs left running by a stopped process: 1 re-queued, 0 failed",
    );
    const done = jobOf(await local("backtest", "wait", id, "--json"));
    expect(done.status).toBe("SUCCESS");
    const after = openSqliteStore(store, { create: false });
    expect((await after.backtestJobs.getById(id))!.attempts).toBe(2);
    await after.close();
  });
});
