/**
 * `arbor admin registry-config`: prints a ready configuration of CNCF Distribution 2.8
 * (`docker-registry serve registry.yml`) that authenticates at Arbor's token endpoint and notifies
 * Arbor of pushes and deletes (DESIGN 1.9), and writes the certificate of the registry token
 * signing key it refers to. Reads the store directly, like the other admin commands.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { stringify } from "yaml";
import { registryHttpSecret, registryNotificationsSecret, registrySigningKey } from "../auth/registry-keys.js";
import { registryTokenIssuer } from "../auth/registry-tokens.js";
import { baseUrlOf, issuerUrlOf, type Config } from "../config.js";
import { systemClock } from "../domain/clock.js";
import { BLOB_MEDIA_TYPES } from "../server/registry/registry-events.js";
import { NOTIFICATIONS_PATH, registryTokenPath } from "../server/registry/registry-endpoints.js";
import { loadSecretBox } from "../server/secrets-key.js";
import { createStore } from "../store/create-store.js";
import { refuseForeignIssuer } from "./admin.js";
import { DEFAULT_CERT_NAME } from "./admin-commands.js";
import { announceStore } from "./store-access.js";
import { UsageError } from "./usage-error.js";

/** Options of `arbor admin registry-config`. */
export interface RegistryConfigOptions {
  /** The registry's listen address, `HOST:PORT` or `:PORT`. */
  listen: string;
  /** The registry's storage folder. */
  storage: string;
  /** Where the certificate goes; default `<storage>/arbor-token-signer.crt`. */
  certFile?: string;
  /** How the registry reaches Arbor for notifications; default {base_url}. */
  notifyUrl?: string;
}

/** Writes the certificate and returns the YAML configuration. */
export async function registryConfig(config: Config, options: RegistryConfigOptions): Promise<string> {
  if (config.registryHost === undefined) {
    throw new UsageError("set the registry host (--registry-host or ARBOR_REGISTRY_HOST) to the value the Arbor server runs with");
  }
  if (!/^(?:[A-Za-z0-9.-]*|\[[0-9A-Fa-f:.]+\]):\d{1,5}$/.test(options.listen))
    throw new UsageError(`--listen: "${options.listen}" is not HOST:PORT or :PORT`);
  const notifyBase = options.notifyUrl ?? baseUrlOf(config);
  if (!URL.canParse(notifyBase) || !/^https?:$/.test(new URL(notifyBase).protocol))
    throw new UsageError(`--notify-url: "${notifyBase}" is not an http(s) URL`);
  const storage = resolve(options.storage);
  const certFile = resolve(options.certFile ?? join(storage, DEFAULT_CERT_NAME));
  // The registry's key and secrets are sealed in the store: the server's secrets key opens them.
  await announceStore(config, "existing");
  const box = await loadSecretBox(config);
  const store = await createStore({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    schema: config.databaseSchema,
    secrets: box,
  });
  let secrets: { certificatePem: string; notifications: string; http: string };
  try {
    await refuseForeignIssuer(store.settings, config, options.notifyUrl === undefined);
    secrets = {
      certificatePem: (await registrySigningKey(store.settings, systemClock)).certificatePem,
      notifications: await registryNotificationsSecret(store.settings),
      http: await registryHttpSecret(store.settings),
    };
  } finally {
    await store.close();
  }
  await mkdir(dirname(certFile), { recursive: true });
  await writeFile(certFile, secrets.certificatePem);
  const issuer = issuerUrlOf(config);
  const document = {
    version: 0.1,
    log: { level: "info", fields: { service: "registry" } },
    storage: { filesystem: { rootdirectory: storage }, delete: { enabled: true }, cache: { blobdescriptor: "inmemory" } },
    http: { addr: options.listen, secret: secrets.http, headers: { "X-Content-Type-Options": ["nosniff"] } },
    auth: {
      token: {
        realm: `${new URL(issuer).origin}${registryTokenPath(issuer)}`,
        service: config.registryHost,
        issuer: registryTokenIssuer(issuer),
        rootcertbundle: certFile,
      },
    },
    notifications: {
      endpoints: [
        {
          name: "arbor",
          url: new URL(NOTIFICATIONS_PATH, notifyBase).href,
          headers: { Authorization: [`Bearer ${secrets.notifications}`] },
          timeout: "5s",
          threshold: 3,
          backoff: "2s",
          ignoredmediatypes: [...BLOB_MEDIA_TYPES],
          ignore: { actions: ["pull", "mount"] },
        },
      ],
    },
  };
  return (
    "# CNCF Distribution 2.8 configuration written by arbor admin registry-config (docs/registry.md).\n" +
    `# It holds secrets: keep it private.\n${stringify(document)}`
  );
}
