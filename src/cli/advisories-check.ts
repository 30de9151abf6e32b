/**
 * `arbor advisories check`: which advisories affect these package versions (CheckAdvisories).
 * A package version is written `ECOSYSTEM/NAME@VERSION`: the ecosystem runs to the first `/`
 * (an ecosystem's name has none; `Debian:12` keeps its release) and the version from the last
 * `@` (npm's scoped names start with one), so `npm/@types/node@20.1.0`,
 * `Go/golang.org/x/net@v0.7.0` and `Maven/org.apache.logging.log4j:log4j-core@2.14.1` all read
 * as meant. An ecosystem may carry a repository's URL after its colon, as OSV writes Maven's
 * other repositories (`Maven:https://maven.google.com`), and a URL has slashes of its own: for
 * Maven, whose names (`group:artifact`) never hold a `/`, the name starts after the last `/`;
 * for any other ecosystem with a URL, where the name starts cannot be told, so it is refused
 * with a pointer to `--file`'s JSON form.
 */
import { readFile } from "node:fs/promises";
import { Option, type Command } from "commander";
import { AdvisoriesService } from "../gen/arbor/vulnerabilities/v2beta1/advisories_pb.js";
import { UsageError } from "./usage-error.js";
import { text, type Item } from "./output/cells.js";
import { isTable } from "./output/format.js";
import type { CliIo } from "./output/io.js";
import { printData, printItems } from "./output/print.js";
import type { Column } from "./output/table.js";
import { commandContext, withCommonOptions, type CommonFlags } from "./resource/context.js";
import { withExamples } from "./resource/help-text.js";

/** The most package versions one request carries (the RPC's own limit); more are sent in turn. */
const PER_REQUEST = 1_000;

/** A package version as the RPC takes it (its JSON). */
export type PackageVersion = { ecosystem: string; name: string; version: string };

/** An ecosystem with a repository's URL after its colon: its base ecosystem. */
const ECOSYSTEM_WITH_URL = /^([^/:]+):[A-Za-z][A-Za-z0-9+.-]*:\/\//;

/** `ECOSYSTEM/NAME@VERSION` read as a package version; UsageError naming what is wrong. */
export function parsePackageVersion(arg: string): PackageVersion {
  const at = arg.lastIndexOf("@");
  const withUrl = ECOSYSTEM_WITH_URL.exec(arg);
  if (withUrl !== null && withUrl[1] !== "Maven") {
    throw new UsageError(
      `"${arg}": the ecosystem holds a URL, so where the package name starts cannot be told; ` +
        `give it in --file as JSON: [{"ecosystem": …, "name": …, "version": …}]`,
    );
  }
  // With a URL, the name's slash is the last before the version, and past the URL's `://`.
  const slash = withUrl === null ? arg.indexOf("/") : arg.lastIndexOf("/", at);
  const firstPossible = withUrl === null ? 1 : withUrl[0].length;
  if (slash < firstPossible || at <= slash + 1 || at === arg.length - 1) {
    throw new UsageError(`"${arg}" is not ECOSYSTEM/NAME@VERSION (for example npm/lodash@4.17.20 or PyPI/django@3.2.0)`);
  }
  return { ecosystem: arg.slice(0, slash), name: arg.slice(slash + 1, at), version: arg.slice(at + 1) };
}

/**
 * The package versions of a file: one ECOSYSTEM/NAME@VERSION a line (blank lines and `#` comments
 * left out), or a JSON array of {ecosystem, name, version}.
 */
export function parsePackageList(content: string, source: string): PackageVersion[] {
  const trimmed = content.trim();
  if (trimmed.startsWith("[")) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch (e) {
      throw new UsageError(`${source}: not JSON: ${(e as Error).message}`);
    }
    if (!Array.isArray(parsed)) throw new UsageError(`${source}: a JSON list must be an array`);
    return parsed.map((p: unknown, i) => {
      const { ecosystem, name, version } = (p ?? {}) as Record<string, unknown>;
      if (typeof ecosystem !== "string" || typeof name !== "string" || typeof version !== "string") {
        throw new UsageError(`${source}: item ${i} needs string fields ecosystem, name and version`);
      }
      return { ecosystem, name, version };
    });
  }
  return trimmed
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map(parsePackageVersion);
}

interface CheckFlags extends CommonFlags {
  file?: string;
  includeWithdrawn?: boolean;
  failOnAffected?: boolean;
}

/** One row of the table: a package version and one advisory affecting it (or none). */
type Row = Item;

const COLUMNS: Column<Row>[] = [
  { header: "PACKAGE", value: (r) => text(r.package) },
  { header: "VERSION", value: (r) => text(r.version) },
  { header: "ADVISORY", value: (r) => text(r.advisory) },
  { header: "FIXED IN", value: (r) => text(r.fixed) },
  { header: "SUMMARY", value: (r) => text(r.summary) },
];

/** Adds `check` under the advisories command. */
export function addCheckCommand(advisories: Command, io: CliIo): void {
  const cmd = advisories
    .command("check")
    .description("which advisories affect these package versions")
    .argument("[packages...]", "package versions, each ECOSYSTEM/NAME@VERSION (npm/lodash@4.17.20, Debian:12/curl@7.88.1-10)")
    .addOption(
      new Option(
        "-f, --file <path>",
        "also read package versions from a file (- for stdin): " +
          "one ECOSYSTEM/NAME@VERSION a line, or a JSON array of {ecosystem, name, version}",
      ),
    )
    .addOption(new Option("--include-withdrawn", "also answer withdrawn advisories"))
    .addOption(new Option("--fail-on-affected", "exit with 1 when an advisory affects any of them (for CI)"));
  withCommonOptions(cmd);
  withExamples(
    cmd,
    [
      "arbor advisories check npm/lodash@4.17.20 PyPI/django@3.2.0",
      "arbor advisories check --file packages.txt --fail-on-affected",
      "arbor advisories check Go/golang.org/x/net@v0.7.0 -o json",
    ],
    "Versions compare in each ecosystem's own order (SemVer for npm, Go and crates.io; PEP 440 for\n" +
      "PyPI; Maven's; RubyGems'; apk's for Alpine, Wolfi and Chainguard; dpkg's for Debian and\n" +
      "Ubuntu); for other ecosystems only the versions an advisory lists count. An advisory that\n" +
      "cannot be decided for a version (one that does not parse there) is shown as UNDECIDED.\n" +
      "The table has a row per advisory, and one with no advisory for a version nothing affects.\n" +
      "Exit code 0, or 1 with --fail-on-affected when any advisory affects any of them.",
  );
  cmd.action(async (args: string[], flags: CheckFlags) => {
    const packages = args.map(parsePackageVersion);
    if (flags.file !== undefined) {
      const content =
        flags.file === "-"
          ? await readStdin()
          : await readFile(flags.file, "utf8").catch((e: NodeJS.ErrnoException) => {
              throw new UsageError(`--file: cannot read ${flags.file}: ${e.code ?? e.message}`);
            });
      packages.push(...parsePackageList(content, flags.file === "-" ? "stdin" : flags.file));
    }
    if (packages.length === 0) throw new UsageError("name at least one package version, or --file");
    const ctx = commandContext(flags, io);
    const results: Item[] = [];
    for (let i = 0; i < packages.length; i += PER_REQUEST) {
      const response = (await ctx.api.call(AdvisoriesService, "checkAdvisories", {
        packages: packages.slice(i, i + PER_REQUEST),
        ...(flags.includeWithdrawn === true && { includeWithdrawn: true }),
      })) as { results?: Item[] };
      results.push(...(response.results ?? []));
    }
    const affected = results.some((r) => Array.isArray(r.advisories) && r.advisories.length > 0);
    if (isTable(ctx.format)) printItems(io, ctx.format, COLUMNS, results.flatMap(rowsOf));
    else
      printData(
        io,
        ctx.format,
        results,
        results.flatMap((r) => [...ids(r.advisories), ...ids(r.undecided)]),
      );
    if (flags.failOnAffected === true && affected) process.exitCode = 1;
  });
}

function rowsOf(result: Item): Row[] {
  const p = (result.package ?? {}) as Item;
  const base = { package: `${text(p.ecosystem)}/${text(p.name)}`, version: p.version };
  const advisories = (Array.isArray(result.advisories) ? result.advisories : []) as Item[];
  const undecided = (Array.isArray(result.undecided) ? result.undecided : []) as Item[];
  const rows: Row[] = [
    ...advisories.map((a) => ({ ...base, advisory: a.advisoryId, fixed: a.fixedVersions, summary: a.summary })),
    ...undecided.map((a) => ({
      ...base,
      advisory: `${text(a.advisoryId)} (UNDECIDED)`,
      fixed: a.fixedVersions,
      summary: result.undecidedReason,
    })),
  ];
  return rows.length > 0 ? rows : [{ ...base, advisory: "", fixed: "", summary: "no advisory affects it" }];
}

function ids(list: unknown): string[] {
  return Array.isArray(list) ? (list as Item[]).map((a) => text(a.advisoryId)) : [];
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
