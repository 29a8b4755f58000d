/**
 * `lotwise completion bash|zsh` (issue 17, terminal): the scripts come from the command tree, so every top-level
 * command and the flags of each command complete; the bash script is valid bash and, driven as bash's completion
 * would drive it, completes command names, flags, fixed choices and files.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command, Option } from "commander";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COMMAND_MODULES } from "../src/cli/command-table.js";
import { bashCompletion, completionNodes, zshCompletion } from "../src/cli/completion.js";
import { main } from "../src/cli/main.js";
import { memoryOutput } from "../src/cli/output.js";

const dir = mkdtempSync(join(tmpdir(), "lotwise-completion-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const has = (cmd: string) => spawnSync("sh", ["-c", `command -v ${cmd}`]).status === 0;
const hasBash = has("bash");
const hasZsh = has("zsh");

async function script(shell: string): Promise<{ code: number; text: string; stderr: string }> {
  const out = memoryOutput(false);
  const code = await main(["node", "lotwise", "completion", shell], { output: () => out });
  return { code, text: out.stdout.join("\n"), stderr: out.stderr.join("\n") };
}

/** The `case` row of a data function for a command path: the words it lists. */
function row(text: string, fn: string, path: string): string[] {
  const body = text.slice(text.indexOf(`${fn}() {`));
  const m = new RegExp(`\\n    "${path}"\\) echo "([^"]*)" ;;`).exec(body.slice(0, body.indexOf("\n}")));
  return m ? m[1]!.split(" ") : [];
}

const topLevel = COMMAND_MODULES.flatMap((m) => m.commands.map((c) => c.name));
let bash = "";
let zsh = "";
beforeAll(async () => {
  const b = await script("bash");
  expect(b.code, b.stderr).toBe(0);
  bash = b.text;
  const z = await script("zsh");
  expect(z.code, z.stderr).toBe(0);
  zsh = z.text;
  writeFileSync(join(dir, "lotwise.bash"), `${bash}\n`);
  writeFileSync(join(dir, "_lotwise"), `${zsh}\n`);
});

/** COMPREPLY of the bash script for a command line (a trailing space completes a new word), run in `cwd`. */
function complete(line: string, cwd = dir): string[] {
  const words = line.split(" ");
  const program = `source ${JSON.stringify(join(dir, "lotwise.bash"))}
COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}
_lotwise; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const out = execFileSync("bash", ["-c", program], { cwd, encoding: "utf8" });
  return out.split("\n").filter(Boolean).sort();
}

describe("lotwise completion", () => {
  it("lists every top-level command of the command table (24 with completion) in both scripts", () => {
    expect(topLevel).toHaveLength(24);
    expect(topLevel).toContain("completion");
    for (const text of [bash, zsh])
      expect(row(text, "_lotwise_subcommands", "").sort()).toEqual([...topLevel].sort());
  });

  it("lists sub-commands and the flags of several commands, their own and the global ones", () => {
    expect(row(bash, "_lotwise_subcommands", "clients")).toEqual(
      expect.arrayContaining(["list", "create", "show"]),
    );
    expect(row(bash, "_lotwise_flags", "clients list")).toEqual(
      expect.arrayContaining(["--out", "--store", "--json", "--url", "--help"]),
    );
    expect(row(bash, "_lotwise_flags", "lots import")).toEqual(
      expect.arrayContaining(["--map", "--date-order", "--currency", "--store"]),
    );
    expect(row(bash, "_lotwise_flags", "rebalance")).toEqual(
      expect.arrayContaining(["--when", "--all", "--as-of"]),
    );
    expect(row(bash, "_lotwise_flags", "store copy")).toEqual(expect.arrayContaining(["--from", "--to"]));
    // --store takes a file; --json takes nothing (the word after it is a command, not its value).
    expect(row(bash, "_lotwise_file_flags", "")).toContain("--store");
    expect(row(bash, "_lotwise_value_flags", "")).not.toContain("--json");
    expect(row(zsh, "_lotwise_flags", "lots import")).toEqual(row(bash, "_lotwise_flags", "lots import"));
  });

  it("derives the scripts from the tree it is given: a new command and its flags complete without a list to edit", () => {
    const program = new Command("lotwise").option("--store <file>", "store");
    const frob = program.command("frobnicate").description("new");
    frob.command("twiddle").addOption(new Option("--speed <level>", "how fast").choices(["slow", "fast"]));
    frob.command("load").argument("<file>", "a CSV");
    const nodes = completionNodes(program);
    expect(nodes.map((n) => n.path)).toEqual(["", "frobnicate", "frobnicate twiddle", "frobnicate load"]);
    const twiddle = nodes.find((n) => n.path === "frobnicate twiddle")!;
    expect(twiddle.flags).toEqual(expect.arrayContaining(["--speed", "--store", "--help"]));
    expect(twiddle.choiceFlags.get("--speed")).toEqual(["slow", "fast"]);
    expect(nodes.find((n) => n.path === "frobnicate load")!.fileArgument).toBe(true);
    expect(row(bashCompletion(program), "_lotwise_subcommands", "frobnicate")).toEqual(["twiddle", "load"]);
    expect(row(zshCompletion(program), "_lotwise_flags", "frobnicate twiddle")).toContain("--speed");
  });

  it("refuses an unknown shell as a usage error (exit 2) naming the choices", async () => {
    const r = await script("fish");
    expect(r.code).toBe(2);
  });

  it.skipIf(!hasBash)("writes a valid bash script (bash -n)", () => {
    const r = spawnSync("bash", ["-n", join(dir, "lotwise.bash")], { encoding: "utf8" });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
  });

  it.skipIf(!hasBash)("completes command names, sub-commands and flags when bash drives _lotwise", () => {
    expect(complete("lotwise cl")).toEqual(["clients"]);
    expect(complete("lotwise clients l")).toEqual(["list"]);
    expect(complete("lotwise clients list --st")).toEqual(["--store"]);
    // The value of --store is skipped while finding the command: `--store x.db cl` is still `clients`.
    expect(complete("lotwise --store x.db cl")).toEqual(["clients"]);
    expect(complete("lotwise --json cl")).toEqual(["clients"]);
    expect(complete("lotwise completion ")).toEqual(["bash", "zsh"]);
    expect(complete("lotwise store copy --f")).toEqual(["--from"]);
  });

  it.skipIf(!hasBash)(
    "completes files for --store and for a command's file argument, fixed choices for enums",
    () => {
      const cwd = join(dir, "files");
      mkdirSync(cwd, { recursive: true });
      writeFileSync(join(cwd, "book.db"), "");
      writeFileSync(join(cwd, "lots.csv"), "");
      expect(complete("lotwise clients list --store bo", cwd)).toEqual(["book.db"]);
      expect(complete("lotwise lots import lo", cwd)).toEqual(["lots.csv"]);
      // A value that is not a file completes to nothing rather than to file names.
      expect(complete("lotwise --org ", cwd)).toEqual([]);
    },
  );

  it.skipIf(!hasZsh)("writes a zsh script that zsh parses (zsh -n)", () => {
    const r = spawnSync("zsh", ["-n", join(dir, "_lotwise")], { encoding: "utf8" });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
  });

  it.runIf(!hasZsh)("skips the zsh syntax check: zsh is not installed on this machine", () => {
    expect(zsh.startsWith("#compdef lotwise\n")).toBe(true);
    expect(zsh).toContain("compdef _lotwise lotwise");
  });
});
