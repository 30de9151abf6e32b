/**
 * `arbor events`: subscriptions to the CloudEvents of changes, through the API.
 */
import type { Command } from "commander";
import type { CliIo } from "../output/io.js";
import { withExamples } from "../resource/help-text.js";
import { addResourceCommands } from "../resource/resource-commands.js";
import { addReplayCommand } from "./replay-command.js";
import { SUBSCRIPTIONS } from "./subscriptions.js";

/** Adds `arbor events` and its resources to program. */
export function addEventsCommands(program: Command, io: CliIo): void {
  const events = program.command("events").description("subscriptions delivering changes as CloudEvents, through the API");
  withExamples(events, [
    "arbor events subscriptions list",
    "arbor events subscriptions create --sink https://siem.example/arbor --include-descendants",
  ]);
  addReplayCommand(addResourceCommands(events, SUBSCRIPTIONS, io), io);
}
