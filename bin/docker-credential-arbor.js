#!/usr/bin/env node
// docker-credential-arbor: docker's credential helper for registries behind Arbor (docs/registry.md).
import "./check-node.js";
import { existsSync } from "node:fs";
import { enableCompileCache } from "./compile-cache.js";

enableCompileCache();

const entry = new URL("../dist/cli/credential-helper.js", import.meta.url);
if (!existsSync(entry)) {
  process.stdout.write("docker-credential-arbor: not built yet; run `npm run build` (npm ci does it for you)\n");
  process.exit(1);
}
const { runCredentialHelper } = await import(entry.href);
process.exitCode = await runCredentialHelper(process.argv.slice(2), { stdin: process.stdin, stdout: process.stdout, env: process.env });
