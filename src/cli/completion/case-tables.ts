/**
 * The tables bash and zsh completion share, as shell functions of `case` statements (the same
 * syntax in both): a command's subcommands, its flags, what completes a flag's value, and what
 * completes its arguments. Each prints its answer as one line of words.
 */
import type { TreeEntry, ValueSpec } from "./command-tree.js";

/** The functions `<fn>_subcommands NODE`, `<fn>_flags NODE`, `<fn>_value NODE FLAG` and `<fn>_args NODE`. */
export function caseTables(tree: readonly TreeEntry[], fn: string): string {
  const byPath = (pick: (e: TreeEntry) => string) => tree.map((e) => [JSON.stringify(e.path), pick(e)] as const);
  return [
    caseFunction(
      `${fn}_subcommands`,
      "$1",
      byPath((e) => e.subcommands.join(" ")),
    ),
    caseFunction(
      `${fn}_flags`,
      "$1",
      byPath((e) => e.flags.join(" ")),
    ),
    caseFunction(`${fn}_value`, "$1|$2", valueCases(tree)),
    caseFunction(
      `${fn}_args`,
      "$1",
      byPath(argsLine).filter(([, line]) => line !== ""),
    ),
  ].join("\n");
}

/** A command's argument specs in order, the last marked `*` when it repeats. */
export function argsLine(e: TreeEntry): string {
  return e.args.map((s, i) => (e.variadic && i === e.args.length - 1 ? `*${s}` : s)).join(" ");
}

/**
 * The value specs by `node|flag`. Most flags complete the same way wherever they are (`-o`,
 * `--group`), so each flag gets one pattern for all its commands (`*"|--group"`), preceded by
 * the commands where it differs.
 */
export function valueSpecsByFlag(
  tree: readonly TreeEntry[],
): { flag: string; common: ValueSpec | ""; except: { path: string; spec: ValueSpec | "" }[] }[] {
  const byFlag = new Map<string, { path: string; spec: ValueSpec | "" }[]>();
  for (const e of tree)
    for (const flag of e.flags) byFlag.set(flag, [...(byFlag.get(flag) ?? []), { path: e.path, spec: e.values[flag] ?? "" }]);
  return [...byFlag].map(([flag, uses]) => {
    const counts = new Map<string, number>();
    for (const u of uses) counts.set(u.spec, (counts.get(u.spec) ?? 0) + 1);
    const common = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]?.[0] as ValueSpec | "";
    return { flag, common, except: uses.filter((u) => u.spec !== common) };
  });
}

function valueCases(tree: readonly TreeEntry[]): (readonly [string, string])[] {
  const specific: (readonly [string, string])[] = [];
  const general: (readonly [string, string])[] = [];
  for (const { flag, common, except } of valueSpecsByFlag(tree)) {
    for (const e of except) specific.push([JSON.stringify(`${e.path}|${flag}`), e.spec]);
    if (common !== "") general.push([`*${JSON.stringify(`|${flag}`)}`, common]);
  }
  return [...specific, ...general];
}

function caseFunction(name: string, subject: string, cases: readonly (readonly [string, string])[]): string {
  return (
    `${name}() {\n  case "${subject}" in\n` +
    `${cases.map(([pattern, words]) => `    ${pattern}) echo ${JSON.stringify(words)} ;;`).join("\n")}\n  esac\n}\n`
  );
}
