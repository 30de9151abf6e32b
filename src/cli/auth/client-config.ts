/**
 * Where `arbor auth` talks to and keeps its tokens, resolved once from flags and the environment
 * (which main.ts passes in). The API defaults to the server's own default base URL, the issuer to
 * the API, as the server's configuration does.
 */
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";
import { DEFAULT_CONFIG } from "../../config.js";
import { UsageError } from "../admin.js";

/** The API URL a CLI uses when told none: a server started with the defaults. */
export const DEFAULT_API_URL = `http://localhost:${DEFAULT_CONFIG.port}`;

/** What every `arbor auth` command needs to know. */
export interface ClientConfig {
  /** {base_url}: the API, and the default audience of tokens. */
  api: string;
  /** {auth_url}: the token issuer. */
  issuer: string;
  /** The folder tokens are cached in (`<cache>/arbor`). */
  cacheDir: string;
  /** The environment, for PATH (the browser opener). */
  env: Readonly<Record<string, string | undefined>>;
}

/** The flags every `arbor auth` command takes. */
export interface ClientFlags {
  api?: string;
  issuer?: string;
}

/** Resolves the client configuration: flags, then ARBOR_API_URL / ARBOR_ISSUER_URL, then the defaults. */
export function resolveClientConfig(flags: ClientFlags, env: Readonly<Record<string, string | undefined>>): ClientConfig {
  const api = httpUrl(flags.api ?? nonEmpty(env.ARBOR_API_URL) ?? DEFAULT_API_URL, flags.api !== undefined ? "--api" : "ARBOR_API_URL");
  const issuer = httpUrl(flags.issuer ?? nonEmpty(env.ARBOR_ISSUER_URL) ?? api, flags.issuer !== undefined ? "--issuer" : "ARBOR_ISSUER_URL");
  const xdg = nonEmpty(env.XDG_CACHE_HOME);
  // XDG Base Directory: a relative XDG_CACHE_HOME is invalid and ignored.
  const cacheRoot = xdg !== undefined && isAbsolute(xdg) ? xdg : join(nonEmpty(env.HOME) ?? homedir(), ".cache");
  return { api, issuer, cacheDir: join(cacheRoot, "arbor"), env };
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
