#!/usr/bin/env node
// Bundles the compiled commands (dist/src/cli/main.js, dist/src/cli/credential-helper.js) into
// dist/cli/, which bin/arbor.js and bin/docker-credential-arbor.js run, and the worker threads a
// large import writes from and SQLite's search counts run in (dist/src/store/advisory-write-worker.js,
// dist/src/store/search-count-worker.js). Node's ES module loader
// pays for every file it resolves and reads: the unbundled command line is about a thousand of
// them (kysely alone is 250), which cost about a second on a 2-core machine. Bundled, it is a few
// chunks; code splitting keeps each command's `await import()` lazy, so `arbor --version` and the
// API commands read neither the server nor the store (test/cli/startup.test.ts keeps it so).
// One bundle holds every command, `serve` included: a module has one copy, so `instanceof` on the
// errors the store or the server throw still holds in main.ts.
//
// `npm run build` runs it after tsc; the release runs it on its own staging folder (an argument
// names another folder than dist/). Native and optional modules stay outside: better-sqlite3
// loads its binary relative to its own package, and pg's optional pg-native is never installed.
// The metafile beside the bundle (dist/cli-bundle.json, not shipped) says which module went into
// which chunk, for the start-up test.
import { rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { build } from "esbuild";

const dist = resolve(process.argv[2] ?? join(import.meta.dirname, "../dist"));
const outdir = join(dist, "cli");
rmSync(outdir, { recursive: true, force: true });
const common = {
  outdir,
  // Paths in the metafile are relative to the package's root.
  absWorkingDir: resolve(dist, ".."),
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node22",
  external: ["better-sqlite3", "pg-native"],
  // The release compiles into a folder outside the checkout: packages come from the checkout's.
  nodePaths: [join(import.meta.dirname, "../node_modules")],
  // CommonJS packages (pg, pino, prom-client) call require() on Node's own modules.
  banner: {
    js: 'import { createRequire as __arborCreateRequire } from "node:module"; const require = __arborCreateRequire(import.meta.url);',
  },
  // Error classes and others keep their names (messages and logs show them).
  keepNames: true,
  // Chunk names stay stable between builds of the same code, so the compile cache keeps serving.
  chunkNames: "chunk-[hash]",
  metafile: true,
  logLevel: "warning",
};
const result = await build({
  ...common,
  entryPoints: { main: join(dist, "src/cli/main.js"), "credential-helper": join(dist, "src/cli/credential-helper.js") },
});
// The threads a large import writes from and SQLite's search counts run in (each found beside the
// chunk that starts it), bundled on their own: the writer, as a third entry of the build above,
// changed how the commands' modules were split into chunks, and the server's memory under load
// with it (S7: 203 MB against 184 MB, 2026-11-27; bench/findings.md). Each runs in a thread of its
// own, which loads its own copy of every module anyway, and answers in messages, not in objects a
// command tests with `instanceof`.
const worker = await build({
  ...common,
  entryPoints: {
    "advisory-write-worker": join(dist, "src/store/advisory-write-worker.js"),
    "search-count-worker": join(dist, "src/store/search-count-worker.js"),
  },
  splitting: false,
});
const meta = {
  inputs: { ...result.metafile.inputs, ...worker.metafile.inputs },
  outputs: { ...result.metafile.outputs, ...worker.metafile.outputs },
};
writeFileSync(join(dist, "cli-bundle.json"), JSON.stringify(meta));
