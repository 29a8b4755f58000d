/**
 * @module service/jobs/lease-owner
 * Lease owners name who runs a job: `host/pid/runner/worker`. From the name alone a runner can tell whether the
 * owner still exists — a worker of this process is alive while registered here, a process on this host is alive
 * while the OS knows its pid — so that a job left RUNNING by a crashed thread or process is recovered at once
 * instead of after a heartbeat timeout. Owners on other hosts (a shared network file) are judged by heartbeat only.
 */
import { hostname } from "node:os";

/** A parsed lease owner. */
export interface LeaseOwnerParts {
  host: string;
  pid: number;
  runner: string;
  worker: string;
}

/** Owners of this process's live workers (all runners of the process). */
const liveInProcess = new Set<string>();

/**
 * The lease-owner name of one worker.
 * @example leaseOwnerName("a1b2c3", 0) // "build-01/4242/a1b2c3/w0"
 */
export function leaseOwnerName(runnerId: string, worker: string | number): string {
  const w = typeof worker === "number" ? `w${worker}` : worker;
  if (/[/]/.test(runnerId) || /[/]/.test(w))
    throw new TypeError(`leaseOwnerName: runner and worker ids may not contain "/" (${runnerId}, ${w})`);
  return `${hostname()}/${process.pid}/${runnerId}/${w}`;
}

/** The parts of an owner name, or undefined for a name not made by {@link leaseOwnerName}. */
export function parseLeaseOwner(owner: string): LeaseOwnerParts | undefined {
  const parts = owner.split("/");
  if (parts.length !== 4) return undefined;
  const [host, pid, runner, worker] = parts as [string, string, string, string];
  if (!/^\d+$/.test(pid)) return undefined;
  return { host, pid: Number(pid), runner, worker };
}

/** Mark an owner of this process as live (its worker is running) or dead (the worker exited). */
export function registerLiveOwner(owner: string, live: boolean): void {
  if (live) liveInProcess.add(owner);
  else liveInProcess.delete(owner);
}

/** True while a process with this pid exists on this host (EPERM means it exists under another user). */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Whether the owner of a lease may still be running its job:
 * - a worker of this process: while it is registered (see {@link registerLiveOwner});
 * - another process on this host: while that pid exists;
 * - another host, or a name this module did not make: assumed live (the heartbeat decides).
 */
export function isLeaseOwnerLive(owner: string): boolean {
  const p = parseLeaseOwner(owner);
  if (!p || p.host !== hostname()) return true;
  if (p.pid === process.pid) return liveInProcess.has(owner);
  return processExists(p.pid);
}
