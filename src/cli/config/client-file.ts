/**
 * The CLI's settings file, `$XDG_CONFIG_HOME/arbor/config.yaml` (else `~/.config/arbor/config.yaml`):
 * `api`, `issuer` and `group`, below flags and ARBOR_* variables in precedence.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";
import { parse, stringify } from "yaml";
import { UsageError } from "../usage-error.js";

/** The keys the file may hold, with what each means. */
export const CLIENT_FILE_KEYS = {
  api: "the Arbor API URL, {base_url} (like --api and ARBOR_API_URL)",
  issuer: "the token issuer URL, {auth_url} (like --issuer and ARBOR_ISSUER_URL)",
  group: "the default group, a name or uid: where names are looked up and lists look (like --group and ARBOR_GROUP)",
} as const;

/** One of the file's keys. */
export type ClientFileKey = keyof typeof CLIENT_FILE_KEYS;

/** The settings the file holds. */
export type ClientFile = Partial<Record<ClientFileKey, string>>;

type Env = Readonly<Record<string, string | undefined>>;

/** Tells whether key is one of the file's keys. */
export function isClientFileKey(key: string): key is ClientFileKey {
  return Object.hasOwn(CLIENT_FILE_KEYS, key);
}

/** The file's path: under XDG_CONFIG_HOME when that is absolute (XDG Base Directory), else ~/.config. */
export function clientFilePath(env: Env): string {
  const xdg = env.XDG_CONFIG_HOME?.trim();
  const root = xdg !== undefined && xdg !== "" && isAbsolute(xdg) ? xdg : join(env.HOME?.trim() || homedir(), ".config");
  return join(root, "arbor", "config.yaml");
}

/** The file's settings; none when it does not exist; UsageError when it is not a map of known keys to strings. */
export function readClientFile(path: string): ClientFile {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw new UsageError(`cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (e) {
    throw new UsageError(`${path} is not YAML: ${(e as Error).message.split("\n")[0]}`);
  }
  if (doc === null || doc === undefined) return {};
  if (typeof doc !== "object" || Array.isArray(doc)) throw new UsageError(`${path} must be a map of settings (${keyList()})`);
  const out: ClientFile = {};
  for (const [key, value] of Object.entries(doc)) {
    if (!isClientFileKey(key)) throw new UsageError(`${path}: unknown setting "${key}" (known: ${keyList()})`);
    if (typeof value !== "string") throw new UsageError(`${path}: ${key} must be a string`);
    if (value.trim() !== "") out[key] = value.trim();
  }
  return out;
}

/** Writes settings to path (creating its folder), replacing the file whole so a reader never sees half of it. */
export function writeClientFile(path: string, settings: ClientFile): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, Object.keys(settings).length === 0 ? "" : stringify(settings), { mode: 0o600 });
  renameSync(tmp, path);
}

function keyList(): string {
  return Object.keys(CLIENT_FILE_KEYS).join(", ");
}
