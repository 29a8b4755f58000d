/**
 * @module cli/completion
 * Shell completion scripts for `lotwise completion bash|zsh`, generated from the command tree itself (every command,
 * sub-command and flag registered with commander), so a new command or flag completes without a hand-kept list.
 * Values complete where the tree knows them: the choices of an option or argument, and files for `--store` and for
 * options and arguments whose value is a file (`<file>`, `<csv>`, `<path>`, `<dir>`...).
 */
import type { Argument, Command, Option } from "commander";

/** What the completion knows about one command: its place in the tree, sub-commands, flags and arguments. */
export interface CompletionNode {
  /** The command words after `lotwise`, space-separated ("" for `lotwise` itself). */
  readonly path: string;
  readonly subcommands: readonly string[];
  /** Every flag the command accepts, its own and the global ones (long and short spellings). */
  readonly flags: readonly string[];
  /** Flags that take a value (the next word is that value, not a command or an argument). */
  readonly valueFlags: readonly string[];
  /** Flags whose value is a file. */
  readonly fileFlags: readonly string[];
  /** Flags whose value is one of a fixed set, with that set. */
  readonly choiceFlags: ReadonlyMap<string, readonly string[]>;
  /** One of the command's arguments is a file (`lots import <file>`, `market import <kind> <path>`). */
  readonly fileArgument: boolean;
  /** Fixed values of the command's first argument, if it has some. */
  readonly argumentChoices: readonly string[];
}

/** Value names that mean "a file or folder" (`--out <file>`, `--from <store>`, `lots import <file>`). */
const FILE_VALUE = /^(file|path|store|dir|folder|csv)s?$/i;

function valueName(o: Option): string {
  const m = /[<[]([^>\]]+)[>\]]/.exec(o.flags);
  return m ? m[1]! : "";
}

function spellings(o: Option): string[] {
  return [o.long, o.short].filter((s): s is string => typeof s === "string" && s.length > 0);
}

function visibleOptions(c: Command): Option[] {
  return (c.options as readonly Option[]).filter((o) => !o.hidden);
}

/** The nodes of the tree rooted at `program` (`lotwise`), parents before children. */
export function completionNodes(program: Command): CompletionNode[] {
  const globals = visibleOptions(program);
  const nodes: CompletionNode[] = [];
  const visit = (c: Command, path: string[]) => {
    const own = path.length === 0 ? globals : [...visibleOptions(c), ...globals];
    const flags = new Set<string>();
    const valueFlags = new Set<string>();
    const fileFlags = new Set<string>();
    const choiceFlags = new Map<string, readonly string[]>();
    for (const o of own) {
      const names = spellings(o);
      for (const n of names) flags.add(n);
      if (!(o.required || o.optional)) continue;
      for (const n of names) {
        valueFlags.add(n);
        if (o.argChoices && o.argChoices.length > 0) choiceFlags.set(n, o.argChoices);
        else if (FILE_VALUE.test(valueName(o))) fileFlags.add(n);
      }
    }
    flags.add("--help");
    flags.add("-h");
    const subs = c.commands.filter((s) => !(s as unknown as { _hidden?: boolean })._hidden);
    const first = (c.registeredArguments as readonly Argument[])[0];
    nodes.push({
      path: path.join(" "),
      subcommands: subs.map((s) => s.name()),
      flags: [...flags],
      valueFlags: [...valueFlags],
      fileFlags: [...fileFlags],
      choiceFlags,
      fileArgument: (c.registeredArguments as readonly Argument[]).some((a) => FILE_VALUE.test(a.name())),
      argumentChoices: first?.argChoices ?? [],
    });
    for (const s of subs) visit(s, [...path, s.name()]);
  };
  visit(program, []);
  return nodes;
}

/** A word safe inside the double quotes of a shell `case` pattern and of `echo`. */
function shellWord(s: string): string {
  if (!/^[\w@%+=:,./| -]*$/.test(s))
    throw new Error(`cannot put ${JSON.stringify(s)} in a completion script`);
  return s;
}

/** `case "$1" in "<path>") echo "<words>";; ... esac` for one kind of word list. */
function caseTable(
  name: string,
  nodes: readonly CompletionNode[],
  words: (n: CompletionNode) => readonly string[],
): string {
  const rows = nodes
    .map((n) => [n.path, words(n)] as const)
    .filter(([, w]) => w.length > 0)
    .map(([p, w]) => `    "${shellWord(p)}") echo "${w.map(shellWord).join(" ")}" ;;`);
  return `${name}() {\n  case "$1" in\n${rows.join("\n")}\n  esac\n}`;
}

/** Per (path, flag) lookups: `"<path>|<flag>") echo "<choices>"`. */
function choiceTable(nodes: readonly CompletionNode[]): string {
  const rows: string[] = [];
  for (const n of nodes)
    for (const [flag, choices] of n.choiceFlags)
      rows.push(`    "${shellWord(`${n.path}|${flag}`)}") echo "${choices.map(shellWord).join(" ")}" ;;`);
  return `_lotwise_choices() {\n  case "$1" in\n${rows.join("\n")}\n  esac\n}`;
}

/** The shared data functions of both scripts (plain POSIX-ish functions that zsh runs too). */
function dataFunctions(nodes: readonly CompletionNode[]): string {
  return [
    caseTable("_lotwise_subcommands", nodes, (n) => n.subcommands),
    caseTable("_lotwise_flags", nodes, (n) => n.flags),
    caseTable("_lotwise_value_flags", nodes, (n) => n.valueFlags),
    caseTable("_lotwise_file_flags", nodes, (n) => n.fileFlags),
    caseTable("_lotwise_argument_choices", nodes, (n) => n.argumentChoices),
    caseTable("_lotwise_file_argument", nodes, (n) => (n.fileArgument ? ["yes"] : [])),
    choiceTable(nodes),
    `# _lotwise_has WORD LIST...: is WORD one of the LIST?
_lotwise_has() {
  local w="$1" x
  shift
  for x in "$@"; do [ "$x" = "$w" ] && return 0; done
  return 1
}`,
  ].join("\n\n");
}

/**
 * The command path of the words before the cursor (words 1..n-1, `lotwise` at 0): sub-command names extend it,
 * flags are skipped with their values. Shared by both scripts; sets `_lotwise_path`.
 */
const WALK = `# _lotwise_walk WORD...: the command path (sub-command names) of the words before the cursor in _lotwise_path, and
# how many arguments follow it in _lotwise_args.
_lotwise_walk() {
  _lotwise_path=""
  _lotwise_args=0
  local w skip=""
  for w in "$@"; do
    if [ -n "$skip" ]; then skip=""; continue; fi
    case "$w" in
      --*=*) continue ;;
      -*)
        # shellcheck disable=SC2046
        if _lotwise_has "$w" $(_lotwise_value_flags "$_lotwise_path"); then skip=1; fi
        continue ;;
    esac
    # shellcheck disable=SC2046
    if _lotwise_has "$w" $(_lotwise_subcommands "$_lotwise_path"); then
      _lotwise_path="\${_lotwise_path:+$_lotwise_path }$w"
    else
      _lotwise_args=$((_lotwise_args + 1))
    fi
  done
}`;

function header(shell: string, install: string): string {
  return `# ${shell} completion for lotwise, generated by \`lotwise completion ${shell}\` from its command tree.
# Install: ${install}
# Regenerate it after upgrading lotwise so that new commands and flags complete.`;
}

/** The bash completion script (`complete -F _lotwise lotwise`). */
export function bashCompletion(program: Command): string {
  const nodes = completionNodes(program);
  return `${header("bash", "source <(lotwise completion bash)   (or save it as ~/.local/share/bash-completion/completions/lotwise)")}

${dataFunctions(nodes)}

${WALK}

_lotwise() {
  local cur="\${COMP_WORDS[COMP_CWORD]}"
  local prev=""
  [ "$COMP_CWORD" -gt 0 ] && prev="\${COMP_WORDS[COMP_CWORD-1]}"
  _lotwise_walk "\${COMP_WORDS[@]:1:COMP_CWORD-1}"
  local lwpath="$_lotwise_path" choices
  COMPREPLY=()
  # shellcheck disable=SC2046
  if [ "$COMP_CWORD" -gt 1 ] && _lotwise_has "$prev" $(_lotwise_value_flags "$lwpath"); then
    choices="$(_lotwise_choices "$lwpath|$prev")"
    if [ -n "$choices" ]; then
      mapfile -t COMPREPLY < <(compgen -W "$choices" -- "$cur")
    elif _lotwise_has "$prev" $(_lotwise_file_flags "$lwpath"); then
      mapfile -t COMPREPLY < <(compgen -f -- "$cur")
    fi
    return 0
  fi
  if [[ "$cur" == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$(_lotwise_flags "$lwpath")" -- "$cur")
    return 0
  fi
  local subs
  subs="$(_lotwise_subcommands "$lwpath")"
  if [ -n "$subs" ]; then
    mapfile -t COMPREPLY < <(compgen -W "$subs" -- "$cur")
    return 0
  fi
  choices="$(_lotwise_argument_choices "$lwpath")"
  if [ -n "$choices" ] && [ "$_lotwise_args" -eq 0 ]; then
    mapfile -t COMPREPLY < <(compgen -W "$choices" -- "$cur")
  elif [ -n "$(_lotwise_file_argument "$lwpath")" ]; then
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
  fi
  return 0
}

complete -o filenames -F _lotwise lotwise
`;
}

/** The zsh completion script: `#compdef lotwise` for a folder of $fpath, or sourced (`compdef _lotwise lotwise`). */
export function zshCompletion(program: Command): string {
  const nodes = completionNodes(program);
  return `#compdef lotwise
${header("zsh", "save it as _lotwise in a folder of $fpath (e.g. lotwise completion zsh > ~/.zfunc/_lotwise, with fpath+=(~/.zfunc) before compinit in ~/.zshrc), or source <(lotwise completion zsh) after compinit")}

${dataFunctions(nodes)}

${WALK}

_lotwise() {
  local cur="\${words[CURRENT]}" prev="\${words[CURRENT-1]}"
  _lotwise_walk "\${(@)words[2,CURRENT-1]}"
  local lwpath="$_lotwise_path" choices subs
  if (( CURRENT > 2 )) && _lotwise_has "$prev" \${=$(_lotwise_value_flags "$lwpath")}; then
    choices="$(_lotwise_choices "$lwpath|$prev")"
    if [[ -n "$choices" ]]; then
      compadd -- \${=choices}
    elif _lotwise_has "$prev" \${=$(_lotwise_file_flags "$lwpath")}; then
      _files
    fi
    return 0
  fi
  if [[ "$cur" == -* ]]; then
    compadd -- \${=$(_lotwise_flags "$lwpath")}
    return 0
  fi
  subs="$(_lotwise_subcommands "$lwpath")"
  if [[ -n "$subs" ]]; then
    compadd -- \${=subs}
    return 0
  fi
  choices="$(_lotwise_argument_choices "$lwpath")"
  if [[ -n "$choices" ]] && (( _lotwise_args == 0 )); then
    compadd -- \${=choices}
  elif [[ -n "$(_lotwise_file_argument "$lwpath")" ]]; then
    _files
  fi
  return 0
}

if [[ "\${funcstack[1]}" == "_lotwise" ]]; then
  _lotwise "$@"
else
  compdef _lotwise lotwise
fi
`;
}
