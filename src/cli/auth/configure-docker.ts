/**
 * `arbor auth configure-docker`: tells docker (and skopeo, podman, buildah, which read the same
 * file) to get credentials for a registry from `docker-credential-arbor`, by adding
 * `credHelpers[host] = "arbor"` to the docker config file. Everything else in the file stays as
 * it is; a missing file is created 0600; running it twice changes nothing. The registry's Arbor
 * is recorded for the helper (registries.ts).
 */
import { access, chmod, constants, mkdir, readFile, rename, stat, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { UsageError } from "../usage-error.js";
import type { ClientConfig } from "./client-config.js";
import { isRegistryHost, registriesPath, saveRegistry } from "./registries.js";

/** The helper's name in docker's config: docker runs `docker-credential-<name>`. */
export const HELPER_NAME = "arbor";

export interface ConfigureDockerOptions {
  /** The registry host; default ARBOR_REGISTRY_HOST. */
  registry?: string;
  /** The docker config file, or its folder; default `$DOCKER_CONFIG/config.json`, else `~/.docker/config.json`. */
  config?: string;
}

/** What the command did. */
export interface ConfigureDockerResult {
  host: string;
  /** The docker config file. */
  file: string;
  /** False when the file already said so. */
  changed: boolean;
  /** Whether docker-credential-arbor is on PATH (docker finds it there). */
  helperOnPath: boolean;
}

/** Configures docker for the registry. */
export async function configureDocker(config: ClientConfig, options: ConfigureDockerOptions): Promise<ConfigureDockerResult> {
  const host = options.registry ?? nonEmpty(config.env.ARBOR_REGISTRY_HOST);
  if (host === undefined) throw new UsageError("name the registry: --registry HOST (or set ARBOR_REGISTRY_HOST)");
  if (!isRegistryHost(host)) throw new UsageError(`--registry: "${host}" is not a registry host (name or name:port, no scheme or path)`);
  const file = await dockerConfigFile(config.env, options.config);
  const doc = await readDockerConfig(file);
  const helpers = doc.credHelpers ?? {};
  if (typeof helpers !== "object" || helpers === null || Array.isArray(helpers))
    throw new UsageError(`${file}: credHelpers is not an object`);
  const changed = (helpers as Record<string, unknown>)[host] !== HELPER_NAME;
  if (changed) await writeDockerConfig(file, { ...doc, credHelpers: { ...(helpers as object), [host]: HELPER_NAME } });
  await saveRegistry(registriesPath(config.configFile), host, { api: config.api, issuer: config.issuer, context: config.context });
  return { host, file, changed, helperOnPath: await onPath(`docker-credential-${HELPER_NAME}`, config.env.PATH) };
}

async function dockerConfigFile(env: ClientConfig["env"], given: string | undefined): Promise<string> {
  if (given === undefined) return join(nonEmpty(env.DOCKER_CONFIG) ?? join(nonEmpty(env.HOME) ?? homedir(), ".docker"), "config.json");
  const path = resolve(given);
  const isDir = await stat(path).then(
    (s) => s.isDirectory(),
    () => false,
  );
  return isDir ? join(path, "config.json") : path;
}

async function readDockerConfig(file: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw new UsageError(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  if (text.trim() === "") return {};
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${file} is not JSON (${(e as Error).message}); fix or move it, then run this again`);
  }
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) throw new UsageError(`${file} must hold a JSON object`);
  return doc as Record<string, unknown>;
}

/** Writes the file whole, keeping an existing file's mode and making a new one 0600 (it may hold credentials). */
async function writeDockerConfig(file: string, doc: Record<string, unknown>): Promise<void> {
  const mode = await stat(file).then(
    (s) => s.mode & 0o777,
    () => 0o600,
  );
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(doc, null, "\t")}\n`, { mode });
  await chmod(temporary, mode);
  await rename(temporary, file);
}

async function onPath(name: string, path: string | undefined): Promise<boolean> {
  for (const dir of (path ?? "").split(delimiter).filter((d) => d !== "")) {
    if (
      await access(join(dir, name), constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return true;
  }
  return false;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}
