/**
 * @module cli/progress-bar
 * A one-line progress bar on stderr for interactive terminals (redrawn in place with a carriage return); where
 * stderr is not a terminal (CI logs, pipes) it writes one plain line at each quarter of the work (25%, 50%, 75%),
 * so a long run shows it is alive, and {@link ProgressBar.done} prints the final line: logs stay readable.
 */

/** A progress bar; {@link createProgressBar} makes one. */
export interface ProgressBar {
  /** Redraw with `completed` of `total` and a short text after the bar. */
  update(completed: number, total: number, text?: string): void;
  /** Clear the bar; print `line` (if any) where it was. */
  done(line?: string): void;
}

/** Where the bar draws and whether it may redraw in place. */
export interface ProgressBarTarget {
  write(text: string): void;
  /** True for a terminal (redraw in place). */
  interactive: boolean;
  /** Terminal width. @default 80 */
  columns?: number;
}

/** The bar itself: `[██████░░░░░░] 50%`, ASCII with `ascii`. */
export function renderBar(completed: number, total: number, width: number, ascii = false): string {
  const fraction = total > 0 ? Math.min(1, Math.max(0, completed / total)) : 0;
  const filled = Math.round(fraction * width);
  const [on, off] = ascii ? ["#", "-"] : ["█", "░"];
  return `[${on.repeat(filled)}${off.repeat(width - filled)}] ${String(Math.floor(fraction * 100)).padStart(3)}%`;
}

/**
 * A bar labelled `label` drawing on `target` (by default stderr, interactive when it is a TTY and CI is not set).
 * @example const bar = createProgressBar("backtest 9f8e"); bar.update(3, 36, "2020-03-31"); bar.done();
 */
export function createProgressBar(label: string, target: ProgressBarTarget = stderrTarget()): ProgressBar {
  let drawn = false;
  let last = "";
  let quarter = 0;
  return {
    update(completed, total, text = "") {
      if (!target.interactive) {
        const q = total > 0 ? Math.floor((4 * Math.min(completed, total)) / total) : 0;
        if (q > quarter && q < 4) {
          quarter = q;
          target.write(`${label}: ${q * 25}% (${completed}/${total})${text ? ` ${text}` : ""}\n`);
        }
        return;
      }
      const columns = target.columns ?? 80;
      const counts = total > 0 ? ` ${completed}/${total}` : "";
      const head = `${label} `;
      const tail = `${counts}${text ? ` ${text}` : ""}`;
      const width = Math.max(10, Math.min(30, columns - head.length - tail.length - 8));
      let line = `${head}${renderBar(completed, total, width)}${tail}`;
      if (line.length > columns - 1) line = line.slice(0, columns - 1);
      if (line === last) return;
      last = line;
      target.write(`\r\x1b[2K${line}`);
      drawn = true;
    },
    done(line) {
      if (drawn) target.write("\r\x1b[2K");
      drawn = false;
      if (line) target.write(`${line}\n`);
    },
  };
}

/** stderr, interactive when it is a terminal and CI is not set. */
export function stderrTarget(): ProgressBarTarget {
  return {
    write: (text) => void process.stderr.write(text),
    interactive: Boolean(process.stderr.isTTY) && process.env.CI !== "true",
    columns: process.stderr.columns ?? 80,
  };
}
