/**
 * The issuer and base URL the latest server start over a store answers as, kept in the store so
 * the admin commands, which act on the store and not through the server, mint tokens the server
 * accepts: a token for another issuer or audience is refused by every call, far from the mint.
 */
import type { SettingsStore } from "../store/settings-store.js";

/** What a server answers as. */
export interface ServedUrls {
  /** {auth_url}: the iss of the tokens it issues and accepts. */
  issuer: string;
  /** {base_url}: the audience of its API tokens. */
  baseUrl: string;
}

const SETTING = "served_urls";

/** Records what a server now serving this store answers as; replicas share one issuer and base URL. */
export async function recordServedUrls(settings: Pick<SettingsStore, "put">, urls: ServedUrls): Promise<void> {
  await settings.put(SETTING, JSON.stringify({ issuer: urls.issuer, baseUrl: urls.baseUrl }));
}

/** What the latest server start recorded, or undefined when no server has started over this store since the record existed. */
export async function readServedUrls(settings: Pick<SettingsStore, "get">): Promise<ServedUrls | undefined> {
  const text = await settings.get(SETTING);
  if (text === undefined) return undefined;
  const parsed = JSON.parse(text) as Partial<ServedUrls>;
  if (typeof parsed.issuer !== "string" || typeof parsed.baseUrl !== "string") return undefined;
  return { issuer: parsed.issuer, baseUrl: parsed.baseUrl };
}
