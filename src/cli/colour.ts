/**
 * @module cli/colour
 * Colour in what the CLI prints for people: drift and optimization statuses, warnings. Colour only on a terminal,
 * never in pipes, files, `--json` or tests; `NO_COLOR` (https://no-color.org, any non-empty value) or the global
 * `--no-color` turn it off, `FORCE_COLOR` (1-3) turns it on. Tables measure cells without the escape codes.
 */
import { Chalk, type ChalkInstance } from "chalk";

/** The colour level of stdout: 0 (none), 1 (16 colours) ... 3 (true colour). */
export function colourLevel(
  env: NodeJS.ProcessEnv = process.env,
  argv: readonly string[] = process.argv,
  isTTY: boolean = Boolean(process.stdout.isTTY),
): 0 | 1 | 2 | 3 {
  if (argv.includes("--no-color")) return 0;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return 0;
  const forced = env.FORCE_COLOR;
  if (forced !== undefined && forced !== "") {
    const n = Number(forced);
    return n === 0 ? 0 : n === 2 ? 2 : n === 3 ? 3 : 1;
  }
  return isTTY && env.TERM !== "dumb" ? 1 : 0;
}

let current: ChalkInstance | undefined;

/**
 * Decide the colours of one run of the CLI from its own arguments (`main(argv)` calls it first), so that a program
 * calling `main` with `--no-color` gets none whatever the process was started with.
 */
export function decideColours(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  isTTY: boolean = Boolean(process.stdout.isTTY),
): ChalkInstance {
  current = new Chalk({ level: colourLevel(env, argv, isTTY) });
  return current;
}

/** The painter of this run (decided by {@link decideColours}, else once from the process's own arguments). */
export function colours(): ChalkInstance {
  current ??= new Chalk({ level: colourLevel() });
  return current;
}

/** A status word in its colour: ok / optimal green, warning / suboptimal yellow, breach / infeasible red. */
export function paintStatus(text: string, c: ChalkInstance = colours()): string {
  const key = text.toLowerCase();
  if (key === "ok" || key === "optimal" || key === "success" || key === "created") return c.green(text);
  if (key === "warning" || key === "suboptimal" || key === "skipped") return c.yellow(text);
  if (key === "breach" || key === "infeasible" || key === "failure" || key === "failed") return c.red(text);
  return text;
}

/** `warning: text` with the prefix in yellow. */
export function warningLine(text: string, c: ChalkInstance = colours()): string {
  return `${c.yellow("warning:")} ${text}`;
}
