/**
 * The progress bar: drawn on a terminal only, after a delay, at a bounded rate, with reports
 * written above it; elsewhere reports pass through as plain lines.
 */
import { describe, expect, it } from "vitest";
import { progressBar, renderBar } from "../../src/cli/progress-bar.js";

function terminal(isTTY: boolean) {
  const writes: string[] = [];
  return { stream: { isTTY, columns: 80, write: (s: string) => writes.push(s) }, writes };
}

describe("progress bar", () => {
  it.each([
    [0, 10, 0, "importing [----------------------------------------] 0/10 0% 0/s"],
    [5, 10, 1000, "importing [####################--------------------] 5/10 50% 5/s"],
    [20_000, 20_000, 4000, `importing [${"#".repeat(40)}] 20000/20000 100% 5000/s`],
    [3, 0, 1000, `importing [${"-".repeat(40)}] 3/0 0% 3/s`],
  ])("renders %i of %i after %i ms", (done, total, elapsed, want) => {
    const line = renderBar("importing", done, total, elapsed, 80);
    expect(line).toBe(want);
    expect(line.length).toBeLessThanOrEqual(80);
  });

  it("fits narrow terminals, down to a bar of ten columns", () => {
    expect(renderBar("importing", 1, 2, 1000, 40)).toBe("importing [########-------] 1/2 50% 1/s");
    expect(renderBar("importing", 1, 2, 1000, 20)).toBe("importing [#####-----] 1/2 50% 1/s");
  });

  it("draws on a terminal after the delay, at most once per interval, reports above it, and erases itself", () => {
    let now = 0;
    const { stream, writes } = terminal(true);
    const bar = progressBar(stream, "importing", 100, { delayMs: 300, intervalMs: 100, now: () => now });
    bar.update(1);
    now = 299;
    bar.update(2);
    expect(writes).toEqual([]);
    bar.log("arbor: skipped a.json: not JSON");
    expect(writes).toEqual(["arbor: skipped a.json: not JSON\n"]);
    now = 300;
    bar.update(3);
    now = 350;
    bar.update(4);
    expect(writes.slice(1)).toEqual([`\r\u001b[2K${renderBar("importing", 3, 100, 300, 80)}`]);
    bar.log("arbor: skipped b.json: not JSON");
    expect(writes.slice(2)).toEqual([
      "\r\u001b[2Karbor: skipped b.json: not JSON\n",
      `\r\u001b[2K${renderBar("importing", 4, 100, 350, 80)}`,
    ]);
    bar.finish();
    expect(writes.at(-1)).toBe("\r\u001b[2K");
  });

  it("draws nothing where the stream is no terminal; reports pass through", () => {
    let now = 0;
    const { stream, writes } = terminal(false);
    const bar = progressBar(stream, "importing", 100, { delayMs: 0, intervalMs: 0, now: () => now });
    for (let i = 0; i < 100; i++) {
      now += 1000;
      bar.update(i);
    }
    bar.log("arbor: skipped a.json: not JSON");
    bar.finish();
    expect(writes).toEqual(["arbor: skipped a.json: not JSON\n"]);
  });
});
