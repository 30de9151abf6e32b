/**
 * The built arbor command in a child process, as users run it (`npm test` builds first).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { assertNoSecrets } from "./secret-scan.js";

/** The path of the command. */
export const ARBOR_BIN = join(import.meta.dirname, "../../bin/arbor.js");

/** What a finished command printed. */
export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs arbor with args and env (merged over a clean environment, cleanEnv) to completion; bin: another build's command. */
export function runArbor(args: string[], env: Record<string, string> = {}, bin = ARBOR_BIN): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { env: cleanEnv(env), stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** A running `arbor serve` and the port it listens on. */
export interface ServeProcess {
  child: ChildProcess;
  port: number;
  /** Every log line so far. */
  lines: Record<string, unknown>[];
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  /** Everything it wrote to stderr so far. */
  stderr(): string;
}

/** Starts `arbor serve --port 0` and waits until it says it is serving; bin: another build's command. */
export function serveArbor(args: string[], env: Record<string, string> = {}, bin = ARBOR_BIN): Promise<ServeProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, "serve", "--port", "0", ...args], {
      env: cleanEnv(env),
      stdio: ["ignore", "pipe", "pipe"],
    });
    const lines: Record<string, unknown>[] = [];
    let buffered = "";
    let stderr = "";
    // Its whole log is scanned for credentials when it stops: awaiting exited fails if one leaked.
    const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code))).then((code) => {
      assertNoSecrets([...lines, stderr], "arbor serve");
      return code;
    });
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.stdout.on("data", (d: Buffer) => {
      buffered += d.toString();
      let nl: number;
      while ((nl = buffered.indexOf("\n")) >= 0) {
        const line = JSON.parse(buffered.slice(0, nl)) as Record<string, unknown>;
        buffered = buffered.slice(nl + 1);
        lines.push(line);
        if (line.msg === "arbor is serving") resolve({ child, port: line.port as number, lines, exited, stderr: () => stderr });
      }
    });
    exited.then((code) => reject(new Error(`arbor serve exited with ${code}: ${stderr}`)), reject);
  });
}

/** The test process's environment without ARBOR_* and COLUMNS (a table's width is the test's to set), and extra. */
export function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("ARBOR_") && k !== "COLUMNS") env[k] = v;
  return { ...env, ...extra };
}

/** A running arbor command whose output can be waited on. */
export interface RunningArbor {
  child: ChildProcess;
  /** Resolves with the first match of pattern in stderr (so far or to come). */
  stderrMatch(pattern: RegExp): Promise<RegExpMatchArray>;
  /** Resolves when the command exits. */
  done: Promise<RunResult>;
}

/** Starts arbor with args and env (as runArbor) without waiting for it to finish. */
export function spawnArbor(args: string[], env: Record<string, string> = {}): RunningArbor {
  const child = spawn(process.execPath, [ARBOR_BIN, ...args], { env: cleanEnv(env), stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  const waiting: { pattern: RegExp; resolve: (m: RegExpMatchArray) => void }[] = [];
  const check = () => {
    for (const w of [...waiting]) {
      const m = w.pattern.exec(stderr);
      if (m) {
        waiting.splice(waiting.indexOf(w), 1);
        w.resolve(m);
      }
    }
  };
  child.stdout?.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString();
    check();
  });
  const done = new Promise<RunResult>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
  return {
    child,
    done,
    stderrMatch(pattern) {
      return new Promise((resolve, reject) => {
        waiting.push({ pattern, resolve });
        check();
        void done.then((r) => reject(new Error(`arbor exited (${r.code}) before printing ${pattern}: ${r.stderr}`)));
      });
    },
  };
}
