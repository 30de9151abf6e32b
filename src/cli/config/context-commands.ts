/**
 * `arbor config get-contexts | current-context | use-context | create-context | rename-context |
 * delete-context`: several servers and logins side by side, named as kubectl names them. A
 * context's logins are cached apart from every other's (auth/context-cache.ts); deleting a
 * context forgets its logins, renaming it keeps them.
 */
import { Option, type Command } from "commander";
import { cacheRootOf } from "../auth/client-config.js";
import { removeContextCache, renameContextCache } from "../auth/context-cache.js";
import { readRegistries, registriesPath, saveRegistry } from "../auth/registries.js";
import type { CliIo } from "../output/io.js";
import { withExamples } from "../resource/help-text.js";
import { UsageError } from "../usage-error.js";
import {
  checkValue,
  CLIENT_FILE_KEYS,
  clientFilePath,
  contextName,
  DEFAULT_CONTEXT,
  readClientFile,
  writeClientFile,
  type ClientFile,
  type ClientFileKey,
  type ContextSettings,
} from "./client-file.js";
import { contextIn, contextNames, currentContextName, selectContext } from "./contexts.js";

/** The formats of get-contexts, as kubectl's: a table, or the names alone. */
const LIST_FORMATS = ["table", "name", "json"] as const;

/** The file's contexts, the implicit `default` made explicit (a file with contexts must list it to keep it). */
function explicit(file: ClientFile): Record<string, ContextSettings> {
  return Object.keys(file.contexts).length === 0 ? { [DEFAULT_CONTEXT]: {} } : file.contexts;
}

/** Adds the context commands under config. */
export function addContextCommands(config: Command, io: CliIo): void {
  const env = io.env;
  const path = () => clientFilePath(env);

  withExamples(
    config
      .command("get-contexts")
      .description("list the contexts; * marks the one commands use (--context, ARBOR_CONTEXT, else the current one)")
      .addOption(new Option("-o, --output <format>", "table, name (one a line) or json").choices(LIST_FORMATS).default("table")),
    ["arbor config get-contexts", "arbor config get-contexts -o name"],
  ).action((opts: { output: (typeof LIST_FORMATS)[number] }) => {
    const file = readClientFile(path());
    let used: string | undefined;
    try {
      used = selectContext(file, path(), env).name;
    } catch (e) {
      // The list is where one looks for the right name: a wrong --context or ARBOR_CONTEXT marks none, and says so.
      if (!(e instanceof UsageError)) throw e;
      io.stderr.write(`arbor: ${e.message}\n`);
    }
    const rows = contextNames(file).map((name) => ({ name, current: name === used, ...(file.contexts[name] ?? {}) }));
    if (opts.output === "name") io.stdout.write(rows.map((r) => `${r.name}\n`).join(""));
    else if (opts.output === "json") io.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    else
      io.stdout.write(
        table(
          ["CURRENT", "NAME", "API", "GROUP"],
          rows.map((r) => [r.current ? "*" : "", r.name, r.api ?? "", r.group ?? ""]),
        ),
      );
  });

  withExamples(
    config
      .command("current-context")
      .description("print the name of the context commands use (--context, ARBOR_CONTEXT, else the current one)"),
    ["arbor config current-context"],
  ).action(() => {
    io.stdout.write(`${selectContext(readClientFile(path()), path(), env).name}\n`);
  });

  withExamples(
    config
      .command("use-context")
      .description("make a context the current one: the one commands use without --context or ARBOR_CONTEXT")
      .argument("<context>", "its name"),
    ["arbor config use-context staging"],
  ).action((name: string) => {
    const file = readClientFile(path());
    contextIn(file, path(), name);
    writeClientFile(path(), { ...file, contexts: explicit(file), currentContext: name });
    io.stderr.write(`Switched to context ${name}.\n`);
  });

  const create = config
    .command("create-context")
    .description("add a context: a server (--api, --issuer) and a default group, with logins of its own")
    .argument("<name>", "its name: letters, digits, '.', '_' and '-'")
    .addOption(new Option("--api <url>", CLIENT_FILE_KEYS.api))
    .addOption(new Option("--issuer <url>", CLIENT_FILE_KEYS.issuer))
    .addOption(new Option("--group <group>", CLIENT_FILE_KEYS.group))
    .addOption(new Option("--use", "also make it the current context"));
  withExamples(create, [
    "arbor config create-context staging --api https://arbor.staging.example.com --group acme",
    "arbor config create-context local --api http://localhost:8080 --use",
  ]).action((name: string, opts: Partial<Record<ClientFileKey, string>> & { use?: boolean }) => {
    const file = readClientFile(path());
    const contexts = explicit(file);
    if (Object.hasOwn(contexts, contextName(name)))
      throw new UsageError(`context ${name} exists already (change it with: arbor config set KEY VALUE --context ${name})`);
    const settings: ContextSettings = {};
    for (const key of Object.keys(CLIENT_FILE_KEYS) as ClientFileKey[]) {
      const value = opts[key];
      if (value !== undefined) settings[key] = checkValue(key, value);
    }
    writeClientFile(path(), {
      ...file,
      contexts: { ...contexts, [name]: settings },
      currentContext: opts.use === true ? name : file.currentContext,
    });
    io.stderr.write(
      `Created context ${name}${opts.use === true ? " and switched to it" : ""}; log in with: arbor auth login --context ${name}\n`,
    );
  });

  withExamples(
    config
      .command("rename-context")
      .description("rename a context, keeping its settings and logins")
      .argument("<context>", "its name")
      .argument("<new-name>", "the new name"),
    ["arbor config rename-context default local"],
  ).action(async (from: string, to: string) => {
    const file = readClientFile(path());
    const contexts = explicit(file);
    const settings = contextIn(file, path(), from);
    if (Object.hasOwn(contexts, contextName(to))) throw new UsageError(`context ${to} exists already`);
    const renamed = Object.fromEntries(Object.entries(contexts).map(([k, v]) => (k === from ? [to, settings] : [k, v])));
    const current = currentContextName(file) === from ? to : file.currentContext;
    renameContextCache(cacheRootOf(env), from, to);
    writeClientFile(path(), { ...file, contexts: renamed, currentContext: current });
    // docker-credential-arbor finds a registry's login by its context's name.
    const registries = registriesPath(path());
    for (const [host, login] of Object.entries(await readRegistries(registries))) {
      if (login.context === from) await saveRegistry(registries, host, { ...login, context: to });
    }
    io.stderr.write(`Renamed context ${from} to ${to}.\n`);
  });

  withExamples(
    config
      .command("delete-context")
      .description("delete a context and its cached logins (not the current one: switch with use-context first)")
      .argument("<context>", "its name"),
    ["arbor auth logout --context staging && arbor config delete-context staging"],
    "Its logins are deleted from this machine, not revoked: run arbor auth logout --context NAME first\nto end them at the server.",
  ).action((name: string) => {
    const file = readClientFile(path());
    contextIn(file, path(), name);
    if (currentContextName(file) === name)
      throw new UsageError(`context ${name} is the current context; switch first (arbor config use-context OTHER)`);
    const { [name]: _gone, ...rest } = explicit(file);
    writeClientFile(path(), { ...file, contexts: rest });
    removeContextCache(cacheRootOf(env), name);
    io.stderr.write(`Deleted context ${name}.\n`);
  });
}

/** Columns padded to their widest cell, two spaces apart. */
function table(header: string[], rows: string[][]): string {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? "").length)));
  return all
    .map(
      (r) =>
        r
          .map((c, i) => (i === r.length - 1 ? c : c.padEnd((widths[i] ?? 0) + 2)))
          .join("")
          .trimEnd() + "\n",
    )
    .join("");
}
