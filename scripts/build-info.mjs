#!/usr/bin/env node
// Records the git commit this build is made from in dist/build-info.json, which src/build-info.ts
// reads at run time (`arbor version`, /healthz, arbor_build_info). `npm run build` runs it, so
// `npm pack` (whose prepare builds) puts the commit into the release tarball. ARBOR_COMMIT wins:
// a container build has no .git in its context, so the builder passes the commit in.
// Never committed: dist/ is not in git. An argument names another output folder than dist/
// (the release builds into a folder of its own).
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

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
const out = process.argv[2] === undefined ? new URL("dist/", root) : pathToFileURL(`${resolve(process.argv[2])}/`);
mkdirSync(out, { recursive: true });
writeFileSync(new URL("build-info.json", out), `${JSON.stringify({ commit })}\n`);
