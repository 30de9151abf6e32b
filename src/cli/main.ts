/**
 * The arbor command.
 */
import { ConnectError } from "@connectrpc/connect";
import { Command, CommanderError, Option } from "commander";
import { ConfigError, DEFAULT_CONFIG, resolveConfig, type Config } from "../config.js";
import { isApiError } from "../domain/errors.js";
import { adminToken, bootstrap, rotateSigningKey, UsageError } from "./admin.js";
import { addAuditCommand } from "./admin-audit.js";
import { addAuditApiCommands } from "./audit/commands.js";
import { adminBackup, adminMigrate, adminRestore, MIGRATIONS_PENDING_EXIT_CODE } from "./admin-store.js";
import { addAdvisoriesCommands } from "./advisories.js";
import { rpcErrorText, statusText } from "./api/rpc-error.js";
import { addAuthCommands } from "./auth/commands.js";
import { addCompletionCommand } from "./completion/completion-command.js";
import { addConfigCommands } from "./config/config-command.js";
import { addIamCommands } from "./iam/commands.js";
import { processIo } from "./output/process-io.js";
import { addRegistryCommands } from "./registry/commands.js";
import { addRegistryConfigCommand } from "./registry-config.js";
import { serve } from "./serve.js";
import { VERSION } from "./version.js";
import { addVersionCommand } from "./version-command.js";

type Flags = Partial<Record<keyof Config, unknown>> & { config?: string };

/** The store flags every command that opens the store takes. */
function storeOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option("--data-dir <dir>", "where the embedded SQLite store and the secrets key file live (ARBOR_DATA_DIR)").default(DEFAULT_CONFIG.dataDir))
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
    .showHelpAfterError()
    .exitOverride();

  storeOptions(
    program
      .command("serve")
      .description("run the server: REST/JSON, gRPC, gRPC-Web and Connect on one port")
      .addOption(new Option("--host <address>", "address to listen on (ARBOR_HOST; default every interface)"))
      .addOption(new Option("--log-level <level>", "fatal, error, warn, info, debug, trace or silent (ARBOR_LOG_LEVEL)").default(DEFAULT_CONFIG.logLevel))
      .addOption(new Option("--tls-cert <file>", "PEM certificate chain: serve TLS, h2 and HTTP/1.1 by ALPN (ARBOR_TLS_CERT)"))
      .addOption(new Option("--tls-key <file>", "PEM private key of --tls-cert (ARBOR_TLS_KEY)"))
      .addOption(new Option("--no-migrate", "do not migrate at start; refuse a store whose schema is behind (ARBOR_MIGRATE=false; see arbor admin migrate)"))
      .addHelpText(
        "after",
        "\nSIGTERM or SIGINT: finish in-flight requests and stop. SIGHUP: read --tls-cert and --tls-key again.\n\n" +
          "Examples:\n  arbor serve\n  ARBOR_DATABASE_URL=postgres://arbor@db/arbor arbor serve --port 9000\n",
      ),
  ).action(async (flags: Flags, cmd: Command) => {
    await serve(configOf(flags, (k) => cmd.getOptionValueSource(k) === "cli"));
  });

  const admin = program
    .command("admin")
    .description("administer the installation directly through its store")
    .addHelpText(
      "after",
      "\nEach admin command opens the store the server would (--data-dir, --database-url, ARBOR_*, --config),\n" +
        "names it on stderr, and, but bootstrap, refuses (exit 2) when there is none there. `token` refuses to\n" +
        "mint for an issuer or base URL other than the running server's. See docs/operations.md.\n\n" +
        "Examples:\n  arbor admin bootstrap --org acme\n  export ARBOR_TOKEN=$(arbor admin token --org acme)\n",
    );
  storeOptions(
    admin
      .command("bootstrap")
      .description("create (or find) a root organization and print it as JSON")
      .requiredOption("--org <name>", "the organization's name")
      .option("--description <text>", "its description, when it is created")
      .option("--issuer <url>", "with --subject: make this person (as their OIDC issuer knows them) an owner")
      .option("--subject <sub>", "with --issuer: the person's subject")
      .addHelpText("after", "\nExamples:\n  arbor admin bootstrap --org acme\n  arbor admin bootstrap --org acme --issuer https://accounts.example.com --subject 1234\n"),
  ).action(async (opts: Flags & { org: string; description?: string; issuer?: string; subject?: string }, cmd: Command) => {
    const config = configOf(opts, (k) => cmd.getOptionValueSource(k) === "cli");
    process.stdout.write(`${await bootstrap(config, opts)}\n`);
  });
  storeOptions(
    admin
      .command("token")
      .description("print a one-hour API token: for an owner of an organization (--org), or for an existing identity (--identity)")
      .option("--org <name>", "an organization's name: the token is its local administrator's, an owner of it")
      .option("--identity <uid>", "an existing identity's uid: the token is that identity's, with whatever its role bindings grant")
      .option("--audience <aud>", "the token's audience (default the base URL)")
      .addHelpText(
        "after",
        "\nGive exactly one of --org and --identity.\n\nExamples:\n" +
          "  export ARBOR_TOKEN=$(arbor admin token --org acme)\n" +
          '  curl -H "Authorization: Bearer $ARBOR_TOKEN" http://localhost:8080/iam/v2beta1/groups\n' +
          "  arbor admin token --identity 0123456789abcdef0123456789abcdef01234567/89abcdef01234567\n",
      ),
  ).action(async (opts: Flags & { org?: string; identity?: string; audience?: string }, cmd: Command) => {
    const config = configOf(opts, (k) => cmd.getOptionValueSource(k) === "cli");
    process.stdout.write(`${await adminToken(config, opts)}\n`);
  });
  storeOptions(
    admin
      .command("rotate-signing-key")
      .description("make a new token signing key the active one now; the old keys stay in the JWKS until their tokens expire")
      .addHelpText(
        "after",
        "\nRunning servers sign with the new key within a minute, and keep accepting tokens signed by the old\n" +
          "keys until those have expired (the printed previousKeysRetireTime); the old keys are then dropped.\n\n" +
          "Examples:\n  arbor admin rotate-signing-key\n",
      ),
  ).action(async (opts: Flags, cmd: Command) => {
    const config = configOf(opts, (k) => cmd.getOptionValueSource(k) === "cli");
    process.stdout.write(`${await rotateSigningKey(config)}\n`);
  });
  storeOptions(
    admin
      .command("migrate")
      .description("apply the store's pending schema migrations and list them; --check changes nothing")
      .option("--check", `list pending migrations and exit ${MIGRATIONS_PENDING_EXIT_CODE} if there are any, 0 if the schema is up to date`)
      .addHelpText(
        "after",
        "\nServers migrate at start unless ARBOR_MIGRATE=false (--no-migrate); then run this first. Servers of\n" +
          "the previous release keep serving while it runs (docs/operations.md, Upgrades).\n\n" +
          "Examples:\n  arbor admin migrate --check\n  ARBOR_DATABASE_URL=postgres://arbor@db/arbor arbor admin migrate\n",
      ),
  ).action(async (opts: Flags & { check?: boolean }, cmd: Command) => {
    const config = configOf(opts, (k) => cmd.getOptionValueSource(k) === "cli");
    const { text, exitCode } = await adminMigrate(config, opts);
    process.stdout.write(`${text}\n`);
    process.exitCode = exitCode;
  });
  storeOptions(
    admin
      .command("backup")
      .description("copy the SQLite store and its secrets key into a new directory, while servers run")
      .argument("<dir>", "a new (or empty) directory for the backup, made 0700")
      .option("--without-key", "leave the secrets key file out (keep it apart: without it the backup cannot be restored)")
      .addHelpText(
        "after",
        "\nThe backup holds the secrets key unless --without-key or ARBOR_SECRETS_KEY is set: whoever reads it\n" +
          "can sign tokens. PostgreSQL stores are backed up with pg_dump or PITR (docs/operations.md).\n\n" +
          "Examples:\n  arbor admin backup /backups/arbor-$(date +%F)\n  arbor admin restore /backups/arbor-2026-01-01 --data-dir /var/lib/arbor-new\n",
      ),
  ).action(async (dir: string, opts: Flags & { withoutKey?: boolean }, cmd: Command) => {
    const config = configOf(opts, (k) => cmd.getOptionValueSource(k) === "cli");
    process.stdout.write(`${await adminBackup(config, dir, opts, (text) => process.stderr.write(`arbor: ${text}\n`))}\n`);
  });
  storeOptions(
    admin
      .command("restore")
      .description("put a backup made by arbor admin backup into an empty data directory and check it")
      .argument("<dir>", "the backup's directory")
      .option("--force", "replace the store of a data directory that is not empty (stop its server first)")
      .addHelpText(
        "after",
        "\nChecks the database's integrity and that the secrets key (the backup's, or ARBOR_SECRETS_KEY)\n" +
          "opens its sealed secrets, and brings its schema up to this release's.\n\n" +
          "Examples:\n  arbor admin restore /backups/arbor-2026-01-01 --data-dir /var/lib/arbor\n",
      ),
  ).action(async (dir: string, opts: Flags & { force?: boolean }, cmd: Command) => {
    const config = configOf(opts, (k) => cmd.getOptionValueSource(k) === "cli");
    process.stdout.write(`${await adminRestore(config, dir, opts)}\n`);
  });
  addRegistryConfigCommand(admin, storeOptions, configOf);
  const io = processIo(process.env);
  addAuditCommand(admin, storeOptions, configOf, io);
  addAuthCommands(program, process.env);
  addIamCommands(program, io);
  addRegistryCommands(program, io);
  addAuditApiCommands(program, io);
  addAdvisoriesCommands(program, storeOptions, configOf, io);
  addConfigCommands(program, io);
  addCompletionCommand(program, io.stdout);
  addVersionCommand(program, io);
  return program;
}

/** Runs the command line; exit codes: 0 ok, 1 failure, 2 usage. */
export async function main(argv: string[]): Promise<void> {
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
    if (e instanceof ConnectError) {
      process.stderr.write(`${rpcErrorText(e)}\n`);
    } else if (isApiError(e)) {
      process.stderr.write(`arbor: ${e.message} (${statusText(e.code)})\n`);
    } else {
      process.stderr.write(`arbor: ${(e as Error).message ?? String(e)}\n`);
    }
    process.exitCode = 1;
  }
}
