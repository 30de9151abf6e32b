/**
 * How the admin commands reach the store: resolved as the server resolves it (flags, ARBOR_*,
 * the config file; src/config.ts), named on stderr, and never made by a command that only reads
 * or changes an installation: run from the wrong directory, `./data` would otherwise become a
 * second, empty installation.
 */
import type { Config } from "../config.js";
import { describeStore, storeExists } from "../store/store-location.js";
import { guard } from "../store/translate-error.js";
import { UsageError } from "./usage-error.js";

/** Whether the command may make the store when there is none (bootstrap), or needs one that exists. */
export type StoreNeed = "may-create" | "existing";

/** Says on stderr which store the command opens; refuses (exit 2) when it needs one that does not exist. */
export async function announceStore(
  config: Config,
  need: StoreNeed,
  stderr: (text: string) => void = (t) => process.stderr.write(t),
): Promise<void> {
  const options = { databaseUrl: config.databaseUrl, dataDir: config.dataDir, schema: config.databaseSchema };
  const where = describeStore(options);
  if (need === "existing" && !(await guard(() => storeExists(options)))) {
    throw new UsageError(
      `there is no Arbor store at ${where}. Point this command at the server's store as the server is pointed at it ` +
        "(--data-dir or ARBOR_DATA_DIR; --database-url or ARBOR_DATABASE_URL, and --database-schema; " +
        "or the same --config/ARBOR_CONFIG file), " +
        "or make a new installation with: arbor admin bootstrap --org <name>",
    );
  }
  stderr(`arbor: store: ${where}\n`);
}
