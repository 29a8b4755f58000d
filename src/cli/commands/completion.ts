/**
 * @module cli/commands/completion
 * `lotwise completion bash|zsh`: prints a shell completion script generated from the whole command tree (see
 * cli/completion.ts), so every command and flag of this lotwise completes.
 */
import { Argument, type Command } from "commander";
import { bashCompletion, zshCompletion } from "../completion.js";
import { action, type CommandTree, examples, type ProgramHooks } from "../program.js";

export const COMPLETION_DESCRIPTION =
  "Print a shell completion script (bash or zsh) for every command, sub-command and flag of this lotwise; values complete for fixed choices and files (--store, CSV and JSON files).";

export function registerCompletion(program: Command, hooks: ProgramHooks, tree: CommandTree): void {
  const completion = program
    .command("completion")
    .description(COMPLETION_DESCRIPTION)
    .addArgument(new Argument("<shell>", "the shell to complete for").choices(["bash", "zsh"]))
    .action(
      action(hooks, async (ctx, shell: "bash" | "zsh") => {
        // The script is generated from the full tree (every command module loaded), not from this lazy program.
        const full = await tree();
        ctx.out.line((shell === "bash" ? bashCompletion(full) : zshCompletion(full)).trimEnd());
      }),
    );
  completion.addHelpText(
    "after",
    `
Install (bash):
  Try it in this shell:       source <(lotwise completion bash)
  Every new shell, either:    echo 'source <(lotwise completion bash)' >> ~/.bashrc
  or once, faster to start:   lotwise completion bash > ~/.local/share/bash-completion/completions/lotwise
                              (needs the bash-completion package; or source that file from ~/.bashrc)

Install (zsh):
  Once, in a folder of $fpath: mkdir -p ~/.zfunc && lotwise completion zsh > ~/.zfunc/_lotwise
                               then in ~/.zshrc, before compinit:  fpath+=(~/.zfunc)
                               (start a new shell; rm -f ~/.zcompdump if it does not complete)
  Or in ~/.zshrc after compinit: source <(lotwise completion zsh)

Regenerate the script after upgrading lotwise: it lists the commands and flags of the version that wrote it.
`,
  );
  examples(
    completion,
    "lotwise completion bash > /tmp/lotwise.bash && source /tmp/lotwise.bash",
    "lotwise completion zsh > ~/.zfunc/_lotwise",
  );
}
