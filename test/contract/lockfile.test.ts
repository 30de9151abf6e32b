import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

describe("package-lock.json", () => {
  it("records every optional dependency, so `npm ci` accepts it (run scripts/complete-lockfile.mjs after npm install)", () => {
    const lock = JSON.parse(readFileSync(join(import.meta.dirname, "../../package-lock.json"), "utf8")) as {
      packages: Record<string, { optionalDependencies?: Record<string, string> }>;
    };
    const missing: string[] = [];
    for (const [key, entry] of Object.entries(lock.packages)) {
      for (const dep of Object.keys(entry.optionalDependencies ?? {})) {
        if (!lock.packages[`node_modules/${dep}`] && !lock.packages[`${key}/node_modules/${dep}`]) missing.push(`${key} -> ${dep}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
