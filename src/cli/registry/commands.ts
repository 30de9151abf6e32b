/**
 * `arbor registry`: the registry's repos and tags, through the API (read-only).
 */
import type { Command } from "commander";
import type { CliIo } from "../output/io.js";
import { withExamples } from "../resource/help-text.js";
import { addResourceCommands } from "../resource/resource-commands.js";
import { REPOS } from "./repos.js";
import { TAGS } from "./tags.js";

/** Adds `arbor registry` and its resources to program. */
export function addRegistryCommands(program: Command, io: CliIo): void {
  const registry = program.command("registry").description("the registry's repos and tags, through the API");
  withExamples(registry, ["arbor registry repos list", "arbor registry tags list --parent nginx"]);
  for (const spec of [REPOS, TAGS]) addResourceCommands(registry, spec, io);
}
