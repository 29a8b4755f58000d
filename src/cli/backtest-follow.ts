/**
 * @module cli/backtest-follow
 * Following backtest jobs until they end, in both CLI modes. Local mode runs them here: a job runner over the store
 * file (worker threads, `assigned` policy: only the jobs this command hands it). Remote mode — and local jobs that
 * this command must not run — polls the backend. Either way the caller sees progress and each finished job, and
 * Ctrl-C cancels the jobs still in flight.
 */
import type { BacktestJob, BacktestProgress } from "../contract/index.js";
import { type Backend, backtestJobRead } from "../service/index.js";
import { BacktestJobRunner } from "../service/jobs/index.js";
import type { CommandContext } from "./context.js";

/** Callbacks of a {@link JobFollower}. */
export interface FollowCallbacks {
  onProgress?(jobId: string, progress: BacktestProgress): void;
  onFinished?(job: BacktestJob): void;
}

/** Something that runs or watches jobs until they end. */
export interface JobFollower {
  /** Resolves with the job once it is SUCCESS or FAILURE (or rejects when following is impossible). */
  follow(jobId: string): Promise<BacktestJob>;
  close(): Promise<void>;
}

/** Milliseconds between two polls of a job. */
export const POLL_INTERVAL_MS = { local: 200, remote: 500 } as const;

const done = (j: BacktestJob) => j.status === "SUCCESS" || j.status === "FAILURE";

/** A follower that polls the backend (remote mode, or local jobs run by someone else). */
export function pollingFollower(
  backend: Backend,
  callbacks: FollowCallbacks,
  intervalMs: number,
): JobFollower {
  let closed = false;
  return {
    async follow(jobId) {
      let seen = "";
      for (;;) {
        const job = await backend.getBacktest(jobId);
        const p = JSON.stringify(job.progress);
        if (p !== seen) {
          seen = p;
          callbacks.onProgress?.(jobId, job.progress);
        }
        if (done(job)) {
          callbacks.onFinished?.(job);
          return job;
        }
        if (closed) throw new Error(`Stopped following backtest job ${jobId}.`);
        await new Promise((r) => setTimeout(r, intervalMs));
      }
    },
    async close() {
      closed = true;
    },
  };
}

/** A follower that runs the jobs in this process's worker threads (local mode). */
export async function runningFollower(
  ctx: CommandContext,
  callbacks: FollowCallbacks,
  concurrency: number,
): Promise<JobFollower> {
  const runner = new BacktestJobRunner({
    store: await ctx.store(),
    claim: "assigned",
    concurrency,
    log: (line) => ctx.out.note(line),
  });
  runner.onEvent((e) => {
    if (e.type === "progress") callbacks.onProgress?.(e.jobId, e.progress);
    else if (e.type === "finished") callbacks.onFinished?.(backtestJobRead(e.job));
  });
  const report = await runner.start();
  if (report.requeued.length + report.failed.length > 0)
    ctx.out.note(
      `lotwise: recovered backtest jobs left running by a stopped process: ${report.requeued.length} re-queued, ${report.failed.length} failed.`,
    );
  return {
    async follow(jobId) {
      runner.enqueue([jobId]);
      return backtestJobRead(await runner.wait(jobId));
    },
    close: () => runner.stop(),
  };
}

/**
 * On the first Ctrl-C, call `onInterrupt` (cancel what is in flight) and keep going so that the jobs end as
 * cancelled; a second Ctrl-C exits at once (a local job left RUNNING is recovered by the next runner). Returns the
 * function that removes the handler.
 */
export function interruptible(ctx: CommandContext, onInterrupt: () => Promise<void>): () => void {
  let count = 0;
  const handler = () => {
    count += 1;
    if (count > 1) process.exit(130);
    ctx.out.note(
      "lotwise: interrupted; cancelling the backtest jobs in flight (Ctrl-C again to quit now)...",
    );
    void onInterrupt();
  };
  process.on("SIGINT", handler);
  return () => process.off("SIGINT", handler);
}
