/**
 * The command tree as completion scripts need it: every command's path, subcommands and flags,
 * and what may be typed as each flag's value and each argument, read from the definitions
 * themselves: a flag or argument with `.choices()` completes those words; one whose value is named
 * `<group>`, `<identity>`, `<role>` or `<context>` completes names the hidden `__complete`
 * command finds (complete-values.ts); any other value completes file names.
 */
import type { Argument, Command, Option } from "commander";

/** What the shell offers for a value the server or the settings file knows. */
export const DYNAMIC_KINDS = ["groups", "identities", "roles", "contexts"] as const;

export type DynamicKind = (typeof DYNAMIC_KINDS)[number];

/** The value names that mean a dynamic kind, as the definitions write them (`--parent <group>`). */
const KIND_OF_VALUE: Readonly<Record<string, DynamicKind>> = {
  group: "groups",
  identity: "identities",
  role: "roles",
  context: "contexts",
};

/**
 * What completes a value, as one shell word: `f` file names (anything goes), `w:a,b,c` those
 * words, `d:<kind>` names the `__complete` command prints.
 */
export type ValueSpec = "f" | `w:${string}` | `d:${DynamicKind}`;

/** One command: its path from the program (`arbor iam groups`), what may follow it. */
export interface TreeEntry {
  path: string;
  subcommands: string[];
  /** Long and short flags, `--help` and the program's own (`--context`) included. */
  flags: string[];
  /** The flags that take a value, and what completes it; any other flag takes none. */
  values: Record<string, ValueSpec>;
  /** What completes each argument in turn. */
  args: ValueSpec[];
  /** Whether the last argument repeats (`<group...>`). */
  variadic: boolean;
}

/** Every command below and including root, parents first. */
export function commandTree(root: Command): TreeEntry[] {
  const out: TreeEntry[] = [];
  // Program options are recognised after subcommands too (commander's default); --version is not.
  const inherited = root.options.filter((o) => !o.hidden && o.long !== "--version");
  const visit = (cmd: Command, path: string) => {
    const visible = cmd.commands.filter((c) => !(c as Command & { _hidden?: boolean })._hidden);
    const options = [...cmd.options.filter((o) => !o.hidden), ...(cmd === root ? [] : inherited)];
    const values: Record<string, ValueSpec> = {};
    for (const o of options) {
      const spec = optionSpec(o);
      if (spec !== undefined) for (const f of namesOf(o)) values[f] = spec;
    }
    const args = cmd.registeredArguments;
    out.push({
      path,
      subcommands: visible.map((c) => c.name()),
      flags: [...options.flatMap(namesOf), "--help"],
      values,
      args: args.map(argumentSpec),
      variadic: args.at(-1)?.variadic === true,
    });
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

function namesOf(o: Option): string[] {
  return [o.long, o.short].filter((f): f is string => f !== undefined);
}

/** The spec of an option's value; undefined when it takes none (or only an optional one, `[x]`, which a next word never is). */
function optionSpec(o: Option): ValueSpec | undefined {
  if (!o.required) return undefined;
  return specOf(o.argChoices, /<([\w-]+)(?:\.\.\.)?>/.exec(o.flags)?.[1]);
}

function argumentSpec(a: Argument): ValueSpec {
  return specOf(a.argChoices, a.name());
}

function specOf(choices: readonly string[] | undefined, valueName: string | undefined): ValueSpec {
  if (choices !== undefined) {
    // The scripts keep a choice list in one word, comma-separated.
    for (const c of choices) if (!/^[\w.+-]+$/.test(c)) throw new RangeError(`completion cannot offer the choice "${c}"`);
    return `w:${choices.join(",")}`;
  }
  const kind = valueName === undefined ? undefined : KIND_OF_VALUE[valueName];
  return kind === undefined ? "f" : `d:${kind}`;
}
