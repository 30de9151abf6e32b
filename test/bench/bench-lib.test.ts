/**
 * The benchmark suite's own pieces that decide what docs/benchmarks.md says: wrk's report
 * parsed right, medians and percentiles, the PASS/MISS verdicts, the Markdown and the SVG.
 */
import { execFile, spawn } from "node:child_process";
import { createServer, type AddressInfo } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { generatedGroupUid, spreadGroups } from "../../bench/lib/bindings.js";
import { startEventSink, tally, type Arrival } from "../../bench/lib/event-sink.js";
import { benchmarksMarkdown } from "../../bench/lib/markdown.js";
import { benchOptions } from "../../bench/lib/options.js";
import { holds, passes, type ScenarioResult } from "../../bench/lib/results.js";
import { soakMemory } from "../../bench/scenarios/s7-memory.js";
import { median, percentile } from "../../bench/lib/stats.js";
import { svgChart } from "../../bench/lib/svg-chart.js";
import { elide, parseWrk } from "../../bench/lib/wrk.js";
import type { RunTime, SpawnTimerSpec } from "../../bench/tools/spawn-timer.js";

const WRK_REPORT = `Running 5s test @ http://127.0.0.1:41234/iam/v2beta1/groups/x
  2 threads and 32 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     3.02ms    1.10ms  40.12ms   91.00%
    Req/Sec     5.31k   400.00     6.00k    70.00%
  Latency Distribution
     50%  812.00us
     75%    3.00ms
     90%    4.00ms
     99%    1.20s 
  52881 requests in 5.00s, 20.00MB read
  Socket errors: connect 0, read 2, write 0, timeout 1
  Non-2xx or 3xx responses: 4
Requests/sec:  10576.20
Transfer/sec:      4.00MB
`;

describe("parseWrk", () => {
  it("reads throughput, percentiles in any unit, and errors", () => {
    expect(parseWrk(WRK_REPORT)).toEqual({ requests: 52881, rps: 10576.2, p50: 0.812, p99: 1200, errors: 7 });
  });

  it("refuses a report without a rate rather than returning NaN figures", () => {
    expect(() => parseWrk("unable to connect to 127.0.0.1:1 Connection refused")).toThrow(/could not read wrk's report/);
  });
});

describe("statistics", () => {
  it("takes the lower middle as the median of an even count", () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2);
    expect(median([])).toBeNaN();
  });

  it("takes nearest-rank percentiles", () => {
    const xs = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(xs, 50)).toBe(50);
    expect(percentile(xs, 99)).toBe(99);
    expect(percentile([7], 99)).toBe(7);
  });
});

describe("checks", () => {
  it("pass on the bound and miss beyond it or when the figure is missing", () => {
    const base = { label: "x", unit: "ms", how: "" };
    expect(passes({ ...base, measured: 5, op: "≤", bound: 5 })).toBe(true);
    expect(passes({ ...base, measured: 5.01, op: "≤", bound: 5 })).toBe(false);
    expect(passes({ ...base, measured: 0.59, op: "≥", bound: 0.6 })).toBe(false);
    expect(passes({ ...base, measured: NaN, op: "≤", bound: 5 })).toBe(false);
  });

  it("miss on any error behind the figure, however good the figure", () => {
    const base = { label: "x", unit: "×", how: "", measured: 1.1, op: "≤" as const, bound: 2 };
    expect(passes({ ...base, errors: 0 })).toBe(true);
    expect(passes({ ...base, errors: 1 })).toBe(false);
  });

  it("miss on any error the scenario met, even one no check counted, and when its errors are unknown", () => {
    const check = { label: "x", unit: "×", how: "", measured: 1.1, op: "≤" as const, bound: 2 };
    expect(holds({ errors: 0 }, check)).toBe(true);
    expect(holds({ errors: 1 }, check)).toBe(false);
    expect(holds({ errors: NaN }, check)).toBe(false);
    expect(holds({ errors: 0 }, { ...check, measured: 3 })).toBe(false);
  });
});

describe("S7's soak figure", () => {
  it("takes the highest server RSS of the soak's minutes, with its date and command", () => {
    const doc = [
      "# Reliability",
      "<!-- soak:start -->",
      "Command: `SOAK_MINUTES=30 npm run soak` (2026-11-24, 24.21.0, SQLite).",
      "",
      "| t (s) | requests | errors | p50 ms | p99 ms | server RSS MB |",
      "|---:|---:|---:|---:|---:|---:|",
      "| 60 | 154964 | 0 | 2.59 | 30.35 | 212.3 |",
      "| 120 | 154965 | 0 | 2.54 | 133.25 | 214.1 |",
      "| 180 | 9 | 0 | 59.16 | 59.35 | 213.5 |",
      "<!-- soak:end -->",
    ].join("\n");
    expect(soakMemory(doc)).toEqual({ peak: 214.1, when: "2026-11-24", command: "SOAK_MINUTES=30 npm run soak" });
    expect(soakMemory("# Reliability\n")).toBeUndefined();
  });
});

describe("S9's bindings", () => {
  it("spreads a lane's groups evenly, never sharing a group with another lane", () => {
    expect(spreadGroups(100, 10, 0, 5)).toEqual([1, 11, 21, 31, 41, 51, 61, 71, 81, 91]);
    const lanes = [0, 1, 2, 3, 4].map((lane) => spreadGroups(100_000, lane === 4 ? 100 : 10_000, lane, 5));
    const all = lanes.flat();
    expect(new Set(all).size).toBe(all.length);
    expect(Math.min(...all)).toBe(1);
    expect(Math.max(...all)).toBeLessThanOrEqual(100_000);
  });

  it("refuses lanes that do not fit rather than binding a group twice", () => {
    expect(() => spreadGroups(20_000, 10_000, 0, 5)).toThrow(/do not fit/);
    expect(() => spreadGroups(100, 10, 5, 5)).toThrow(/do not fit/);
  });

  it("names the groups as the dataset generates them", () => {
    expect(generatedGroupUid("a".repeat(40), 255)).toBe(`${"a".repeat(40)}/00000000000000ff`);
  });
});

describe("options", () => {
  it("rejects an unknown scenario and a bad number", () => {
    expect(() => benchOptions({ BENCH_ONLY: "S1,S10" })).toThrow(/"S10" is not a scenario/);
    expect(() => benchOptions({ BENCH_ROUNDS: "zero" })).toThrow(/BENCH_ROUNDS must be a positive number/);
    expect(benchOptions({ BENCH_ONLY: "s1, s3", BENCH_QUICK: "1" })).toMatchObject({ only: new Set(["S1", "S3"]), rounds: 3, quick: true });
    expect(benchOptions({ BENCH_ONLY: "e1" }).only).toEqual(new Set(["E1"]));
  });
});

describe("E1's event sink", () => {
  const at = (...ids: string[]): Arrival[] => ids.map((id, i) => ({ id, type: "t", at: i }));

  it("counts every event expected received once, in order, as no error", () => {
    expect(tally(["a", "b", "c"], at("a", "b", "c"))).toEqual({
      delivered: 3,
      missing: 0,
      duplicates: 0,
      outOfOrder: 0,
      unexpected: 0,
      errors: 0,
    });
  });

  it("counts missing, repeated, out-of-order, unexpected and malformed deliveries as errors", () => {
    expect(tally(["a", "b", "c", "d"], at("a", "c", "b", "c", "x"), 2)).toEqual({
      delivered: 3,
      missing: 1,
      duplicates: 1,
      outOfOrder: 1,
      unexpected: 3,
      errors: 6,
    });
  });

  it("records a CloudEvent delivered in binary mode, and counts one without a token as malformed", async () => {
    const sink = await startEventSink();
    try {
      const post = (headers: Record<string, string>) =>
        fetch(sink.url, {
          method: "POST",
          headers: { "content-type": "application/json", "ce-specversion": "1.0", "ce-type": "t", ...headers },
          body: JSON.stringify({ actor: { subject: "x" }, body: {} }),
        });
      expect((await post({ "ce-id": "e1", authorization: "Bearer token" })).status).toBe(204);
      expect((await post({ "ce-id": "e2" })).status).toBe(204);
      expect(sink.arrivals.map((a) => a.id)).toEqual(["e1"]);
      expect(sink.malformed).toBe(1);
      expect(await sink.until((a) => a.length === 1, 100)).toBe(true);
      expect(await sink.until((a) => a.length === 2, 100)).toBe(false);
    } finally {
      await sink.close();
    }
  });
});

describe("writers", () => {
  const result: ScenarioResult = {
    id: "S9",
    title: "a scenario",
    method: ["How it is measured."],
    figures: [{ label: "rate", value: 1234.5, unit: "req/s", command: "wrk -c1 http://127.0.0.1:$PORT/a|b" }],
    checks: [
      { label: "rate", measured: 1234.5, unit: "req/s", op: "≥", bound: 1000, how: "closed loop" },
      { label: "p99", measured: 7, unit: "ms", op: "≤", bound: 5, how: "open loop" },
    ],
    charts: [
      {
        file: "s9",
        title: "S9 <rate>",
        unit: "req/s",
        bars: [
          { label: "a & b", value: 10 },
          { label: "c", value: NaN },
        ],
      },
    ],
    errors: 0,
    notes: [],
  };
  const info = {
    command: "npm run bench",
    machine: "2 cores",
    started: "2026-01-01T00:00:00Z",
    rounds: 5,
    seconds: 5,
    quick: false,
    load: [1, 2, 3],
  };

  it("shows every target with PASS or MISS, links the chart and escapes pipes in commands", () => {
    const md = benchmarksMarkdown(info, [result], ["Preamble."]);
    expect(md).toContain("| S9 | rate (closed loop) | 1,235 req/s | ≥ 1,000 req/s | PASS |");
    expect(md).toContain("| S9 | p99 (open loop) | 7 ms | ≤ 5 ms | **MISS** |");
    const failing = {
      ...result,
      checks: [{ label: "ratio", measured: 1.1, unit: "×", op: "≤" as const, bound: 2, how: "per round", errors: 3 }],
    };
    expect(benchmarksMarkdown(info, [failing], [])).toContain("| S9 | ratio (per round) | 1.1 × | ≤ 2 × | **MISS** (3 errors) |");
    const scenarioErrors = { ...result, errors: 2 };
    expect(benchmarksMarkdown(info, [scenarioErrors], [])).toContain(
      "| S9 | rate (closed loop) | 1,235 req/s | ≥ 1,000 req/s | **MISS** (2 errors) |",
    );
    const unknown = { ...result, errors: NaN };
    expect(benchmarksMarkdown(info, [unknown], [])).toContain(
      "| S9 | rate (closed loop) | 1,235 req/s | ≥ 1,000 req/s | **MISS** (errors not recorded) |",
    );
    expect(md).toContain("![S9 <rate>](benchmarks/s9.svg)");
    expect(md).toContain("`wrk -c1 http://127.0.0.1:$PORT/a\\|b`");
  });

  it("draws well-formed SVG with escaped text and no bar for a missing value", () => {
    const svg = svgChart(result.charts[0]!);
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(svg).toContain("S9 &lt;rate&gt;");
    expect(svg).toContain("a &amp; b");
    expect(svg).toContain('width="0.0"');
    expect(svg).toContain("n/a req/s");
  });

  it("elides ports and uids from commands", () => {
    expect(elide("http://127.0.0.1:4242/iam/v2beta1/groups/" + "a".repeat(40) + "/" + "b".repeat(16) + "?x=1")).toBe(
      "http://127.0.0.1:$PORT/iam/v2beta1/groups/$UID?x=1",
    );
  });
});

describe("C1's spawn timer", () => {
  it("spawns each run in order with its own environment and reports its time, exit and output", async () => {
    // The built tool, as C1 runs it (npm test builds first).
    const tool = join(import.meta.dirname, "../../dist/bench/tools/spawn-timer.js");
    const spec: SpawnTimerSpec = {
      envs: [{ WHO: "first" }, { WHO: "second" }],
      runs: [
        { args: ["-e", "process.stdout.write(process.env.WHO ?? '')"], env: 1 },
        { args: ["-e", "process.exit(3)"], env: 0 },
        { args: ["-e", "process.stdout.write(process.env.WHO ?? '')"], env: 0 },
      ],
    };
    const { stdout } = await promisify(execFile)(process.execPath, [tool, JSON.stringify(spec)]);
    const times = JSON.parse(stdout) as RunTime[];
    expect(times.map(({ status, stdout: out }) => ({ status, out }))).toEqual([
      { status: 0, out: "second" },
      { status: 3, out: "" },
      { status: 0, out: "first" },
    ]);
    for (const { ms } of times) expect(ms).toBeGreaterThan(0);
  });
});

describe("S1's bare server", () => {
  it("answers every request with the given bytes and content type, with or without work before it", async () => {
    // The built tool, as S1 and bench/tools/s1-calibration.ts start it (npm test builds first).
    const tool = join(import.meta.dirname, "../../dist/bench/tools/bare-server.js");
    for (const workUs of [undefined, 200]) {
      const server = createServer();
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const { port } = server.address() as AddressInfo;
      await new Promise((resolve) => server.close(resolve));
      const body = JSON.stringify({ uid: "x", name: "target" });
      const child = spawn(process.execPath, [tool, JSON.stringify({ port, body, contentType: "application/json", workUs })], {
        stdio: ["ignore", "pipe", "inherit"],
      });
      try {
        await new Promise<void>((resolve, reject) => {
          child.stdout.on("data", (d: Buffer) => d.toString().includes("ready") && resolve());
          child.once("exit", (code) => reject(new Error(`bare-server exited with ${code}`)));
        });
        for (const path of ["/iam/v2beta1/groups/x", "/anything"]) {
          const res = await fetch(`http://127.0.0.1:${port}${path}`);
          expect({ status: res.status, type: res.headers.get("content-type"), body: await res.text() }).toEqual({
            status: 200,
            type: "application/json",
            body,
          });
        }
      } finally {
        child.kill("SIGKILL");
      }
    }
  });
});
