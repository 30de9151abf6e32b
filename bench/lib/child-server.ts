/**
 * Starts one of bench/tools/*-server.ts (built) as its own process and waits for its "ready"
 * line: the bare baselines that Arbor is compared with.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { stopChild } from "./arbor-process.js";

/** A running baseline server. */
export interface ChildServer {
  readonly pid: number;
  stop(): Promise<void>;
}

/** Spawns tools/<name>.js with spec as JSON and waits until it prints "ready". */
export async function startChildServer(name: string, spec: unknown): Promise<ChildServer> {
  const child = spawn(process.execPath, [join(import.meta.dirname, "../tools", `${name}.js`), JSON.stringify(spec)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise<unknown>((resolve) => child.once("exit", resolve));
  await new Promise<void>((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("ready")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`${name} exited with ${code} before it was ready`)));
  });
  return { pid: child.pid as number, stop: () => stopChild(child, exited) };
}
