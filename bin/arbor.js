#!/usr/bin/env node
// The arbor command: runs the bundled CLI, dist/cli/ (npm ci builds it through the prepare script;
// scripts/bundle-cli.mjs says why it is bundled).
import "./check-node.js";
import { existsSync } from "node:fs";
import { enableCompileCache } from "./compile-cache.js";

// `arbor serve` caps V8's young generation at 16 MB a semi-space: under sustained load Node 24
// lets it grow until the process holds about 280 MB, where 180 MB serve as fast (S7 in
// docs/benchmarks.md). V8 sizes its heap once, at start, so the flag must be on the command line:
// the process replaces itself with one that has it (process.execve: same PID, same stdio, so a
// supervisor sees no difference). A flag the operator set (NODE_OPTIONS or node's own) wins.
// `arbor advisories import` too: importing all of OSV allocates as fast, and is held under 400 MB.
// The import also starts with glibc's malloc held to two arenas (MALLOC_ARENA_MAX, unless set):
// its threads (the writer, zlib's) each got an arena of their own, which left 20 to 35 MB more
// resident at 500,000 documents (406 to 420 MB against 385 MB; docs/operations.md).
const HEAP_FLAG = "--max-semi-space-size";
const heapFlagSet = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? "").split(/\s+/)].some((a) => a.startsWith(HEAP_FLAG));
const importing = process.argv[2] === "advisories" && process.argv[3] === "import";
const sustained = process.argv[2] === "serve" || importing;
if (sustained && !heapFlagSet && typeof process.execve === "function") {
  const env = importing && process.env.MALLOC_ARENA_MAX === undefined ? { ...process.env, MALLOC_ARENA_MAX: "2" } : process.env;
  process.execve(process.execPath, [process.execPath, `${HEAP_FLAG}=16`, ...process.execArgv, ...process.argv.slice(1)], env);
}

enableCompileCache();

const entry = new URL("../dist/cli/main.js", import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write("arbor: not built yet; run `npm run build` (npm ci does it for you)\n");
  process.exit(1);
}
const { main } = await import(entry.href);
await main(process.argv);
