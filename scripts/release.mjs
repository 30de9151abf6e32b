#!/usr/bin/env node
// `npm run release [-- <dir>]`: writes the release tarball arbor-<version>.tgz into dir (default:
// the current directory) and prints its path.
//
// The code is compiled afresh into a staging folder, never from the checkout's dist/ (which may
// hold output of sources since deleted), with the commit recorded (scripts/build-info.mjs;
// ARBOR_COMMIT passes through), the commands bundled (scripts/bundle-cli.mjs) and the web console
// built (scripts/bundle-console.mjs). The tarball is
// `npm pack` of that folder, under a package.json cut to what an installed package uses: no
// scripts (the checkout's `prepare` runs tsc, which a production install does not have, and npm 11
// asks about every install script), no devDependencies, no overrides, and no "types" pointing at
// TypeScript sources the tarball does not carry. "files" still decides what goes in (no source maps, no benchmarks). "allowScripts"
// stays: it keeps npm from compiling better-sqlite3, whose package carries prebuilt binaries.
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");
const destination = resolve(process.argv[2] ?? ".");
const stage = mkdtempSync(join(tmpdir(), "arbor-release-"));
try {
  const tsc = join(root, "node_modules/typescript/bin/tsc");
  const built = join(stage, "dist");
  execFileSync(
    process.execPath,
    [tsc, "-p", join(root, "tsconfig.build.json"), "--outDir", built, "--incremental", "false", "--sourceMap", "false"],
    { stdio: "inherit" },
  );
  execFileSync(process.execPath, [join(root, "scripts/build-info.mjs"), built], { stdio: "inherit" });
  execFileSync(process.execPath, [join(root, "scripts/bundle-cli.mjs"), built], { stdio: "inherit" });
  execFileSync(process.execPath, [join(root, "scripts/bundle-console.mjs"), built], { stdio: "inherit" });
  for (const path of ["bin", "LICENSE", "README.md"]) cpSync(join(root, path), join(stage, path), { recursive: true });
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  delete pkg.scripts;
  delete pkg.devDependencies;
  delete pkg.overrides;
  for (const entry of Object.values(pkg.exports ?? {})) if (typeof entry === "object") delete entry.types;
  writeFileSync(join(stage, "package.json"), `${JSON.stringify(pkg, null, 2)}\n`);
  mkdirSync(destination, { recursive: true });
  const out = execFileSync("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", destination], {
    cwd: stage,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  process.stdout.write(`${join(destination, JSON.parse(out)[0].filename)}\n`);
} finally {
  rmSync(stage, { recursive: true, force: true });
}
