/**
 * `arbor admin`: the commands that act directly on the store. Each loads what does the work (the
 * store, the server's core) when it runs, so that the rest of the command line starts without it:
 * the API commands and `--help` answer in tens of milliseconds (docs/benchmarks.md, C1).
 */
import { Option, type Command } from "commander";
import type { Config } from "../config.js";
import type { AuditOptions } from "./admin-audit.js";
import { tableWidth, type CliIo } from "./output/io.js";
import type { RegistryConfigOptions } from "./registry-config.js";

/** The exit code of `arbor admin migrate --check` when migrations are pending. */
export const MIGRATIONS_PENDING_EXIT_CODE = 3;

/** The certificate's file name in the storage folder when `registry-config --cert-file` is not given. */
export const DEFAULT_CERT_NAME = "arbor-token-signer.crt";

/**
 * Adds `arbor admin` and its commands to program; storeOptions and configOf are the program's, so
 * the store flags mean the same everywhere.
 */
export function addAdminCommands<F>(
  program: Command,
  storeOptions: (cmd: Command) => Command,
  configOf: (flags: F, explicit: (key: string) => boolean) => Config,
  io: CliIo,
): void {
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
      .addHelpText(
        "after",
        "\nExamples:\n  arbor admin bootstrap --org acme\n" +
          "  arbor admin bootstrap --org acme --issuer https://accounts.example.com --subject 1234\n",
      ),
  ).action(async (opts: F & { org: string; description?: string; issuer?: string; subject?: string }, cmd: Command) => {
    const config = configOf(opts, (k) => cmd.getOptionValueSource(k) === "cli");
    const { bootstrap } = await import("./admin.js");
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
  ).action(async (opts: F & { org?: string; identity?: string; audience?: string }, cmd: Command) => {
    const config = configOf(opts, (k) => cmd.getOptionValueSource(k) === "cli");
    const { adminToken } = await import("./admin.js");
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
  ).action(async (opts: F, cmd: Command) => {
    const config = configOf(opts, (k) => cmd.getOptionValueSource(k) === "cli");
    const { rotateSigningKey } = await import("./admin.js");
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
  ).action(async (opts: F & { check?: boolean }, cmd: Command) => {
    const config = configOf(opts, (k) => cmd.getOptionValueSource(k) === "cli");
    const { adminMigrate } = await import("./admin-store.js");
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
          "Examples:\n  arbor admin backup /backups/arbor-$(date +%F)\n" +
          "  arbor admin restore /backups/arbor-2026-01-01 --data-dir /var/lib/arbor-new\n",
      ),
  ).action(async (dir: string, opts: F & { withoutKey?: boolean }, cmd: Command) => {
    const config = configOf(opts, (k) => cmd.getOptionValueSource(k) === "cli");
    const { adminBackup } = await import("./admin-store.js");
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
  ).action(async (dir: string, opts: F & { force?: boolean }, cmd: Command) => {
    const config = configOf(opts, (k) => cmd.getOptionValueSource(k) === "cli");
    const { adminRestore } = await import("./admin-store.js");
    process.stdout.write(`${await adminRestore(config, dir, opts)}\n`);
  });
  addRegistryConfigCommand(admin, storeOptions, configOf);
  addAuditCommand(admin, storeOptions, configOf, io);
}

/** Adds `registry-config` to the admin command group. */
function addRegistryConfigCommand<F>(
  admin: Command,
  storeOptions: (cmd: Command) => Command,
  configOf: (flags: F, explicit: (key: string) => boolean) => Config,
): void {
  storeOptions(
    admin
      .command("registry-config")
      .description("print a CNCF Distribution (docker-registry) configuration that uses Arbor's tokens, and write its certificate")
      .requiredOption("--listen <host:port>", "the registry's listen address (http.addr)")
      .requiredOption("--storage <dir>", "the registry's storage folder (storage.filesystem.rootdirectory)")
      .option("--cert-file <path>", `where to write the token signing certificate (default <storage>/${DEFAULT_CERT_NAME})`)
      .option("--notify-url <url>", "Arbor's URL as the registry reaches it, for notifications (default the base URL)")
      .addOption(new Option("--registry-host <host>", "{registry_host}: the registry's host as clients name it (ARBOR_REGISTRY_HOST)"))
      .addHelpText(
        "after",
        "\nThe registry host must be the one the Arbor server runs with (ARBOR_REGISTRY_HOST). The\n" +
          "configuration holds secrets (the notifications secret, the registry's http.secret): keep it\n" +
          "private. See docs/registry.md.\n\n" +
          "Examples:\n" +
          "  ARBOR_REGISTRY_HOST=registry.example.com arbor admin registry-config --listen :5000 " +
          "--storage /var/lib/docker-registry > /etc/docker/registry/config.yml\n" +
          "  docker-registry serve /etc/docker/registry/config.yml\n",
      ),
  ).action(async (opts: F & RegistryConfigOptions, cmd: Command) => {
    const config = configOf(opts, (k) => cmd.getOptionValueSource(k) === "cli");
    const { registryConfig } = await import("./registry-config.js");
    process.stdout.write(await registryConfig(config, opts));
  });
}

/** Adds `arbor admin audit` under admin. */
function addAuditCommand<F>(
  admin: Command,
  storeOptions: (cmd: Command) => Command,
  configOf: (flags: F, explicit: (key: string) => boolean) => Config,
  io: CliIo,
): void {
  storeOptions(
    admin
      .command("audit")
      .description("print the audit log (every change made through the API), newest first")
      .option("--org <name>", "only this organization's events (its name or uid)")
      .option("--actor <uid>", "only changes made by this identity")
      .option("--resource <uid>", "only changes of this resource")
      .option("--method <name>", "only calls of this RPC (arbor.iam.v2beta1.GroupsService/DeleteGroup)")
      .option("--before <time>", "only events created before this time (RFC 3339, such as 2026-01-01T00:00:00Z)")
      .option(
        "--export <file>",
        "write every matching event, oldest first, as JSON lines to a new file (mode 0600); --limit does not apply",
      )
      .option("--limit <n>", "at most this many events", "50")
      .addOption(
        new Option(
          "-o, --output <format>",
          "table, wide (full uids), or json (one event per line, as the API shows it); default table on a terminal, else json",
        ).choices(["table", "wide", "json"]),
      )
      .addHelpText(
        "after",
        "\nReads the store directly, like every `arbor admin` command; owners read the same log through\n" +
          "the API (GET /audit/v1beta1/events).\n\nExamples:\n  arbor admin audit --org acme\n" +
          "  arbor admin audit --org acme --method arbor.iam.v2beta1.RoleBindingsService/CreateRoleBinding -o json\n" +
          "  arbor admin audit --before 2026-01-01T00:00:00Z --export audit-2025.jsonl\n\n" +
          "With ARBOR_AUDIT_RETENTION set, the server deletes older events; export them first to keep them.\n",
      ),
  ).action(async (opts: F & AuditOptions, cmd: Command) => {
    const config = configOf(opts, (k) => cmd.getOptionValueSource(k) === "cli");
    const { adminAudit } = await import("./admin-audit.js");
    // As every other command: a table for a person, JSON for a pipe or a script.
    const output = opts.output ?? (io.stdout.isTTY === true ? "table" : "json");
    const text = await adminAudit(config, { ...opts, output, width: tableWidth(io) });
    if (text !== "") io.stdout.write(`${text}\n`);
  });
}
