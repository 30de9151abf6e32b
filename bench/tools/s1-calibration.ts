/**
 * What S1's ratio can be, for a server that does some work of its own per request
 * (bench/findings.md, S1): the bare node:http server of S1 answering the same bytes after spinning
 * for a given number of microseconds of each request (bare-server.ts, `workUs`), beside Arbor
 * itself, as S1 runs it and with the access log off (ARBOR_LOG_LEVEL=warn). S1's load (wrk, 32
 * keep-alive connections, 2 threads) on each in turn, round after round; each one's CPU per
 * request (user and system, all its threads) read from /proc/<pid>/stat around the measured run.
 * Prints a table of the medians over the rounds.
 * Usage: node dist/bench/tools/s1-calibration.js [rounds=3] [seconds=5] [work µs, comma-separated=0,5,10,15,20,30,40]
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, startArbor } from "../lib/arbor-process.js";
import { startChildServer } from "../lib/child-server.js";
import { median } from "../lib/stats.js";
import { runWrk } from "../lib/wrk.js";
import { s1Target } from "../scenarios/s1-get.js";

const rounds = Number(process.argv[2] ?? 3);
const seconds = Number(process.argv[3] ?? 5);
const works = (process.argv[4] ?? "0,5,10,15,20,30,40").split(",").map(Number);
const TICKS_PER_SECOND = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim());

/** User and system CPU of a process so far, in seconds (fields 14 and 15 of /proc/<pid>/stat, after the command's parenthesis). */
function cpuOf(pid: number): { user: number; system: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { user: Number(fields[11]) / TICKS_PER_SECOND, system: Number(fields[12]) / TICKS_PER_SECOND };
}

interface Sample {
  rps: number;
  userUs: number;
  systemUs: number;
  errors: number;
}

const dataDir = mkdtempSync(join(tmpdir(), "arbor-s1-calibration-"));
try {
  const port = await freePort();
  const env = { ARBOR_DATA_DIR: dataDir };
  const { path, token, body, contentType } = await s1Target(env, port);

  const spec = { url: `http://127.0.0.1:${port}${path}`, headers: { authorization: `Bearer ${token}` }, connections: 32 };
  const measure = async (pid: number): Promise<Sample> => {
    await runWrk({ ...spec, seconds: 1 });
    const before = cpuOf(pid);
    const run = await runWrk({ ...spec, seconds });
    const after = cpuOf(pid);
    const per = (s: number) => (s * 1e6) / Math.max(run.requests, 1);
    return { rps: run.rps, userUs: per(after.user - before.user), systemUs: per(after.system - before.system), errors: run.errors };
  };
  const arbor = (settings: Record<string, string>) => () => startArbor({ env: { ...env, ...settings }, port });
  const bare = works.map((workUs) => ({
    label: `bare node:http, ${workUs} µs of work a request`,
    start: () => startChildServer("bare-server", { port, body, contentType, workUs }),
    samples: [] as Sample[],
  }));
  const servers = [
    { label: "Arbor, as S1 runs it", start: arbor({}), samples: [] as Sample[] },
    { label: "Arbor, ARBOR_LOG_LEVEL=warn", start: arbor({ ARBOR_LOG_LEVEL: "warn" }), samples: [] as Sample[] },
    ...bare,
  ];
  for (let round = 0; round < rounds; round++) {
    for (const server of servers) {
      const running = await server.start();
      try {
        const s = await measure(running.pid);
        server.samples.push(s);
        const cpu = `${s.userUs.toFixed(1)} + ${s.systemUs.toFixed(1)} µs`;
        process.stderr.write(`round ${round + 1}: ${server.label}: ${s.rps.toFixed(0)} req/s, ${cpu}, errors ${s.errors}\n`);
      } finally {
        await running.stop();
      }
    }
  }
  const out = (line: string) => process.stdout.write(`${line}\n`);
  const reference = median((bare[0]?.samples ?? []).map((s) => s.rps));
  const columns = ["req/s", "of the first bare server", "user µs a request", "system µs a request", "errors"];
  out(`| server (${rounds} rounds of ${seconds} s, medians) | ${columns.join(" | ")} |`);
  out("|---|---:|---:|---:|---:|---:|");
  for (const { label, samples: list } of servers) {
    const rps = median(list.map((s) => s.rps));
    const cells = [
      label,
      rps.toFixed(0),
      `${((rps / reference) * 100).toFixed(1)} %`,
      median(list.map((s) => s.userUs)).toFixed(1),
      median(list.map((s) => s.systemUs)).toFixed(1),
      String(list.reduce((n, s) => n + s.errors, 0)),
    ];
    out(`| ${cells.join(" | ")} |`);
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
