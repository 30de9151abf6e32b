/**
 * The data directory holds the SQLite database and the secrets key file: only Arbor's user may
 * read it. New ones are made 0700 (files 0600) by the store and the key file's writer; at start,
 * looser modes left by an older Arbor or an operator are tightened, one notice per path.
 */
import { chmod, stat } from "node:fs/promises";
import { join } from "node:path";
import { SQLITE_FILES } from "../store/dialect.js";
import { SECRETS_KEY_FILE } from "./secrets-key.js";

/** Owner only: the data directory holds the database and the key that seals its secrets. */
export const DATA_DIR_MODE = 0o700;
export const DATA_FILE_MODE = 0o600;

/** Where a running Arbor reports what it changed or could not (the server's log, an admin command's stderr). */
export type Notice = (message: string, fields: Record<string, unknown>) => void;

/**
 * Takes group and other access away from dataDir and its files, where they exist (the store and
 * the key file make them 0700 and 0600).
 */
export async function secureDataDir(dataDir: string, notice: Notice): Promise<void> {
  await tighten(dataDir, DATA_DIR_MODE, notice);
  for (const name of [...SQLITE_FILES, SECRETS_KEY_FILE]) await tighten(join(dataDir, name), DATA_FILE_MODE, notice);
}

async function tighten(path: string, mode: number, notice: Notice): Promise<void> {
  const found = await stat(path).catch((e: NodeJS.ErrnoException) => {
    if (e.code === "ENOENT") return undefined;
    throw e;
  });
  if (found === undefined || (found.mode & 0o077) === 0) return;
  const was = `0${(found.mode & 0o777).toString(8)}`;
  // A shared directory (sticky, like /tmp) or one of another user is not Arbor's to change.
  if ((found.mode & 0o1000) !== 0 || found.uid !== process.getuid?.()) {
    notice("data path readable by others and not Arbor's to restrict: restrict it yourself", { path, mode: was });
    return;
  }
  await chmod(path, mode);
  notice("restricted a data path readable by others", { path, mode: was, now: `0${mode.toString(8)}` });
}
