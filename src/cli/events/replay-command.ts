/**
 * `arbor events subscriptions replay`: restart a subscription's delivery from a time or an event
 * (ReplaySubscription), written beside the resource table as it takes neither fields nor a mask.
 */
import type { JsonObject } from "@bufbuild/protobuf";
import { Option, type Command } from "commander";
import { SubscriptionsService } from "../../gen/arbor/events/v2beta1/subscriptions_pb.js";
import type { CliIo } from "../output/io.js";
import { printItem } from "../output/print.js";
import { commandContext, withCommonOptions, type CommonFlags } from "../resource/context.js";
import { withExamples } from "../resource/help-text.js";
import { timestamp } from "../resource/parsers.js";
import { UsageError } from "../usage-error.js";
import { SUBSCRIPTIONS } from "./subscriptions.js";

/** Adds `replay` to the subscriptions command group. */
export function addReplayCommand(subscriptions: Command, io: CliIo): void {
  const cmd = subscriptions
    .command("replay")
    .description("send a subscription's events again (or skip to them) from a time or an event")
    .argument("<subscription>", "subscription uid")
    .addOption(new Option("--from-time <time>", "the first event at or after this RFC 3339 time").conflicts("fromEvent"))
    .addOption(new Option("--from-event <id>", "this event (its CloudEvents id)"));
  withCommonOptions(cmd);
  withExamples(
    cmd,
    ["arbor events subscriptions replay 0123456789abcdef0123456789abcdef01234567/0123456789abcdef --from-time 2026-01-01T00:00:00Z"],
    "Only what the outbox still holds can be sent again (ARBOR_EVENTS_RETENTION after delivery).",
  );
  cmd.action(async (uid: string, flags: CommonFlags & { fromTime?: string; fromEvent?: string }) => {
    if (flags.fromTime === undefined && flags.fromEvent === undefined) throw new UsageError("replay: give --from-time or --from-event");
    const ctx = commandContext(flags, io);
    const request: JsonObject = { uid };
    if (flags.fromTime !== undefined) request.fromTime = await timestamp("--from-time")(flags.fromTime, ctx);
    else request.fromEventId = flags.fromEvent ?? "";
    const item = (await ctx.api.call(SubscriptionsService, "replaySubscription", request)) as Record<string, unknown>;
    printItem(io, ctx.format, SUBSCRIPTIONS, item);
  });
}
