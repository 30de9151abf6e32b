/**
 * `arbor admin migrate`, `backup` and `restore`: the store's schema and its copies, for operators
 * who migrate apart from starting servers and who keep backups. docs/operations.md ("Upgrades",
 * "Backup and restore") says why each does what it does.
 */
import { constants } from "node:fs";
import { chmod, copyFile, mkdir, readdir, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { Kysely } from "kysely";
import type { Config } from "../config.js";
import { createStore } from "../store/create-store.js";
import type { Database } from "../store/tables.js";
import { engineSetup, SQLITE_FILES } from "../store/dialect.js";
import { knownMigrations, migrate, schemaStatus } from "../store/migrate.js";
import { DATA_DIR_MODE, DATA_FILE_MODE } from "../server/data-dir.js";
import { checkSealedSecrets, loadSecretBox, SECRETS_KEY_FILE } from "../server/secrets-key.js";
import { MIGRATIONS_PENDING_EXIT_CODE } from "./admin-commands.js";
import { announceStore } from "./store-access.js";
import { UsageError } from "./usage-error.js";

export { MIGRATIONS_PENDING_EXIT_CODE };

/** What a migrate command prints and the exit code it ends with. */
export interface CommandResult {
  text: string;
  exitCode: number;
}

/**
 * Applies the pending migrations and says which; with check, changes nothing and exits
 * MIGRATIONS_PENDING_EXIT_CODE when some are pending, listing them.
 */
export async function adminMigrate(config: Config, options: { check?: boolean }): Promise<CommandResult> {
  // Migrating may make the store: operators who migrate separately do so before any server starts.
  await announceStore(config, "may-create");
  const sqlite = config.databaseUrl === undefined || config.databaseUrl === "";
  if (options.check === true && sqlite && !(await exists(join(config.dataDir, SQLITE_FILES[0])))) {
    // Opening would make the file (and the directory): a check of a mistyped path changes nothing.
    const pending = knownMigrations();
    return {
      text: `no store at ${join(config.dataDir, SQLITE_FILES[0])} yet; ${pending.length} migration(s) pending:\n${pending.join("\n")}`,
      exitCode: MIGRATIONS_PENDING_EXIT_CODE,
    };
  }
  // Migrations may rightly run long: no statement timeout, as at start.
  const setup = engineSetup({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, schema: config.databaseSchema, queryTimeoutMs: 0 });
  const db = new Kysely<Database>({ dialect: setup.dialect });
  try {
    const status = await schemaStatus(db, setup);
    const newer = status.newer.length > 0 ? `\nthe store has also run migrations of a newer Arbor: ${status.newer.join(", ")}` : "";
    if (options.check === true) {
      if (status.pending.length === 0) return { text: `the schema is up to date${newer}`, exitCode: 0 };
      return {
        text: `${status.pending.length} migration(s) pending:\n${status.pending.join("\n")}`,
        exitCode: MIGRATIONS_PENDING_EXIT_CODE,
      };
    }
    const applied = await migrate(db, setup);
    if (applied.length === 0) return { text: `the schema is up to date; nothing applied${newer}`, exitCode: 0 };
    return { text: `applied ${applied.length} migration(s):\n${applied.join("\n")}`, exitCode: 0 };
  } finally {
    await db.destroy();
  }
}

/**
 * Copies the SQLite store, while servers run on it, into a new directory `to`: a consistent
 * snapshot through SQLite's online backup API, and the secrets key file unless withoutKey or the
 * key comes from ARBOR_SECRETS_KEY. Returns what it wrote, for stdout; warnings go to warn.
 */
export async function adminBackup(
  config: Config,
  to: string,
  options: { withoutKey?: boolean },
  warn: (text: string) => void,
): Promise<string> {
  if (config.databaseUrl !== undefined && config.databaseUrl !== "") {
    throw new UsageError(
      "the store is PostgreSQL: back it up with pg_dump or continuous archiving (PITR), " +
        "and keep ARBOR_SECRETS_KEY with it (docs/operations.md, Backup and restore)",
    );
  }
  await announceStore(config, "existing");
  const source = join(config.dataDir, SQLITE_FILES[0]);
  if (!(await exists(source))) throw new UsageError(`there is no store to back up at ${source}`);
  if ((await entries(to)).length > 0) throw new UsageError(`${to} exists and is not empty: back up into a new directory`);
  await mkdir(to, { recursive: true, mode: DATA_DIR_MODE });
  await chmod(to, DATA_DIR_MODE);
  const target = join(to, SQLITE_FILES[0]);
  const partial = `${target}.partial`;
  // Read-only: the backup takes only read locks, so the server keeps writing meanwhile.
  const db = new BetterSqlite3(source, { readonly: true, fileMustExist: true });
  try {
    db.pragma("busy_timeout = 5000");
    // The whole database in one step after the first: a step that another connection's write
    // interrupts starts over, so small steps under a steady write load might never finish.
    await db.backup(partial, { progress: ({ totalPages }) => Math.max(totalPages, 100) });
  } finally {
    db.close();
  }
  await chmod(partial, DATA_FILE_MODE);
  // The copy inherits WAL mode: back to a rollback journal, so the backup is this one file.
  const copy = new BetterSqlite3(partial, { fileMustExist: true });
  try {
    copy.pragma("journal_mode = DELETE");
  } finally {
    copy.close();
  }
  checkIntegrity(partial);
  await rename(partial, target);
  const written = [target];
  if (config.secretsKey !== undefined) {
    warn("the secrets key is ARBOR_SECRETS_KEY, so it is not in the backup: keep it with the backup, or the backup cannot be restored");
  } else if (options.withoutKey === true) {
    warn(`the backup holds no secrets key: keep ${join(config.dataDir, SECRETS_KEY_FILE)} with it, or the backup cannot be restored`);
  } else {
    const key = join(to, SECRETS_KEY_FILE);
    await copyFile(join(config.dataDir, SECRETS_KEY_FILE), key, constants.COPYFILE_EXCL);
    await chmod(key, DATA_FILE_MODE);
    written.push(key);
    warn(`the backup holds the secrets key (${SECRETS_KEY_FILE}): whoever reads it can sign tokens for anyone; keep it like the key`);
  }
  return `backed up to ${to}:\n${written.join("\n")}`;
}

/**
 * Puts a backup made by adminBackup into the data directory, which must be empty (or force),
 * checks the database's integrity and that the key opens its sealed secrets, and brings its schema
 * up to this Arbor's. No server may run on the data directory meanwhile.
 */
export async function adminRestore(config: Config, from: string, options: { force?: boolean }): Promise<string> {
  if (config.databaseUrl !== undefined && config.databaseUrl !== "") {
    throw new UsageError(
      "the store is PostgreSQL: restore it with pg_restore or from your archive (docs/operations.md, Backup and restore)",
    );
  }
  await announceStore(config, "may-create");
  const backupDb = join(from, SQLITE_FILES[0]);
  if (!(await exists(backupDb))) throw new UsageError(`${from} holds no backup (${SQLITE_FILES[0]} is missing)`);
  const backupKey = join(from, SECRETS_KEY_FILE);
  const hasKey = await exists(backupKey);
  if (!hasKey && config.secretsKey === undefined) {
    throw new UsageError(
      `${from} holds no ${SECRETS_KEY_FILE} and ARBOR_SECRETS_KEY is unset: give the key the backup's store was sealed with`,
    );
  }
  checkIntegrity(backupDb);
  const present = await entries(config.dataDir);
  if (present.length > 0 && options.force !== true) {
    throw new UsageError(
      `the data directory ${config.dataDir} is not empty (${present.join(", ")}): ` +
        "restore into a new one, or give --force to replace its store",
    );
  }
  await mkdir(config.dataDir, { recursive: true, mode: DATA_DIR_MODE });
  await chmod(config.dataDir, DATA_DIR_MODE);
  // A WAL left beside the replaced database would be replayed into the restored one.
  for (const name of SQLITE_FILES) await rm(join(config.dataDir, name), { force: true });
  const target = join(config.dataDir, SQLITE_FILES[0]);
  await copyFile(backupDb, `${target}.partial`);
  await chmod(`${target}.partial`, DATA_FILE_MODE);
  await rename(`${target}.partial`, target);
  if (hasKey && config.secretsKey === undefined) {
    await copyFile(backupKey, join(config.dataDir, SECRETS_KEY_FILE));
    await chmod(join(config.dataDir, SECRETS_KEY_FILE), DATA_FILE_MODE);
  }
  try {
    const store = await createStore({ dataDir: config.dataDir, secrets: await loadSecretBox(config) });
    try {
      await checkSealedSecrets(store, config);
    } finally {
      await store.close();
    }
  } catch (e) {
    // A store its key cannot open is no restore: nothing is left for a server to start on.
    for (const name of [...SQLITE_FILES, ...(hasKey && config.secretsKey === undefined ? [SECRETS_KEY_FILE] : [])])
      await rm(join(config.dataDir, name), { force: true });
    throw e;
  }
  return `restored ${from} into ${config.dataDir}: integrity ok, the secrets key opens every sealed secret`;
}

function checkIntegrity(file: string): void {
  const db = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
  try {
    const rows = db.pragma("integrity_check") as { integrity_check: string }[];
    const problems = rows.map((r) => r.integrity_check).filter((r) => r !== "ok");
    if (problems.length > 0) throw new Error(`${file} fails SQLite's integrity check: ${problems.slice(0, 5).join("; ")}`);
  } finally {
    db.close();
  }
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    (e: NodeJS.ErrnoException) => {
      if (e.code === "ENOENT") return false;
      throw e;
    },
  );
}

async function entries(dir: string): Promise<string[]> {
  return readdir(dir).catch((e: NodeJS.ErrnoException) => {
    if (e.code === "ENOENT") return [];
    throw e;
  });
}
