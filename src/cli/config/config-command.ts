/**
 * `arbor config`: reads and edits the settings file (client-file.ts) so nobody has to remember
 * its path or its keys.
 */
import type { Command } from "commander";
import { UsageError } from "../usage-error.js";
import type { CliIo } from "../output/io.js";
import { withExamples } from "../resource/help-text.js";
import { CLIENT_FILE_KEYS, clientFilePath, isClientFileKey, readClientFile, writeClientFile, type ClientFileKey } from "./client-file.js";

function keyOf(text: string): ClientFileKey {
  if (!isClientFileKey(text)) throw new UsageError(`unknown setting "${text}" (known: ${Object.keys(CLIENT_FILE_KEYS).join(", ")})`);
  return text;
}

function checkValue(key: ClientFileKey, value: string): string {
  const v = value.trim();
  if (v === "") throw new UsageError(`${key}: give a value (or: arbor config unset ${key})`);
  if (key !== "group") {
    const url = URL.parse(v);
    if (url === null || !/^https?:$/.test(url.protocol) || url.search !== "" || url.hash !== "") throw new UsageError(`${key}: "${v}" is not an http(s) URL without query or fragment`);
  }
  return v;
}

/** Adds `arbor config` to program; io.env locates the file. */
export function addConfigCommands(program: Command, io: CliIo): void {
  const env = io.env;
  const keys = Object.entries(CLIENT_FILE_KEYS).map(([k, v]) => `  ${k.padEnd(7)} ${v}`).join("\n");
  const config = program
    .command("config")
    .description("show and change the CLI's settings file ($XDG_CONFIG_HOME/arbor/config.yaml, else ~/.config/arbor/config.yaml)");
  withExamples(config, ["arbor config set api https://arbor.example.com", "arbor config set group acme", "arbor config list"], `Settings:\n${keys}\n\nFlags and ARBOR_* variables win over the file.`);

  withExamples(config.command("list").description("print the file's settings, one `key: value` a line, and the file's path on stderr"), ["arbor config list"]).action(() => {
    const path = clientFilePath(env);
    const file = readClientFile(path);
    io.stdout.write(Object.entries(file).map(([k, v]) => `${k}: ${v}\n`).join(""));
    io.stderr.write(`(${path})\n`);
  });
  withExamples(config.command("get").description("print one setting; exit code 1 when it is not set").argument("<key>", Object.keys(CLIENT_FILE_KEYS).join(", ")), ["arbor config get api"]).action((key: string) => {
    const value = readClientFile(clientFilePath(env))[keyOf(key)];
    if (value === undefined) throw new Error(`${key} is not set in ${clientFilePath(env)}`);
    io.stdout.write(`${value}\n`);
  });
  withExamples(config.command("set").description("change one setting").argument("<key>", Object.keys(CLIENT_FILE_KEYS).join(", ")).argument("<value>", "its value"), ["arbor config set api http://localhost:8080", "arbor config set group engineering"]).action((key: string, value: string) => {
    const path = clientFilePath(env);
    const k = keyOf(key);
    writeClientFile(path, { ...readClientFile(path), [k]: checkValue(k, value) });
  });
  withExamples(config.command("unset").description("remove one setting").argument("<key>", Object.keys(CLIENT_FILE_KEYS).join(", ")), ["arbor config unset group"]).action((key: string) => {
    const path = clientFilePath(env);
    const { [keyOf(key)]: _gone, ...rest } = readClientFile(path);
    writeClientFile(path, rest);
  });
}
