/**
 * `<noun> get` and `<noun> delete`: one resource (or, for delete, several) named by uid or name.
 */
import { Option, type Command } from "commander";
import type { CliIo } from "../output/io.js";
import { printItem } from "../output/print.js";
import { commandContext, withCommonOptions, type CommonFlags } from "./context.js";
import { pluralOf, withExamples } from "./help-text.js";
import { resolveUid } from "./resolve.js";
import type { ResourceSpec } from "./spec.js";

/** What names a resource in the help text. */
export function argumentName(spec: ResourceSpec): string {
  if (!spec.named) return `${spec.singular} uid`;
  return spec.hierarchical
    ? `${spec.singular} uid, name, or path of names from the organization (acme/engineering/web)`
    : `${spec.singular} uid or name`;
}

/** Adds `get` for spec to parent. */
export function addGetCommand(parent: Command, spec: ResourceSpec, io: CliIo): void {
  const cmd = parent
    .command("get")
    .description(`show one ${spec.singular}`)
    .argument(`<${spec.singular.replace(/ /g, "-")}>`, argumentName(spec));
  withCommonOptions(cmd);
  withExamples(cmd, spec.examples.get ?? [], spec.notes?.get);
  cmd.action(async (name: string, flags: CommonFlags) => {
    const ctx = commandContext(flags, io);
    const uid = await resolveUid(ctx, spec, name);
    const item = (await ctx.api.call(spec.service, spec.rpcs.get, { uid })) as Record<string, unknown>;
    printItem(io, ctx.format, spec, item);
  });
}

/** Adds `delete` for spec to parent, when the service can delete. */
export function addDeleteCommand(parent: Command, spec: ResourceSpec, io: CliIo): void {
  const rpc = spec.rpcs.delete;
  if (rpc === undefined) return;
  const cmd = parent
    .command("delete")
    .description(`delete ${pluralOf(spec)}`)
    .argument(
      `<${spec.singular.replace(/ /g, "-")}...>`,
      `${argumentName(spec)}; several are deleted in order, stopping at the first failure`,
    )
    .addOption(new Option("-q, --quiet", "do not ask for confirmation (it is asked only when stdin and stderr are terminals)"));
  withCommonOptions(cmd);
  withExamples(cmd, spec.examples.delete ?? [], spec.notes?.delete);
  cmd.action(async (names: string[], flags: CommonFlags & { quiet?: boolean }) => {
    const ctx = commandContext(flags, io);
    const uids: string[] = [];
    for (const name of names) uids.push(await resolveUid(ctx, spec, name));
    if (flags.quiet !== true && io.stdinIsTty && io.stderr.isTTY === true) {
      const what =
        uids.length === 1
          ? `${spec.singular} ${names[0]}${names[0] === uids[0] ? "" : ` (${uids[0]})`}`
          : `${uids.length} ${pluralOf(spec)}`;
      if (!(await io.confirm(`Delete ${what}?`))) throw new Error("nothing deleted (not confirmed)");
    }
    for (const uid of uids) {
      await ctx.api.call(spec.service, rpc, { uid });
      io.stderr.write(`Deleted ${spec.singular} ${uid}.\n`);
    }
    if (ctx.format === "id") io.stdout.write(uids.map((u) => `${u}\n`).join(""));
  });
}
