/**
 * Where the key that seals secrets at rest comes from: ARBOR_SECRETS_KEY (one or more base64
 * keys of 32 bytes, comma-separated, the first sealing), else a key file in the data directory,
 * made on first start. Replicas on PostgreSQL must share the key: set ARBOR_SECRETS_KEY there.
 */
import { randomBytes } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ConfigError, type Config } from "../config.js";
import { createSecretBox, parseSecretKeys, SECRET_KEY_BYTES, SecretBoxError, type SecretBox } from "../domain/secret-box.js";
import type { Stores } from "../store/store.js";
import type { Notice } from "./data-dir.js";

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
  await mkdir(join(path, ".."), { recursive: true, mode: 0o700 });
  try {
    // wx: of two processes starting at once, one writes and both then read the same key.
    await writeFile(path, `${randomBytes(SECRET_KEY_BYTES).toString("base64")}\n`, { flag: "wx", mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  return parseSecretKeys(await readFile(path, "utf8"), path)[0] as Buffer;
}

/**
 * Seals under the first key every secret the store holds in plain text (written by an older Arbor)
 * or under an older key, and reports how many. A secret no configured key opens fails start: a
 * store copied without its key, or a wrong key, must not start and mint keys of its own.
 */
export async function resealStore(
  store: Pick<Stores, "identityProviders" | "keys" | "settings">,
  config: Pick<Config, "secretsKey" | "dataDir">,
  notice: Notice,
): Promise<void> {
  const resealAll = async (checkOnly: boolean) => ({
    identityProviders: await store.identityProviders.resealSecrets(checkOnly),
    signingKeys: await store.keys.resealSecrets(checkOnly),
    settings: await store.settings.resealSecrets(checkOnly),
  });
  try {
    // Every secret of every table opens before any is written: with a wrong key, plain text
    // sealed under it would lock the right key out.
    await resealAll(true);
    const counts = await resealAll(false);
    if (Object.values(counts).some((n) => n > 0)) notice("sealed stored secrets under the current secrets key", counts);
  } catch (e) {
    throw wrongKey(e, config);
  }
}

/** Checks, writing nothing, that the store's key opens every sealed secret (a restored backup). */
export async function checkSealedSecrets(
  store: Pick<Stores, "identityProviders" | "keys" | "settings">,
  config: Pick<Config, "secretsKey" | "dataDir">,
): Promise<void> {
  try {
    await store.identityProviders.resealSecrets(true);
    await store.keys.resealSecrets(true);
    await store.settings.resealSecrets(true);
  } catch (e) {
    throw wrongKey(e, config);
  }
}

function wrongKey(e: unknown, config: Pick<Config, "secretsKey" | "dataDir">): unknown {
  if (!(e instanceof SecretBoxError)) return e;
  const source =
    config.secretsKey !== undefined
      ? "ARBOR_SECRETS_KEY"
      : `the key file ${join(config.dataDir, SECRETS_KEY_FILE)} (ARBOR_SECRETS_KEY is unset)`;
  return new ConfigError(
    `the store's secrets are sealed with a secrets key that ${source} does not hold: ${e.message}. ` +
      "Start with the key the store was sealed with",
  );
}
