/**
 * Which Arbor hands out tokens for which registry: `registries.json` next to the CLI's settings
 * file (`$XDG_CONFIG_HOME/arbor/registries.json`), written by `arbor auth configure-docker` and
 * read by `docker-credential-arbor`, which docker starts with no flags and knows only the
 * registry's host. Each entry keeps the API and issuer URLs the login is cached under.
 */
import { chmod, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";

/** The Arbor a registry belongs to. */
export interface RegistryLogin {
  /** {base_url}: the API the login's tokens are cached under. */
  api: string;
  /** {auth_url}. */
  issuer: string;
  /** The context whose login it uses (files written before contexts have none: the current one). */
  context?: string;
}

/** Registries by host. */
export type Registries = Record<string, RegistryLogin>;

/** The file beside the CLI's settings file (configFile). */
export function registriesPath(configFile: string): string {
  return join(dirname(configFile), "registries.json");
}

/** The registries configured so far; none when the file is missing or damaged. */
export async function readRegistries(path: string): Promise<Registries> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw e;
  }
  try {
    const doc = JSON.parse(text) as unknown;
    if (typeof doc !== "object" || doc === null || Array.isArray(doc)) return {};
    const out: Registries = {};
    for (const [host, v] of Object.entries(doc as Record<string, unknown>)) {
      const entry = v as Partial<RegistryLogin> | null;
      if (typeof entry?.api === "string" && typeof entry.issuer === "string") {
        out[host] = { api: entry.api, issuer: entry.issuer, ...(typeof entry.context === "string" && { context: entry.context }) };
      }
    }
    return out;
  } catch {
    // Rewritten whole by the next configure-docker; until then, as good as none.
    return {};
  }
}

/** Records host's Arbor; the file is written whole (0600, temporary file then rename). */
export async function saveRegistry(path: string, host: string, login: RegistryLogin): Promise<void> {
  const registries = { ...(await readRegistries(path)), [host]: login };
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(registries, null, 2)}\n`, { mode: 0o600 });
  await chmod(temporary, 0o600);
  await rename(temporary, path);
}

/**
 * The registry host a credential helper is asked about: docker sends `host[:port]`, sometimes
 * as a URL (`https://host:port/v1/`); the host is what tokens are issued for.
 */
export function registryHostOf(serverUrl: string): string {
  const text = serverUrl.trim();
  const url = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? URL.parse(text) : URL.parse(`https://${text}`);
  return url === null ? text : url.host;
}

/** Tells whether host is `name` or `name:port`, as registry hosts are written. */
export function isRegistryHost(host: string): boolean {
  return /^[A-Za-z0-9.-]+(:\d{1,5})?$/.test(host);
}
