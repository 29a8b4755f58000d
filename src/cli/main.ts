/**
 * @module cli/main
 * Entry point of the `lotwise` command. `main(argv)` builds the command tree, runs it and returns the exit
 * code (0 ok, 1 failure, 2 usage); only bin/lotwise.js sets the process exit code.
 */
import { Command, CommanderError } from "commander";
import { VERSION } from "../version.js";

export async function main(argv: readonly string[]): Promise<number> {
  const program = new Command("lotwise")
    .description("Tax-managed portfolios: lots, proposals, optimizer, backtests, themes.")
    .version(VERSION)
    .exitOverride();
  try {
    await program.parseAsync(argv as string[]);
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      return err.exitCode === 0 ? 0 : 2;
    }
    process.stderr.write(`lotwise: ${(err as Error).message}\n`);
    return 1;
  }
}
