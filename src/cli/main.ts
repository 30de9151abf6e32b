/**
 * The arbor command. Building the command tree loads only what `--help` needs; each action loads
 * the code that does its work (the server, the store, an RPC client) when it runs, so that
 * `arbor --version` and the API commands start in tens of milliseconds. test/cli/startup.test.ts
 * keeps it so.
 */
import { Command, CommanderError, Option } from "commander";
import { ConfigError, DEFAULT_CONFIG, LOG_LEVELS, resolveConfig, type Config } from "../config.js";
import { isApiError } from "../domain/errors.js";
import { addAdminCommands } from "./admin-commands.js";
import { addAdvisoriesCommands } from "./advisories.js";
import { addAuditApiCommands } from "./audit/commands.js";
import { addEventsCommands } from "./events/commands.js";
import { addAuthCommands } from "./auth/commands.js";
import { addCompletionCommand } from "./completion/completion-command.js";
import { addConfigCommands } from "./config/config-command.js";
import { addIamCommands } from "./iam/commands.js";
import { processIo } from "./output/process-io.js";
import { addRegistryCommands } from "./registry/commands.js";
import { UsageError } from "./usage-error.js";
import { VERSION } from "./version.js";
import { addVersionCommand } from "./version-command.js";

type Flags = Partial<Record<keyof Config, unknown>> & { config?: string };

/** The store flags every command that opens the store takes. */
function storeOptions(cmd: Command): Command {
  return cmd
    .addOption(
      new Option("--data-dir <dir>", "where the embedded SQLite store and the secrets key file live (ARBOR_DATA_DIR)").default(
        DEFAULT_CONFIG.dataDir,
      ),
    )
    .addOption(new Option("--database-url <url>", "a postgres:// URL: use PostgreSQL instead of SQLite (ARBOR_DATABASE_URL)"))
    .addOption(new Option("--database-schema <name>", "PostgreSQL schema for Arbor's tables (ARBOR_DATABASE_SCHEMA; default public)"))
    .addOption(new Option("--base-url <url>", "the public URL of the API, {base_url} (ARBOR_BASE_URL; default http://localhost:<port>)"))
    .addOption(new Option("--issuer-url <url>", "the token issuer, {auth_url} (ARBOR_ISSUER_URL; default the base URL)"))
    .addOption(new Option("-p, --port <port>", "port to listen on; 0 picks a free one (ARBOR_PORT)").default(DEFAULT_CONFIG.port))
    .addOption(new Option("--config <file>", "a YAML file of settings (ARBOR_CONFIG); flags and ARBOR_* variables win over it"));
}

function configOf(flags: Flags, explicit: (key: string) => boolean): Config {
  // Commander fills in defaults; only values the user typed may outrank the environment.
  const typed: Flags = {};
  for (const [k, v] of Object.entries(flags)) if (explicit(k)) (typed as Record<string, unknown>)[k] = v;
  return resolveConfig({ flags: typed, env: process.env, ...(flags.config !== undefined && { file: String(flags.config) }) });
}

/** Builds the command tree. */
export function buildProgram(): Command {
  const program = new Command("arbor")
    .description("Arbor: organizations, identities, roles and tokens - the Resource Management Service API v2, self-hosted.")
    .version(VERSION)
    .addHelpText(
      "after",
      "\nExit codes: 0 done, 1 failed, 2 called wrongly. Reference: docs/cli.md.\n\nExamples:\n" +
        "  arbor serve\n  arbor auth login\n  arbor iam groups tree acme\n  arbor iam identities list -o json\n",
    )
    .addOption(
      new Option(
        "--context <context>",
        "the context of the settings file to use (ARBOR_CONTEXT; default its current context): see arbor config get-contexts",
      ),
    )
    .showHelpAfterError("(add --help for the commands and flags)")
    .exitOverride();
  // The environment the commands read, with --context handed on as ARBOR_CONTEXT: one rule
  // (config/contexts.ts) then serves the flag and the variable, which it outranks.
  const env: Record<string, string | undefined> = { ...process.env };
  program.hook("preAction", () => {
    const context = program.opts<{ context?: string }>().context;
    if (context !== undefined) env.ARBOR_CONTEXT = context;
  });

  storeOptions(
    program
      .command("serve")
      .description("run the server: REST/JSON, gRPC, gRPC-Web and Connect on one port")
      .addOption(new Option("--host <address>", "address to listen on (ARBOR_HOST; default every interface)"))
      .addOption(
        new Option("--log-level <level>", "how much to log (ARBOR_LOG_LEVEL)").choices(LOG_LEVELS).default(DEFAULT_CONFIG.logLevel),
      )
      .addOption(new Option("--tls-cert <file>", "PEM certificate chain: serve TLS, h2 and HTTP/1.1 by ALPN (ARBOR_TLS_CERT)"))
      .addOption(new Option("--tls-key <file>", "PEM private key of --tls-cert (ARBOR_TLS_KEY)"))
      .addOption(
        new Option(
          "--no-migrate",
          "do not migrate at start; refuse a store whose schema is behind (ARBOR_MIGRATE=false; see arbor admin migrate)",
        ),
      )
      .addHelpText(
        "after",
        "\nSIGTERM or SIGINT: finish in-flight requests and stop. SIGHUP: read --tls-cert and --tls-key again.\n\n" +
          "Examples:\n  arbor serve\n  ARBOR_DATABASE_URL=postgres://arbor@db/arbor arbor serve --port 9000\n",
      ),
  ).action(async (flags: Flags, cmd: Command) => {
    const { serve } = await import("./serve.js");
    await serve(configOf(flags, (k) => cmd.getOptionValueSource(k) === "cli"));
  });

  const io = processIo(env);
  addAdminCommands(program, storeOptions, configOf, io);
  addAuthCommands(program, env);
  addIamCommands(program, io);
  addRegistryCommands(program, io);
  addAuditApiCommands(program, io);
  addEventsCommands(program, io);
  addAdvisoriesCommands(program, storeOptions, configOf, io);
  addConfigCommands(program, io);
  addCompletionCommand(program, io.stdout, env);
  addVersionCommand(program, io);
  return program;
}

/** Runs the command line; exit codes: 0 ok, 1 failure, 2 usage. */
export async function main(argv: string[]): Promise<void> {
  // A reader that stops early (`arbor serve --help | head`) closes the pipe: the command stops
  // quietly with the status it has, as Unix tools do, where Node would end it with a stack trace.
  // The server's log does not go through process.stdout (pino writes the descriptor itself).
  process.stdout.on("error", (e: NodeJS.ErrnoException) => {
    if (e.code !== "EPIPE") throw e;
    process.exit(typeof process.exitCode === "number" ? process.exitCode : 0);
  });
  try {
    await buildProgram().parseAsync(argv);
  } catch (e) {
    if (e instanceof CommanderError) {
      process.exitCode = e.exitCode === 0 ? 0 : 2;
      return;
    }
    if (e instanceof UsageError || e instanceof ConfigError) {
      process.stderr.write(`arbor: ${e.message}\n`);
      process.exitCode = 2;
      return;
    }
    // The RPC client's error type, loaded here as the client itself is: only a command that called the API has one.
    const { ConnectError } = await import("@connectrpc/connect");
    if (e instanceof ConnectError) {
      const { rpcErrorText } = await import("./api/rpc-error.js");
      process.stderr.write(`${rpcErrorText(e)}\n`);
    } else if (isApiError(e)) {
      const { statusText } = await import("./api/rpc-error.js");
      process.stderr.write(`arbor: ${e.message} (${statusText(e.code)})\n`);
    } else {
      process.stderr.write(`arbor: ${(e as Error).message ?? String(e)}\n`);
    }
    process.exitCode = 1;
  }
}
