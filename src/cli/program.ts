/**
 * @module cli/program
 * Helpers shared by the commands: global options on every command, the action wrapper that opens a context,
 * runs the command and maps errors to exit codes, and help examples.
 */
import type { Command } from "commander";
import { type CommandContext, createCommandContext, type GlobalOptions } from "./context.js";
import { reportError } from "./errors.js";
import type { Output } from "./output.js";

export { dateFlag, fractionText, integerFlag, numberFlag, usdFlag, uuidFlag } from "./flags.js";

/** Hooks the tests use to capture output. */
export interface ProgramHooks {
  output?: (json: boolean) => Output;
  /** Exit code of the last action (set by {@link action}). */
  exitCode?: number;
}

/** The whole command tree (every module loaded and registered), for commands that describe the CLI itself. */
export type CommandTree = () => Promise<Command>;

/** Add an "Examples:" section to a command's help. */
export function examples(cmd: Command, ...lines: string[]): Command {
  return cmd.addHelpText("after", `\nExamples:\n${lines.map((l) => `  $ ${l}`).join("\n")}\n`);
}

/**
 * Wrap a command action: build the context from the global options (inherited by every sub-command), run, report
 * errors once, record the exit code. The store is closed afterwards.
 */
export function action<A extends unknown[]>(
  hooks: ProgramHooks,
  fn: (ctx: CommandContext, ...args: A) => Promise<void> | void,
): (...args: unknown[]) => Promise<void> {
  return async (...args: unknown[]) => {
    const cmd = args[args.length - 1] as Command;
    const globals = cmd.optsWithGlobals() as GlobalOptions;
    const ctx = createCommandContext(globals, hooks.output?.(Boolean(globals.json)));
    try {
      await fn(ctx, ...(args.slice(0, -1) as A));
      hooks.exitCode = 0;
    } catch (err) {
      hooks.exitCode = reportError(err, ctx.out);
    } finally {
      await ctx.close();
    }
  };
}

/** Like {@link action}, but the command returns its exit code (0 ok, 1 failure). */
export function actionWithCode<A extends unknown[]>(
  hooks: ProgramHooks,
  fn: (ctx: CommandContext, ...args: A) => Promise<number>,
): (...args: unknown[]) => Promise<void> {
  return async (...args: unknown[]) => {
    const cmd = args[args.length - 1] as Command;
    const globals = cmd.optsWithGlobals() as GlobalOptions;
    const ctx = createCommandContext(globals, hooks.output?.(Boolean(globals.json)));
    try {
      hooks.exitCode = await fn(ctx, ...(args.slice(0, -1) as A));
    } catch (err) {
      hooks.exitCode = reportError(err, ctx.out);
    } finally {
      await ctx.close();
    }
  };
}

/** Read a JSON object from a file path or `-` (stdin). */
export async function readJsonInput(path: string): Promise<unknown> {
  const { readFile } = await import("node:fs/promises");
  const text = path === "-" ? await readStdin() : await readFile(path, "utf8");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const { ValidationError } = await import("../core/errors.js");
    throw new ValidationError(
      `${path} is not valid JSON: ${(err as Error).message}`,
      [{ path, message: "invalid JSON" }],
      "malformed_body",
    );
  }
  // A key given twice would silently keep its last value (the service refuses such a body the same way).
  const duplicate = (await import("../server/body.js")).jsonDuplicateKey(text);
  if (duplicate !== undefined) {
    const { ValidationError } = await import("../core/errors.js");
    const line = text.slice(0, duplicate.at).split("\n").length;
    throw new ValidationError(
      `${path} repeats the key ${JSON.stringify(duplicate.key)} in one object (line ${line}); give each key once.`,
      [{ path, message: "duplicate key" }],
      "malformed_body",
    );
  }
  return value;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
