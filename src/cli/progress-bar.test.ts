import { describe, expect, it } from "vitest";
import { createProgressBar, renderBar } from "./progress-bar.js";

function target(interactive: boolean) {
  const writes: string[] = [];
  return { writes, target: { write: (t: string) => void writes.push(t), interactive, columns: 80 } };
}

describe("progress bar", () => {
  it("redraws one line in place on a terminal and clears it when done", () => {
    const { writes, target: t } = target(true);
    const bar = createProgressBar("backtest 9f8e", t);
    bar.update(9, 36, "2020-03-31");
    bar.update(9, 36, "2020-03-31"); // unchanged: not redrawn
    bar.update(18, 36, "2020-06-30");
    bar.done("backtest 9f8e: done");
    expect(writes).toHaveLength(4);
    expect(writes[0]).toBe(`\r\x1b[2Kbacktest 9f8e ${renderBar(9, 36, 30)} 9/36 2020-03-31`);
    expect(writes[1]).toContain(" 50%");
    expect(writes[2]).toBe("\r\x1b[2K");
    expect(writes[3]).toBe("backtest 9f8e: done\n");
  });

  it("writes a plain line at each quarter in a log, never a carriage return", () => {
    const { writes, target: t } = target(false);
    const bar = createProgressBar("backtest 9f8e", t);
    for (let i = 1; i <= 36; i++) bar.update(i, 36, `period ${i}`);
    bar.done("backtest 9f8e: 36 periods");
    expect(writes).toEqual([
      "backtest 9f8e: 25% (9/36) period 9\n",
      "backtest 9f8e: 50% (18/36) period 18\n",
      "backtest 9f8e: 75% (27/36) period 27\n",
      "backtest 9f8e: 36 periods\n",
    ]);
  });

  it("writes nothing in a log for work without a known total, until done", () => {
    const { writes, target: t } = target(false);
    const bar = createProgressBar("import", t);
    bar.update(5, 0);
    bar.done();
    expect(writes).toEqual([]);
  });
});
