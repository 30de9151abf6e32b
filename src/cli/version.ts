/**
 * The version of this build, read from package.json (found upward from this file, which runs
 * from src/ under the tests and from dist/src/ when built).
 */
import { existsSync, readFileSync } from "node:fs";

function findVersion(): string {
  for (let dir = new URL("./", import.meta.url); dir.pathname !== "/"; dir = new URL("../", dir)) {
    const file = new URL("package.json", dir);
    if (existsSync(file)) return (JSON.parse(readFileSync(file, "utf8")) as { version: string }).version;
  }
  return "0.0.0";
}

/** The package version. */
export const VERSION: string = findVersion();
