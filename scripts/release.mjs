#!/usr/bin/env node
// `npm run release [-- <dir>]`: builds, then writes the release tarball arbor-<version>.tgz into
// dir (default: the current directory) and prints its path.
//
// The tarball is `npm pack` of a staged copy of the files package.json's "files" names, under a
// package.json cut to what an installed package uses: no scripts (the checkout's `prepare` runs
// tsc, which a production install does not have, and npm 11 asks about every install script),
// no devDependencies, no overrides, and no "types" pointing at TypeScript sources the tarball
// does not carry. "allowScripts" stays: it keeps npm from compiling better-sqlite3, whose
// package carries prebuilt binaries, with node-gyp.
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");
const destination = resolve(process.argv[2] ?? ".");
const npm = (args, cwd) => execFileSync("npm", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });

// The build records the commit (scripts/build-info.mjs); ARBOR_COMMIT passes through.
execFileSync("npm", ["run", "--silent", "build"], { cwd: root, stdio: "inherit" });
const [listing] = JSON.parse(npm(["pack", "--dry-run", "--json", "--ignore-scripts"], root));
const stage = mkdtempSync(join(tmpdir(), "arbor-release-"));
try {
  for (const { path } of listing.files) {
    if (path === "package.json") continue;
    mkdirSync(dirname(join(stage, path)), { recursive: true });
    cpSync(join(root, path), join(stage, path));
  }
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  delete pkg.scripts;
  delete pkg.devDependencies;
  delete pkg.overrides;
  for (const entry of Object.values(pkg.exports ?? {})) if (typeof entry === "object") delete entry.types;
  writeFileSync(join(stage, "package.json"), `${JSON.stringify(pkg, null, 2)}\n`);
  mkdirSync(destination, { recursive: true });
  const [packed] = JSON.parse(npm(["pack", "--json", "--ignore-scripts", "--pack-destination", destination], stage));
  process.stdout.write(`${join(destination, packed.filename)}\n`);
} finally {
  rmSync(stage, { recursive: true, force: true });
}
