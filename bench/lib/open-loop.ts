/**
 * The fixed-rate latency probe: bench/tools/open-loop.ts in its own process.
 */
import type { OpenLoopResult, OpenLoopSpec } from "../tools/open-loop.js";
import { runTool } from "./tool.js";
import { elide } from "./wrk.js";

/** Runs the probe and returns its figures. */
export function runOpenLoop(spec: OpenLoopSpec): Promise<OpenLoopResult> {
  return runTool<OpenLoopResult>("open-loop", spec);
}

/** The probe's command line for the doc (port and token elided). */
export function openLoopCommand(spec: { url: string; rate: number; seconds: number }): string {
  const url = elide(spec.url);
  return (
    `node dist/bench/tools/open-loop.js '{"url":"${url}","headers":{"authorization":"Bearer …"},` +
    `"rate":${spec.rate},"seconds":${spec.seconds}}'`
  );
}
