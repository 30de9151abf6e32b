/**
 * `arbor iam groups tree`: a group's subtree (or every group the caller can see) drawn as an
 * indented tree; as nested JSON (`uid`, `name`, `children`) with -o json or yaml.
 */
import type { Command } from "commander";
import { parentOf } from "../../domain/uid.js";
import type { Item } from "../output/cells.js";
import { isTable } from "../output/format.js";
import type { CliIo } from "../output/io.js";
import { printData } from "../output/print.js";
import { commandContext, withCommonOptions, type CommonFlags } from "../resource/context.js";
import { GROUP_LOOKUP } from "../resource/group-lookup.js";
import { withExamples } from "../resource/help-text.js";
import { walkList } from "../resource/paging.js";
import { resolveUid } from "../resource/resolve.js";

/** A group and the groups below it. */
export interface TreeNode {
  uid: string;
  name: string;
  children: TreeNode[];
}

export function addGroupsTreeCommand(groups: Command, io: CliIo): void {
  const cmd = groups
    .command("tree")
    .description("show a group and every group below it as a tree")
    .argument(
      "[group]",
      "the group, a name, path (acme/engineering) or uid (default: the default group; with none, every group you can see)",
    );
  withCommonOptions(cmd);
  withExamples(
    cmd,
    ["arbor iam groups tree acme", "arbor iam groups tree engineering -o json | jq '.children[].uid'"],
    "Siblings are ordered by name. With -o json or yaml: one object (uid, name, children) for a group,\n" +
      "an array of them without one; -o id prints the uids, parents before children.",
  );
  cmd.action(async (name: string | undefined, flags: CommonFlags) => {
    const ctx = commandContext(flags, io);
    const text = name ?? ctx.config.group;
    const root = text === undefined ? undefined : await resolveUid(ctx, GROUP_LOOKUP, text);
    const below = await walkList(
      ctx,
      GROUP_LOOKUP,
      { pageSize: 200, orderBy: "name", ...(root !== undefined && { uidp: { descendantsOf: root } }) },
      { all: true },
    );
    const top = root === undefined ? [] : [(await ctx.api.call(GROUP_LOOKUP.service, "getGroup", { uid: root })) as Item];
    const forest = buildForest([...top, ...below.items]);
    const data = root === undefined ? forest : forest[0];
    if (isTable(ctx.format)) io.stdout.write(forest.map((t) => drawTree(t)).join(""));
    else printData(io, ctx.format, data, forest.flatMap(preorder));
  });
}

/** The trees of groups: each group under its parent when the parent is among them, else a root. */
export function buildForest(groups: readonly Item[]): TreeNode[] {
  const nodes = new Map<string, TreeNode>();
  for (const g of groups) nodes.set(String(g.uid), { uid: String(g.uid), name: String(g.name), children: [] });
  const roots: TreeNode[] = [];
  for (const node of nodes.values()) {
    const parent = parentOf(node.uid);
    const home = parent === undefined ? undefined : nodes.get(parent);
    (home?.children ?? roots).push(node);
  }
  const sort = (list: TreeNode[]) => {
    list.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.uid < b.uid ? -1 : 1));
    for (const n of list) sort(n.children);
  };
  sort(roots);
  return roots;
}

/** The tree as lines: the root's name, then its children with box-drawing branches. */
export function drawTree(node: TreeNode, prefix = "", branch = "", last = true): string {
  let out = `${prefix}${branch}${node.name}\n`;
  const inner = prefix + (branch === "" ? "" : last ? "    " : "│   ");
  node.children.forEach((child, i) => {
    const isLast = i === node.children.length - 1;
    out += drawTree(child, inner, isLast ? "└── " : "├── ", isLast);
  });
  return out;
}

function preorder(node: TreeNode): string[] {
  return [node.uid, ...node.children.flatMap(preorder)];
}
