/**
 * Everything a resource command runs with, made from its common flags (`--api`, `--group`,
 * `-o`): the resolved client configuration, an API client with the token, the output format,
 * and the default group (looked up once, when a command first needs it).
 */
import { Option, type Command } from "commander";
import { createApiClient, type ApiClient } from "../api/api-client.js";
import { tokenSource } from "../api/token-source.js";
import { DEFAULT_API_URL, resolveClientConfig, type ClientConfig } from "../auth/client-config.js";
import { outputOption, resolveFormat, type OutputFormat } from "../output/format.js";
import type { CliIo } from "../output/io.js";
import { resolveDefaultGroup } from "./resolve.js";

/** The flags every resource command takes. */
export interface CommonFlags {
  api?: string;
  group?: string;
  output?: string;
  logHttp?: boolean;
}

/** What a resource command runs with. */
export interface CommandContext {
  io: CliIo;
  config: ClientConfig;
  api: ApiClient;
  format: OutputFormat;
  /** The default group's uid (from --group, ARBOR_GROUP or the settings file), undefined when none is set. */
  defaultGroup(): Promise<string | undefined>;
}

/** Adds the common flags to cmd. */
export function withCommonOptions(cmd: Command): Command {
  return cmd
    .addOption(outputOption())
    .addOption(new Option("--api <url>", `the Arbor API (ARBOR_API_URL, settings file; default ${DEFAULT_API_URL})`))
    .addOption(
      new Option(
        "--group <group>",
        "the default group, a name, path (acme/engineering) or uid: " +
          "names are looked up and lists look below it (ARBOR_GROUP, settings file)",
      ),
    )
    .addOption(new Option("--log-http", "print each API request and response on stderr (credentials left out)"));
}

/** The context of a command run with flags. */
export function commandContext(flags: CommonFlags, io: CliIo): CommandContext {
  const config = resolveClientConfig({ api: flags.api, group: flags.group }, io.env);
  const format = resolveFormat(flags.output, io.stdout.isTTY === true);
  const api = createApiClient({
    baseUrl: config.api,
    token: tokenSource(config),
    ...(flags.logHttp === true && { log: (line: string) => io.stderr.write(`${line}\n`) }),
  });
  let group: Promise<string | undefined> | undefined;
  const ctx: CommandContext = {
    io,
    config,
    api,
    format,
    defaultGroup() {
      group ??= config.group === undefined ? Promise.resolve(undefined) : resolveDefaultGroup(ctx, config.group);
      return group;
    },
  };
  return ctx;
}
