/**
 * What this build is: the package version, and the git commit it was built from. The commit is
 * recorded when the code is built (scripts/build-info.mjs writes dist/build-info.json, which the
 * release tarball and the container image carry) and read here at run time; nothing asks git
 * while the server runs. A tree that was never built says "unknown".
 */
import { existsSync, readFileSync } from "node:fs";

/** The facts `arbor version`, `/healthz` and `arbor_build_info` report: nothing more. */
export interface BuildInfo {
  /** package.json's version. */
  version: string;
  /** The full git commit hash of the build, or "unknown". */
  commit: string;
}

/** The package's root: the first folder upward from this file (src/ under the tests, dist/src/ when built) with package.json. */
function packageRoot(): URL | undefined {
  for (let dir = new URL("./", import.meta.url); dir.pathname !== "/"; dir = new URL("../", dir)) {
    if (existsSync(new URL("package.json", dir))) return dir;
  }
  return undefined;
}

function readJson(file: URL): unknown {
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return undefined;
  }
}

function readBuildInfo(): BuildInfo {
  const root = packageRoot();
  if (root === undefined) return { version: "0.0.0", commit: "unknown" };
  const pkg = readJson(new URL("package.json", root)) as { version?: unknown } | undefined;
  const built = readJson(new URL("dist/build-info.json", root)) as { commit?: unknown } | undefined;
  return {
    version: typeof pkg?.version === "string" ? pkg.version : "0.0.0",
    commit: typeof built?.commit === "string" && /^[0-9a-f]{7,64}$/.test(built.commit) ? built.commit : "unknown",
  };
}

export const BUILD_INFO: Readonly<BuildInfo> = Object.freeze(readBuildInfo());

/** The commit shortened for people (12 hex digits, as `git log --abbrev=12`), or "unknown". */
export function shortCommit(commit: string): string {
  return /^[0-9a-f]+$/.test(commit) ? commit.slice(0, 12) : commit;
}
