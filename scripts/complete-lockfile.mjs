#!/usr/bin/env node
// Completes package-lock.json with the platform packages the reachable npm registry does not
// carry (for example @bufbuild/buf's macOS and Windows binaries). `npm install` leaves them out
// when it cannot fetch them, and `npm ci` then refuses the lock as out of sync with package.json.
// Each missing optional dependency named `<scope>/<pkg>-<os>-<cpu>` gets an entry that marks it
// optional for its platform, so npm skips it here and fetches it where it applies.
// Run after every `npm install`: node scripts/complete-lockfile.mjs
import { readFileSync, writeFileSync } from "node:fs";

const OS = { darwin: "darwin", linux: "linux", linuxmusl: "linux", win32: "win32", freebsd: "freebsd" };
const CPU = { arm64: "arm64", aarch64: "arm64", x64: "x64", armv7: "arm", arm: "arm", ia32: "ia32" };

const path = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(readFileSync(path, "utf8"));
let added = 0;
for (const [key, entry] of Object.entries(lock.packages)) {
  for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const depKey = `node_modules/${dep}`;
    if (lock.packages[depKey] !== undefined || lock.packages[`${key}/${depKey}`] !== undefined) continue;
    const m = /-([a-z0-9]+)-([a-z0-9]+)$/.exec(dep);
    if (!m || !OS[m[1]] || !CPU[m[2]]) continue;
    lock.packages[depKey] = {
      version,
      cpu: [CPU[m[2]]],
      ...(entry.dev && { dev: true }),
      optional: true,
      os: [OS[m[1]]],
    };
    added++;
  }
}
const sorted = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a < b ? -1 : 1)));
lock.packages = sorted;
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
process.stdout.write(`complete-lockfile: ${added} platform entr${added === 1 ? "y" : "ies"} added\n`);
