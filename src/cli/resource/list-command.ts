/**
 * `<noun> list`: one page by default, `--all` pages or `--limit N` items, with the list's
 * filters, order, skip and page flags passed through; a note on stderr when there is more (with
 * the next page's token, unless --limit stopped the list where it was asked to).
 */
import type { JsonObject } from "@bufbuild/protobuf";
import { Option, type Command } from "commander";
import { UsageError } from "../usage-error.js";
import { printItems } from "../output/print.js";
import type { CliIo } from "../output/io.js";
import { commandContext, withCommonOptions, type CommandContext, type CommonFlags } from "./context.js";
import { addFieldFlags, fieldValues } from "./field-flags.js";
import { GROUP_LOOKUP } from "./group-lookup.js";
import { pluralOf, withExamples, wholeNumber } from "./help-text.js";
import { walkList } from "./paging.js";
import { resolveUid } from "./resolve.js";
import type { ResourceSpec } from "./spec.js";

/** The page size lists ask for unless told. */
export const DEFAULT_PAGE_SIZE = 50;

interface ListFlags extends CommonFlags {
  name?: string;
  parent?: string;
  childrenOf?: string;
  descendantsOf?: string;
  orderBy?: string;
  skip?: number;
  pageSize: number;
  pageToken?: string;
  all?: boolean;
  limit?: number;
}

/** Adds the paging flags every list takes. */
export function withPagingOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option("--order-by <order>", 'sort order: "field" or "field desc", comma-separated (e.g. "name desc")'))
    .addOption(new Option("--skip <n>", "leave out the first n results of the order").argParser(wholeNumber(0)))
    .addOption(
      new Option("--page-size <n>", "items per request (the server allows at most 200)")
        .argParser(wholeNumber(1))
        .default(DEFAULT_PAGE_SIZE),
    )
    .addOption(new Option("--page-token <token>", "continue where a previous list stopped (its nextPageToken)"))
    .addOption(new Option("--all", "read every page"))
    .addOption(new Option("--limit <n>", "stop after n items, reading as many pages as that takes").argParser(wholeNumber(1)));
}

/** Adds `list` for spec to parent. */
export function addListCommand(parent: Command, spec: ResourceSpec, io: CliIo): void {
  const cmd = parent.command("list").description(`list ${pluralOf(spec)}`);
  if (spec.named) cmd.addOption(new Option("--name <name>", "only those with exactly this name"));
  if (spec.hierarchical) {
    const parent = spec.parentLookup?.singular ?? "group";
    cmd
      .addOption(new Option(`--parent <${parent}>`, `only those directly in this ${parent}, a name, path or uid (as --children-of)`))
      .addOption(new Option(`--children-of <${parent}>`, `only those directly in this ${parent} (uidp.children_of)`))
      .addOption(new Option(`--descendants-of <${parent}>`, `only those below this ${parent}, at any depth (uidp.descendants_of)`));
  }
  addFieldFlags(cmd, spec.filters ?? []);
  withCommonOptions(withPagingOptions(cmd));
  withExamples(cmd, spec.examples.list ?? [], spec.notes?.list);
  cmd.action(async (flags: ListFlags) => {
    const ctx = commandContext(flags, io);
    const request = await listRequest(ctx, spec, flags);
    const walked = await walkList(ctx, spec, request, { all: flags.all, limit: flags.limit });
    printItems(io, ctx.format, spec.columns, walked.items);
    if (walked.more && flags.all !== true) {
      const shown = `${walked.items.length} of ${walked.totalCount} ${pluralOf(spec)}`;
      // A limit reached is what was asked for: the count alone, no invitation to read on.
      if (flags.limit !== undefined) io.stderr.write(`arbor: showing ${shown} (--limit ${flags.limit})\n`);
      else {
        const next = walked.nextPageToken === undefined ? "" : `; next page: --page-token ${walked.nextPageToken}`;
        io.stderr.write(`arbor: showing ${shown}${next} (or --all, --limit N)\n`);
      }
    }
  });
}

async function listRequest(ctx: CommandContext, spec: ResourceSpec, flags: ListFlags): Promise<JsonObject> {
  if (flags.parent !== undefined && flags.childrenOf !== undefined)
    throw new UsageError("--parent and --children-of are the same filter; give one");
  // A limit below the page size needs one short page, which also ends where a token can resume.
  const request: JsonObject = { pageSize: Math.min(flags.pageSize, flags.limit ?? flags.pageSize) };
  if (flags.name !== undefined) request.name = flags.name;
  if (flags.orderBy !== undefined) request.orderBy = flags.orderBy;
  if (flags.skip !== undefined) request.skip = flags.skip;
  if (flags.pageToken !== undefined) request.pageToken = flags.pageToken;
  if (spec.hierarchical) {
    const uidp: JsonObject = {};
    const parents = spec.parentLookup ?? GROUP_LOOKUP;
    const children = flags.parent ?? flags.childrenOf;
    if (children !== undefined) uidp.childrenOf = await resolveUid(ctx, parents, children);
    if (flags.descendantsOf !== undefined) uidp.descendantsOf = await resolveUid(ctx, parents, flags.descendantsOf);
    if (children === undefined && flags.descendantsOf === undefined && spec.defaultScoped) {
      const group = await ctx.defaultGroup();
      if (group !== undefined) uidp.descendantsOf = group;
    }
    if (Object.keys(uidp).length > 0) request.uidp = uidp;
  }
  const { json } = await fieldValues(ctx, spec.filters ?? [], flags as unknown as Record<string, unknown>);
  return { ...request, ...json };
}
