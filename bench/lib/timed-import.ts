/**
 * `arbor advisories import` as a user runs it (its own process, the built bin/arbor.js, ARBOR_*
 * environment), timed from spawn to exit, its peak resident memory read from /proc while it runs
 * (VmHWM, the kernel's high-water mark, polled every 100 ms; its last value before exit stands).
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { ARBOR } from "./arbor-process.js";

/** What one import run did. */
export interface ImportRun {
  seconds: number;
  peakRssMb: number;
  /** The summary line the command printed. */
  output: string;
  exitCode: number;
}

/** Imports archive into the store env names; never throws for a failed import (exitCode says). */
export async function timedImport(env: Record<string, string>, archive: string): Promise<ImportRun> {
  const started = performance.now();
  const child = spawn(process.execPath, [ARBOR, "advisories", "import", archive], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  let errors = "";
  child.stdout.on("data", (b: Buffer) => (output += b.toString()));
  child.stderr.on("data", (b: Buffer) => (errors += b.toString()));
  let peakKb = 0;
  const poll = setInterval(() => {
    try {
      const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))?.[1];
      if (hwm !== undefined) peakKb = Math.max(peakKb, Number(hwm));
    } catch {
      // Gone between two polls: the last reading stands.
    }
  }, 100);
  const exitCode = await new Promise<number>((resolve) => child.on("exit", (code) => resolve(code ?? 1)));
  clearInterval(poll);
  return {
    seconds: (performance.now() - started) / 1000,
    peakRssMb: peakKb / 1024,
    output: `${output.trim()}${exitCode === 0 ? "" : `\n${errors.trim().slice(-2000)}`}`,
    exitCode,
  };
}
