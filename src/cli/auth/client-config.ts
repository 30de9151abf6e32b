/**
 * Where the CLI talks to and keeps its tokens, resolved once from flags, the environment (which
 * main.ts passes in) and the context chosen in the settings file (config/contexts.ts), in that
 * order. The API defaults to the server's own default base URL, the issuer to the API, as the
 * server's configuration does. Tokens are cached per context (context-cache.ts).
 */
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";
import { DEFAULT_CONFIG } from "../../config.js";
import { UsageError } from "../usage-error.js";
import { clientFilePath, DEFAULT_CONTEXT, readClientFile } from "../config/client-file.js";
import { selectContext } from "../config/contexts.js";
import { adoptFirstFormatLogins, contextCacheDir } from "./context-cache.js";

/** The API URL a CLI uses when told none: a server started with the defaults. */
export const DEFAULT_API_URL = `http://localhost:${DEFAULT_CONFIG.port}`;

/** What every `arbor auth` command needs to know. */
export interface ClientConfig {
  /** {base_url}: the API, and the default audience of tokens. */
  api: string;
  /** {auth_url}: the token issuer. */
  issuer: string;
  /** The default group (a name or uid) for names and lists; undefined: everything visible. */
  group: string | undefined;
  /** The context's name. */
  context: string;
  /** The folder the context's tokens are cached in (`<cache>/arbor/contexts/<context>`). */
  cacheDir: string;
  /** The cache's root (`<cache>/arbor`), which holds every context's folder. */
  cacheRoot: string;
  /** The settings file (it need not exist). */
  configFile: string;
  /** The environment, for PATH (the browser opener). */
  env: Readonly<Record<string, string | undefined>>;
}

/** The flags every `arbor auth` command takes. */
export interface ClientFlags {
  api?: string;
  issuer?: string;
  group?: string;
}

/**
 * Resolves the client configuration: flags, then ARBOR_API_URL / ARBOR_ISSUER_URL / ARBOR_GROUP,
 * then the settings file, then the defaults.
 */
export function resolveClientConfig(flags: ClientFlags, env: Readonly<Record<string, string | undefined>>): ClientConfig {
  const configFile = clientFilePath(env);
  const context = selectContext(readClientFile(configFile), configFile, env);
  const file = context.settings;
  const where = context.name === DEFAULT_CONTEXT ? configFile : `${configFile}, context ${context.name}`;
  const pick = (flag: string | undefined, flagName: string, variable: string, key: "api" | "issuer" | "group") => {
    if (flag !== undefined) return { value: flag, origin: flagName };
    const fromEnv = nonEmpty(env[variable]);
    if (fromEnv !== undefined) return { value: fromEnv, origin: variable };
    return { value: file[key], origin: `${where}: ${key}` };
  };
  const apiSetting = pick(flags.api, "--api", "ARBOR_API_URL", "api");
  const api = httpUrl(apiSetting.value ?? DEFAULT_API_URL, apiSetting.origin);
  const issuerSetting = pick(flags.issuer, "--issuer", "ARBOR_ISSUER_URL", "issuer");
  const issuer = httpUrl(issuerSetting.value ?? api, issuerSetting.origin);
  const group = nonEmpty(pick(flags.group, "--group", "ARBOR_GROUP", "group").value);
  const cacheRoot = cacheRootOf(env);
  const cacheDir = contextCacheDir(cacheRoot, context.name);
  if (context.name === DEFAULT_CONTEXT) adoptFirstFormatLogins(cacheRoot, cacheDir);
  return { api, issuer, group, context: context.name, cacheDir, cacheRoot, configFile, env };
}

/** `$XDG_CACHE_HOME/arbor`, else `~/.cache/arbor`: every context's tokens, and completion's answers. */
export function cacheRootOf(env: Readonly<Record<string, string | undefined>>): string {
  const xdg = nonEmpty(env.XDG_CACHE_HOME);
  // XDG Base Directory: a relative XDG_CACHE_HOME is invalid and ignored.
  return join(xdg !== undefined && isAbsolute(xdg) ? xdg : join(nonEmpty(env.HOME) ?? homedir(), ".cache"), "arbor");
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}

function httpUrl(text: string, origin: string): string {
  const url = URL.parse(text);
  if (url === null || !/^https?:$/.test(url.protocol) || url.search !== "" || url.hash !== "") {
    throw new UsageError(`${origin}: "${text}" is not an http(s) URL without query or fragment`);
  }
  return text.replace(/\/+$/, "");
}
