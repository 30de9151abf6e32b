/**
 * The CLI's settings file, `$XDG_CONFIG_HOME/arbor/config.yaml` (else `~/.config/arbor/config.yaml`):
 * named contexts, each a server and its defaults (`api`, `issuer`, `group`), and which of them is
 * current, as kubectl's kubeconfig has them:
 *
 *     current-context: staging
 *     contexts:
 *       default: { api: http://localhost:8080 }
 *       staging: { api: https://arbor.staging.example.com, group: acme }
 *
 * A file of the first format, a bare map of those keys, reads as the one context `default`; the
 * next write turns it into this format, keeping a copy of the old file beside it.
 */
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";
import { isMap, isScalar, LineCounter, parseDocument, stringify, type Node } from "yaml";
import { UsageError } from "../usage-error.js";

/** The keys a context may hold, with what each means. */
export const CLIENT_FILE_KEYS = {
  api: "the Arbor API URL, {base_url} (like --api and ARBOR_API_URL)",
  issuer: "the token issuer URL, {auth_url} (like --issuer and ARBOR_ISSUER_URL)",
  group: "the default group, a name or uid: where names are looked up and lists look (like --group and ARBOR_GROUP)",
} as const;

/** One of a context's keys. */
export type ClientFileKey = keyof typeof CLIENT_FILE_KEYS;

export type ContextSettings = Partial<Record<ClientFileKey, string>>;

/** The context a file without contexts has, and the one a first-format file becomes. */
export const DEFAULT_CONTEXT = "default";

/** The whole file. */
export interface ClientFile {
  /** The context used when neither --context nor ARBOR_CONTEXT names one; undefined: `default`. */
  currentContext: string | undefined;
  /** By name, in the file's order. Empty: only the implicit `default`, with no settings. */
  contexts: Record<string, ContextSettings>;
  /** Whether the file has the first format (a bare map of settings): the next write converts it. */
  firstFormat: boolean;
}

/** A context name: also a folder name in the token cache, so no slashes and no leading dot. */
const CONTEXT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

type Env = Readonly<Record<string, string | undefined>>;

/** Tells whether key is one of a context's keys. */
export function isClientFileKey(key: string): key is ClientFileKey {
  return Object.hasOwn(CLIENT_FILE_KEYS, key);
}

/** The name, checked; UsageError when it cannot name a context. */
export function contextName(name: string, origin = "context name"): string {
  if (!CONTEXT_NAME.test(name))
    throw new UsageError(
      `${origin}: "${name}" is not a context name (letters, digits, ".", "_" and "-", at most 63, starting with a letter or digit)`,
    );
  return name;
}

/** The value, checked for key; UsageError naming the key when it is no good. */
export function checkValue(key: ClientFileKey, value: string): string {
  const v = value.trim();
  if (v === "") throw new UsageError(`${key}: give a value (or: arbor config unset ${key})`);
  if (key !== "group") {
    const url = URL.parse(v);
    if (url === null || !/^https?:$/.test(url.protocol) || url.search !== "" || url.hash !== "")
      throw new UsageError(`${key}: "${v}" is not an http(s) URL without query or fragment`);
  }
  return v;
}

/** The file's path: under XDG_CONFIG_HOME when that is absolute (XDG Base Directory), else ~/.config. */
export function clientFilePath(env: Env): string {
  const xdg = env.XDG_CONFIG_HOME?.trim();
  const root = xdg !== undefined && xdg !== "" && isAbsolute(xdg) ? xdg : join(env.HOME?.trim() || homedir(), ".config");
  return join(root, "arbor", "config.yaml");
}

/** The file; empty when it does not exist; UsageError naming the file and line of whatever is wrong in it. */
export function readClientFile(path: string): ClientFile {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return { currentContext: undefined, contexts: {}, firstFormat: false };
    throw new UsageError(`cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true });
  const at = (node: Node | null | undefined) => `${path}, line ${node?.range == null ? 1 : lines.linePos(node.range[0]).line}`;
  const syntax = doc.errors[0];
  if (syntax !== undefined)
    throw new UsageError(`${path} is not YAML (line ${syntax.linePos?.[0].line ?? 1}): ${syntax.message.split("\n")[0]}`);
  if (doc.contents === null || (isScalar(doc.contents) && doc.contents.value === null))
    return { currentContext: undefined, contexts: {}, firstFormat: false };
  if (!isMap(doc.contents)) throw new UsageError(`${at(doc.contents)}: must be a map (current-context, contexts)`);
  const top = entries(doc.contents, at);
  if (!top.some(([key]) => key === "contexts" || key === "current-context")) {
    // The first format: the settings of the one context there was.
    return { currentContext: undefined, contexts: top.length === 0 ? {} : { [DEFAULT_CONTEXT]: settingsOf(top, at) }, firstFormat: true };
  }
  const out: ClientFile = { currentContext: undefined, contexts: {}, firstFormat: false };
  for (const [key, value, keyNode] of top) {
    if (key === "current-context") {
      if (!isScalar(value) || typeof value.value !== "string")
        throw new UsageError(`${at(keyNode)}: current-context must be a context name`);
      out.currentContext = contextName(value.value, at(keyNode));
    } else if (key === "contexts") {
      if (value === null || (isScalar(value) && value.value === null)) continue;
      if (!isMap(value)) throw new UsageError(`${at(keyNode)}: contexts must be a map of names to settings`);
      for (const [name, settings, nameNode] of entries(value, at)) {
        contextName(name, at(nameNode));
        if (settings !== null && !(isScalar(settings) && settings.value === null) && !isMap(settings))
          throw new UsageError(`${at(nameNode)}: context ${name} must be a map of settings (${keyList()})`);
        out.contexts[name] = isMap(settings) ? settingsOf(entries(settings, at), at) : {};
      }
    } else if (isClientFileKey(key)) {
      throw new UsageError(`${at(keyNode)}: "${key}" belongs in a context (contexts: NAME: ${key}: ...)`);
    } else {
      throw new UsageError(`${at(keyNode)}: unknown setting "${key}" (known: current-context, contexts)`);
    }
  }
  if (
    out.currentContext !== undefined &&
    !Object.hasOwn(out.contexts, out.currentContext) &&
    !(out.currentContext === DEFAULT_CONTEXT && Object.keys(out.contexts).length === 0)
  ) {
    throw new UsageError(`${path}: current-context "${out.currentContext}" is not one of its contexts`);
  }
  return out;
}

/**
 * Writes the file (creating its folder), replacing it whole so a reader never sees half of it; a
 * first-format file is kept as `<path>.bak` first.
 */
export function writeClientFile(path: string, file: Omit<ClientFile, "firstFormat"> & { firstFormat?: boolean }): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  if (file.firstFormat === true && existsSync(path) && !existsSync(`${path}.bak`)) {
    copyFileSync(path, `${path}.bak`);
    chmodSync(`${path}.bak`, 0o600);
  }
  const doc: Record<string, unknown> = {};
  if (file.currentContext !== undefined) doc["current-context"] = file.currentContext;
  doc.contexts = file.contexts;
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, stringify(doc), { mode: 0o600 });
  renameSync(tmp, path);
}

type Entry = [key: string, value: unknown, keyNode: Node | null];

/** A map's entries; UsageError for a key that is not plain text. */
function entries(map: { items: { key: unknown; value: unknown }[] }, at: (node: Node | null | undefined) => string): Entry[] {
  return map.items.map(({ key, value }) => {
    if (!isScalar(key) || typeof key.value !== "string") throw new UsageError(`${at(key as Node)}: keys must be plain text`);
    return [key.value, value, key];
  });
}

function settingsOf(items: Entry[], at: (node: Node | null | undefined) => string): ContextSettings {
  const out: ContextSettings = {};
  for (const [key, value, keyNode] of items) {
    if (!isClientFileKey(key)) throw new UsageError(`${at(keyNode)}: unknown setting "${key}" (known: ${keyList()})`);
    if (!isScalar(value) || typeof value.value !== "string") throw new UsageError(`${at(keyNode)}: ${key} must be a string`);
    if (value.value.trim() !== "") out[key] = value.value.trim();
  }
  return out;
}

function keyList(): string {
  return Object.keys(CLIENT_FILE_KEYS).join(", ");
}
