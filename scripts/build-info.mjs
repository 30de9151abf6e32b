#!/usr/bin/env node
// Records the git commit this build is made from in dist/build-info.json, which src/build-info.ts
// reads at run time (`arbor version`, /healthz, arbor_build_info). `npm run build` runs it, so
// `npm pack` (whose prepare builds) puts the commit into the release tarball. ARBOR_COMMIT wins:
// a container build has no .git in its context, so the builder passes the commit in.
// Never committed: dist/ is not in git.
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";

const root = new URL("../", import.meta.url);

function gitCommit() {
  try {
    return execFileSync("git", ["rev-parse", "HEAD"], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return undefined;
  }
}

const given = process.env.ARBOR_COMMIT?.trim();
const commit = given || gitCommit() || "unknown";
if (commit !== "unknown" && !/^[0-9a-f]{7,64}$/.test(commit)) {
  process.stderr.write(`build-info: "${commit}" is not a git commit hash\n`);
  process.exit(1);
}
mkdirSync(new URL("dist/", root), { recursive: true });
writeFileSync(new URL("dist/build-info.json", root), `${JSON.stringify({ commit })}\n`);
