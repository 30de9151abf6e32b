/**
 * One resource's command group: `list`, `get`, and `create`, `update`, `delete` where its
 * service has them.
 */
import type { Command } from "commander";
import type { CliIo } from "../output/io.js";
import { withExamples } from "./help-text.js";
import { addGetCommand, addDeleteCommand } from "./item-commands.js";
import { addListCommand } from "./list-command.js";
import type { ResourceSpec } from "./spec.js";
import { addCreateCommand, addUpdateCommand } from "./write-commands.js";

/** Adds `<noun>` with its commands to parent; the group itself, for more commands. */
export function addResourceCommands(parent: Command, spec: ResourceSpec, io: CliIo): Command {
  const group = parent.command(spec.noun).description(spec.description);
  withExamples(group, [
    ...(spec.examples.list ?? []).slice(0, 1),
    ...(spec.examples.get ?? []).slice(0, 1),
    ...(spec.examples.create ?? []).slice(0, 1),
  ]);
  addListCommand(group, spec, io);
  addGetCommand(group, spec, io);
  addCreateCommand(group, spec, io);
  addUpdateCommand(group, spec, io);
  addDeleteCommand(group, spec, io);
  return group;
}
