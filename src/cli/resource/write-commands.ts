/**
 * `<noun> create` and `<noun> update`: flags per field. Create puts the resource in `--parent`
 * (default: the default group); update sends an update mask of exactly the fields given, so every
 * other field keeps its value.
 */
import type { JsonObject } from "@bufbuild/protobuf";
import { Option, type Command } from "commander";
import { UsageError } from "../usage-error.js";
import type { CliIo } from "../output/io.js";
import { printItem } from "../output/print.js";
import { commandContext, withCommonOptions, type CommandContext, type CommonFlags } from "./context.js";
import { addFieldFlags, fieldValues, flagKey, flagName } from "./field-flags.js";
import { GROUP_LOOKUP } from "./group-lookup.js";
import { withArticle, withExamples } from "./help-text.js";
import { argumentName } from "./item-commands.js";
import { resolveUid } from "./resolve.js";
import type { FieldFlag, ResourceSpec } from "./spec.js";

type Flags = CommonFlags & { parent?: string } & Record<string, unknown>;

const RENAME: FieldFlag = { flags: "--name <name>", help: "the new name", path: "name", on: "update" };

/** Adds `create` for spec to parent, when the service can create. */
export function addCreateCommand(parent: Command, spec: ResourceSpec, io: CliIo): void {
  const rpc = spec.rpcs.create;
  if (rpc === undefined) return;
  const cmd = parent.command("create").description(`create ${withArticle(spec.singular)}`);
  if (spec.createsNamed) cmd.argument("<name>", `the new ${spec.singular}'s name`);
  const fields = (spec.fields ?? []).filter((f) => f.on !== "update");
  cmd.addOption(
    new Option(
      "--parent <group>",
      "the group to create it in, a name, path (acme/engineering) or uid " +
        `(default: the default group${spec.createsRoots === true ? "; with none, a new organization" : ""})`,
    ),
  );
  addFieldFlags(cmd, fields);
  const step = spec.createStep === undefined ? undefined : new Option(spec.createStep.flags, spec.createStep.help);
  if (step !== undefined) cmd.addOption(step);
  withCommonOptions(cmd);
  withExamples(cmd, spec.examples.create ?? [], spec.notes?.create);
  cmd.action(async (...args: unknown[]) => {
    const name = spec.createsNamed ? (args[0] as string) : undefined;
    const flags = args[spec.createsNamed ? 1 : 0] as Flags;
    for (const f of fields) if (f.required === true && flags[flagKey(f)] === undefined) throw new UsageError(`${flagName(f)} is required`);
    const ctx = commandContext(flags, io);
    const { json } = await fieldValues(ctx, fields, flags);
    const body: JsonObject = { ...(name !== undefined && { name }), ...json };
    const request: JsonObject = { [spec.body]: body };
    const group = await parentGroup(ctx, spec, flags.parent);
    if (group !== undefined) request.parent = group;
    const stepValue = step === undefined ? undefined : flags[step.attributeName()];
    const after = typeof stepValue === "string" ? await spec.createStep?.prepare(ctx, stepValue) : undefined;
    const created = (await ctx.api.call(spec.service, rpc, request)) as JsonObject;
    await after?.(created);
    printItem(io, ctx.format, spec, created);
  });
}

/** Adds `update` for spec to parent, when the service can update. */
export function addUpdateCommand(parent: Command, spec: ResourceSpec, io: CliIo): void {
  const rpc = spec.rpcs.update;
  if (rpc === undefined) return;
  const fields = [...(spec.named ? [RENAME] : []), ...(spec.fields ?? []).filter((f) => f.on !== "create")];
  const cmd = parent
    .command("update")
    .description(`change ${withArticle(spec.singular)}: only the fields given change`)
    .argument(`<${spec.singular.replace(/ /g, "-")}>`, argumentName(spec));
  addFieldFlags(cmd, fields);
  withCommonOptions(cmd);
  withExamples(cmd, spec.examples.update ?? [], spec.notes?.update);
  cmd.action(async (name: string, flags: Flags) => {
    const ctx = commandContext(flags, io);
    const { json, paths } = await fieldValues(ctx, fields, flags);
    if (paths.length === 0) throw new UsageError(`nothing to change: give at least one of ${fields.map(flagName).join(", ")}`);
    const uid = await resolveUid(ctx, spec, name);
    const request = { [spec.body]: { ...json, uid }, updateMask: [...new Set(paths)].join(",") };
    printItem(io, ctx.format, spec, (await ctx.api.call(spec.service, rpc, request)) as JsonObject);
  });
}

/** The uid of the group to create in: --parent, else the default group; none only for a new organization. */
export async function parentGroup(ctx: CommandContext, spec: ResourceSpec, flag: string | undefined): Promise<string | undefined> {
  if (flag !== undefined) return resolveUid(ctx, GROUP_LOOKUP, flag);
  const group = await ctx.defaultGroup();
  if (group === undefined && spec.createsRoots !== true)
    throw new UsageError(`--parent is required (or set a default group: --group, ARBOR_GROUP, arbor config set group)`);
  return group;
}
