/**
 * Where the key that seals secrets at rest comes from: ARBOR_SECRETS_KEY (one or more base64
 * keys of 32 bytes, comma-separated, the first sealing), else a key file in the data directory,
 * made on first start. Replicas on PostgreSQL must share the key: set ARBOR_SECRETS_KEY there.
 */
import { randomBytes } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Config } from "../config.js";
import { createSecretBox, parseSecretKeys, SECRET_KEY_BYTES, type SecretBox } from "../domain/secret-box.js";

/** The name of the key file Arbor makes in the data directory when no key is configured. */
export const SECRETS_KEY_FILE = "secrets.key";

/** The secret box of this installation: from the configured keys, or the data directory's key file. */
export async function loadSecretBox(config: Pick<Config, "secretsKey" | "dataDir">): Promise<SecretBox> {
  if (config.secretsKey !== undefined) return createSecretBox(parseSecretKeys(config.secretsKey, "ARBOR_SECRETS_KEY"));
  return createSecretBox([await keyFile(join(config.dataDir, SECRETS_KEY_FILE))]);
}

async function keyFile(path: string): Promise<Buffer> {
  try {
    return parseSecretKeys(await readFile(path, "utf8"), path)[0] as Buffer;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  await mkdir(join(path, ".."), { recursive: true });
  try {
    // wx: of two processes starting at once, one writes and both then read the same key.
    await writeFile(path, `${randomBytes(SECRET_KEY_BYTES).toString("base64")}\n`, { flag: "wx", mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  return parseSecretKeys(await readFile(path, "utf8"), path)[0] as Buffer;
}
