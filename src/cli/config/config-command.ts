/**
 * `arbor config`: reads and edits the settings file (client-file.ts) so nobody has to remember
 * its path or its keys. set, get, unset and list act on the context a command would use
 * (--context, ARBOR_CONTEXT, else the current one); the context commands are in
 * context-commands.ts.
 */
import { Argument, type Command } from "commander";
import { UsageError } from "../usage-error.js";
import type { CliIo } from "../output/io.js";
import { withExamples } from "../resource/help-text.js";
import {
  checkValue,
  CLIENT_FILE_KEYS,
  clientFilePath,
  DEFAULT_CONTEXT,
  isClientFileKey,
  readClientFile,
  writeClientFile,
  type ClientFileKey,
  type ContextSettings,
} from "./client-file.js";
import { addContextCommands } from "./context-commands.js";
import { selectContext } from "./contexts.js";

function keyOf(text: string): ClientFileKey {
  if (!isClientFileKey(text)) throw new UsageError(`unknown setting "${text}" (known: ${Object.keys(CLIENT_FILE_KEYS).join(", ")})`);
  return text;
}

/** The `<key>` of get, set and unset: one of the settings. */
function keyArgument(): Argument {
  return new Argument("<key>", "the setting").choices(Object.keys(CLIENT_FILE_KEYS));
}

/** Adds `arbor config` to program; io.env locates the file and names the context. */
export function addConfigCommands(program: Command, io: CliIo): void {
  const env = io.env;
  const keys = Object.entries(CLIENT_FILE_KEYS)
    .map(([k, v]) => `  ${k.padEnd(7)} ${v}`)
    .join("\n");
  const config = program
    .command("config")
    .description(
      "show and change the CLI's settings file ($XDG_CONFIG_HOME/arbor/config.yaml, else ~/.config/arbor/config.yaml): " +
        "contexts and their settings",
    );
  withExamples(
    config,
    [
      "arbor config set api https://arbor.example.com",
      "arbor config set group acme",
      "arbor config list",
      "arbor config create-context staging --api https://arbor.staging.example.com",
      "arbor config use-context staging",
    ],
    `Settings of a context:\n${keys}\n\n` +
      "set, get, unset and list act on the context commands use: --context, ARBOR_CONTEXT, else the\n" +
      "current one (use-context). Flags and ARBOR_* variables win over the file.",
  );

  /** Changes the settings of the context a command would use, keeping everything else in the file. */
  const edit = (change: (settings: ContextSettings) => ContextSettings) => {
    const path = clientFilePath(env);
    const file = readClientFile(path);
    const { name, settings } = selectContext(file, path, env);
    writeClientFile(path, { ...file, contexts: { ...file.contexts, [name]: change(settings) } });
  };

  withExamples(
    config
      .command("list")
      .description("print the context's settings, one `key: value` a line, and the file's path and the context on stderr"),
    ["arbor config list", "arbor config list --context staging"],
  ).action(() => {
    const path = clientFilePath(env);
    const { name, settings } = selectContext(readClientFile(path), path, env);
    io.stdout.write(
      Object.entries(settings)
        .map(([k, v]) => `${k}: ${v}\n`)
        .join(""),
    );
    io.stderr.write(`(${path}${name === DEFAULT_CONTEXT ? "" : `, context ${name}`})\n`);
  });
  withExamples(
    config.command("get").description("print one setting of the context; exit code 1 when it is not set").addArgument(keyArgument()),
    ["arbor config get api"],
  ).action((key: string) => {
    const path = clientFilePath(env);
    const { name, settings } = selectContext(readClientFile(path), path, env);
    const value = settings[keyOf(key)];
    if (value === undefined) throw new Error(`${key} is not set in ${path}${name === DEFAULT_CONTEXT ? "" : ` (context ${name})`}`);
    io.stdout.write(`${value}\n`);
  });
  withExamples(
    config.command("set").description("change one setting of the context").addArgument(keyArgument()).argument("<value>", "its value"),
    [
      "arbor config set api http://localhost:8080",
      "arbor config set group engineering",
      "arbor config set api https://arbor.example.com --context prod",
    ],
  ).action((key: string, value: string) => {
    const k = keyOf(key);
    const v = checkValue(k, value);
    edit((settings) => ({ ...settings, [k]: v }));
  });
  withExamples(config.command("unset").description("remove one setting of the context").addArgument(keyArgument()), [
    "arbor config unset group",
  ]).action((key: string) => {
    const k = keyOf(key);
    edit(({ [k]: _gone, ...rest }) => rest);
  });
  addContextCommands(config, io);
}
