/**
 * @module service/job-queue
 * What job-creating and job-cancelling operations do when the service context has a distributed job queue
 * (`ctx.jobQueue`, PostgreSQL deployments): enqueue the stored job's id after the row is committed, and cancel
 * through the queue (which also removes a waiting entry). An enqueue that fails (Redis down, 5 s timeout) is logged
 * and not an error of the request: the row is stored PENDING, and every worker's reconcile sweep enqueues PENDING rows
 * the queue lacks (docs/backtest-jobs.md, "Jobs on BullMQ").
 */
import type { JobKind } from "../store/records.js";
import type { ServiceContext } from "./context.js";

/** Where a failed enqueue or queue cancel is reported. Replaceable for tests and embedding servers. */
let logLine: (line: string) => void = (line) => void process.stderr.write(`${line}\n`);

/** Send the queue's failure reports to `log` (returns the previous reporter). */
export function setJobQueueLog(log: (line: string) => void): (line: string) => void {
  const previous = logLine;
  logLine = log;
  return previous;
}

function reason(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Put a stored PENDING job on the context's queue, if it has one. Never throws: a failure is logged and the job is
 * enqueued later by a worker's reconcile sweep.
 */
export async function enqueueStoredJob(ctx: ServiceContext, jobId: string, kind: JobKind): Promise<void> {
  const queue = ctx.jobQueue;
  if (!queue) return;
  try {
    await queue.enqueue(jobId, kind);
  } catch (err) {
    logLine(
      `lotwise: could not put ${kind} job ${jobId} on the job queue (${reason(err)}); it stays PENDING and a worker's reconcile sweep queues it once the queue answers.`,
    );
  }
}

/**
 * Cancel a job through the context's queue, if it has one (the caller has checked that the job is the
 * organization's and not finished). Returns false when there is no queue, or when the queue could not be reached
 * (logged): the caller then marks the row itself, which is enough (a worker skips a FAILURE row and polls the
 * cancel flag of a running one).
 */
export async function cancelThroughQueue(ctx: ServiceContext, jobId: string): Promise<boolean> {
  const queue = ctx.jobQueue;
  if (!queue) return false;
  try {
    await queue.cancel(jobId);
    return true;
  } catch (err) {
    logLine(
      `lotwise: cancel of job ${jobId} through the job queue failed (${reason(err)}); marking the job in the store.`,
    );
    return false;
  }
}
