/**
 * Runs `wrk` (Debian package wrk) as the closed-loop load generator, in its own process, and
 * parses its report. A Lua script sets the method, headers and, for creates, a body with a name
 * unique per thread and request.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** One wrk run. */
export interface WrkSpec {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  /**
   * A body template: `{n}` becomes a name part unique to the thread and request, so creates
   * never collide across rounds either when `{run}` differs.
   */
  body?: string;
  connections: number;
  threads?: number;
  seconds: number;
}

/** What wrk reported. */
export interface WrkResult {
  requests: number;
  rps: number;
  /** Latency percentiles in milliseconds. */
  p50: number;
  p99: number;
  /** Non-2xx answers plus socket errors. */
  errors: number;
}

/** The command line a spec runs, for the doc (headers shown by name, the token elided). */
export function wrkCommand(spec: WrkSpec): string {
  const t = spec.threads ?? 2;
  const script = spec.method || spec.headers || spec.body ? ` -s <script: ${describe(spec)}>` : "";
  return `wrk -t${t} -c${spec.connections} -d${spec.seconds}s --latency${script} ${elide(spec.url)}`;
}

function describe(spec: WrkSpec): string {
  const parts = [spec.method ?? "GET", ...Object.keys(spec.headers ?? {}).map((h) => `${h}: …`)];
  if (spec.body) parts.push(`body ${spec.body}`);
  return parts.join(", ");
}

/** A URL for the doc: the port and the run's uids (random each run) as placeholders. */
export function elide(url: string): string {
  return url.replace(/\/\/127\.0\.0\.1:\d+/, "//127.0.0.1:$PORT").replace(/[0-9a-f]{40}(%2F[0-9a-f]{16}|\/[0-9a-f]{16})*/g, "$UID");
}

/** Runs wrk and parses its report. */
export async function runWrk(spec: WrkSpec): Promise<WrkResult> {
  const dir = mkdtempSync(join(tmpdir(), "arbor-wrk-"));
  try {
    const script = join(dir, "request.lua");
    writeFileSync(script, luaScript(spec));
    const args = [
      `-t${spec.threads ?? 2}`,
      `-c${spec.connections}`,
      `-d${spec.seconds}s`,
      "--latency",
      "--timeout",
      "10s",
      "-s",
      script,
      spec.url,
    ];
    const { stdout } = await run("wrk", args, { maxBuffer: 1 << 20 });
    return parseWrk(stdout);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function luaScript(spec: WrkSpec): string {
  const lines = [`wrk.method = ${lua(spec.method ?? "GET")}`];
  for (const [k, v] of Object.entries(spec.headers ?? {})) lines.push(`wrk.headers[${lua(k)}] = ${lua(v)}`);
  if (spec.body !== undefined) {
    const [before, after] = spec.body.split("{n}");
    lines.push(
      "local thread_no = 0",
      'function setup(thread) thread_no = thread_no + 1; thread:set("tid", thread_no) end',
      "local counter = 0",
      `function request() counter = counter + 1; return wrk.format(nil, nil, nil, ${lua(before ?? "")} .. tid .. "-" .. counter .. ` +
        `${lua(after ?? "")}) end`,
    );
  }
  return lines.join("\n") + "\n";
}

function lua(s: string): string {
  return JSON.stringify(s);
}

/** Parses wrk's --latency report. */
export function parseWrk(out: string): WrkResult {
  const ms = (label: string) => {
    const m = new RegExp(`^\\s*${label}%\\s+([\\d.]+)(us|ms|s)\\s*$`, "m").exec(out);
    if (!m) return NaN;
    const v = Number(m[1]);
    return m[2] === "us" ? v / 1000 : m[2] === "s" ? v * 1000 : v;
  };
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? NaN);
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? NaN);
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const socketErrors = socket ? socket.slice(1).reduce((n, x) => n + Number(x), 0) : 0;
  if (!Number.isFinite(rps)) throw new Error(`could not read wrk's report:\n${out}`);
  return { requests, rps, p50: ms("50"), p99: ms("99"), errors: non2xx + socketErrors };
}
