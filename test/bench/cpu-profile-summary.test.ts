/**
 * The profile summary the lead reads: self time by function and the inclusive share of each
 * area, from a small hand-made .cpuprofile.
 */
import { describe, expect, it } from "vitest";
import { summarize } from "../../bench/tools/cpu-profile-summary.js";

const frame = (id: number, functionName: string, url: string, children: number[] = []) => ({
  id,
  callFrame: { functionName, url, lineNumber: 9 },
  children,
});

describe("summarize", () => {
  it("ranks self time and attributes samples to areas through their stacks", () => {
    const profile = {
      nodes: [
        frame(1, "(root)", "", [2, 5, 6]),
        frame(2, "handle", "file:///w/dist/src/server/invoker.js", [3, 4]),
        frame(3, "permissionsOf", "file:///w/dist/src/services/authorizer.js", [7]),
        frame(4, "write", "file:///w/node_modules/pino/lib/proto.js"),
        frame(5, "(idle)", ""),
        frame(6, "(garbage collector)", ""),
        frame(7, "all", "file:///w/node_modules/better-sqlite3/lib/methods/wrappers.js"),
      ],
      // 10 samples of 1 ms: 4 in the store under the authorizer, 3 in pino, 2 idle, 1 GC.
      samples: [7, 7, 7, 7, 4, 4, 4, 5, 5, 6],
      startTime: 0,
      endTime: 10_000,
    };
    const text = summarize(profile, 3);
    expect(text).toContain("10 samples, 10 ms; busy (not idle) 80.0 %.");
    expect(text).toContain("| 1 | all better-sqlite3/lib/methods/wrappers.js:10 | 4 | 50.0 |");
    expect(text).toContain("| 2 | write pino/lib/proto.js:10 | 3 | 37.5 |");
    expect(text).toContain("| logging (pino) | 37.5 |");
    expect(text).toContain("| permission lookup | 50.0 |");
    expect(text).toContain("| store access (Kysely, driver) | 50.0 |");
    expect(text).toContain("| garbage collection | 12.5 |");
  });
});
