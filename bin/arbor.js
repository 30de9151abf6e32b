#!/usr/bin/env node
// The arbor command: runs the compiled CLI (npm ci builds it through the prepare script).
import { existsSync } from "node:fs";
import module from "node:module";

// Caches compiled code between runs, so the command starts faster the second time.
module.enableCompileCache?.();

const entry = new URL("../dist/src/cli/main.js", import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write("arbor: not built yet; run `npm run build` (npm ci does it for you)\n");
  process.exit(1);
}
const { main } = await import(entry.href);
await main(process.argv);
