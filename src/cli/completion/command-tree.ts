/**
 * The command tree as completion scripts need it: every command's path, subcommands and flags.
 */
import type { Command } from "commander";

/** One command: its path from the program (`arbor iam groups`), what may follow it. */
export interface TreeEntry {
  path: string;
  subcommands: string[];
  /** Long and short flags, `--help` included. */
  flags: string[];
}

/** Every command below and including root, parents first. */
export function commandTree(root: Command): TreeEntry[] {
  const out: TreeEntry[] = [];
  const visit = (cmd: Command, path: string) => {
    const visible = cmd.commands.filter((c) => !(c as Command & { _hidden?: boolean })._hidden);
    const flags = cmd.options.filter((o) => !o.hidden).flatMap((o) => [o.long, o.short].filter((f): f is string => f !== undefined));
    out.push({ path, subcommands: visible.map((c) => c.name()), flags: [...flags, "--help"] });
    for (const sub of visible) visit(sub, `${path} ${sub.name()}`);
  };
  visit(root, root.name());
  return out;
}

/** The root of cmd's program. */
export function rootOf(cmd: Command): Command {
  let root = cmd;
  while (root.parent !== null) root = root.parent;
  return root;
}
