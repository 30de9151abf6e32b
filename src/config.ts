/**
 * Configuration: one typed object, resolved once from flags, the environment (ARBOR_*) and an
 * optional YAML file, in that order of precedence, then passed down. Nothing else reads
 * process.env.
 */
import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import { parseAddressRanges } from "./domain/address-ranges.js";
import { parseRate, type Rate } from "./domain/rate-limit.js";
import { parseSecretKeys } from "./domain/secret-box.js";

/** Everything the server and the admin commands need to know. */
export interface Config {
  /** Port to listen on; 0 picks a free one. */
  port: number;
  /** Address to listen on; undefined means every interface. */
  host: string | undefined;
  /** The public URL of the API ({base_url}); undefined means http://localhost:<port>. */
  baseUrl: string | undefined;
  /** The token issuer ({auth_url}); undefined means the base URL. */
  issuerUrl: string | undefined;
  /** The error domain suffix; undefined means the host of the base URL. */
  domain: string | undefined;
  /** Where the embedded SQLite store and, without secretsKey, the secrets key file live. */
  dataDir: string;
  /** A postgres:// URL selects PostgreSQL; undefined means SQLite in dataDir. */
  databaseUrl: string | undefined;
  /** PostgreSQL only: the schema Arbor's tables live in (created if missing); default `public`. */
  databaseSchema: string | undefined;
  /** PostgreSQL only: how long getting a connection may take (a new one, or a free one of the pool), in milliseconds. */
  databaseConnectTimeoutMs: number;
  /** PostgreSQL only: how long one statement may take before it fails as UNAVAILABLE, in milliseconds. */
  databaseQueryTimeoutMs: number;
  /** PostgreSQL only: whether key lookups and plain inserts are prepared per connection (false behind a pooler that cannot keep them). */
  databasePreparedStatements: boolean;
  /** Whether an authenticated person may create a root organization. */
  allowOrgCreation: boolean;
  /** Whether http:// issuers on loopback are trusted (tests, local development); https only otherwise. */
  allowHttpLoopbackIssuers: boolean;
  /** Whether OIDC issuers on private addresses (RFC 1918, CGNAT, IPv6 unique local) are trusted; public ones only otherwise. */
  allowPrivateIssuers: boolean;
  /** pino level: fatal, error, warn, info, debug, trace or silent. */
  logLevel: string;
  /** The largest request body accepted, in bytes. */
  maxBodyBytes: number;
  /** How long shutdown waits for in-flight requests, in milliseconds. */
  shutdownTimeoutMs: number;
  /** How long a signing key signs before a new one takes over, in milliseconds. */
  keyRotationMs: number;
  /** {registry_host}: the registry's host, the other audience API tokens may be issued for. */
  registryHost: string | undefined;
  /** The default login provider's issuer, for people who log in without an organization's provider. */
  loginIssuer: string | undefined;
  /** The client id Arbor is registered under at the default login provider. */
  loginClientId: string | undefined;
  /** The client secret at the default login provider (none for a public client using PKCE alone). */
  loginClientSecret: string | undefined;
  /** The most logins in progress (begun, not finished, under ten minutes old) from one client address (IPv6: its /64). */
  loginAttemptsPerAddress: number;
  /** The most logins in progress through one organization's identity provider (the default login provider counts as one). */
  loginAttemptsPerOrganization: number;
  /** A PEM certificate chain file: with tlsKey, the port serves TLS (h2 and HTTP/1.1 by ALPN). */
  tlsCert: string | undefined;
  /** The PEM private key file of tlsCert. */
  tlsKey: string | undefined;
  /** An http(s) URL of a zip archive of OSV documents, imported periodically; undefined: no sync. */
  advisoriesFeedUrl: string | undefined;
  /** How often the advisories feed is fetched, in milliseconds. */
  advisoriesSyncIntervalMs: number;
  /** How long a feed's cursor is trusted without a sync confirming it; older, the sync imports the whole archive. */
  advisoriesFeedMaxCursorAgeMs: number;
  /** Audit events older than this many milliseconds are deleted by the server; undefined: kept for ever. */
  auditRetentionMs: number | undefined;
  /** Whether changes write CloudEvents to the outbox and the outbox is delivered; false: neither (docs/events.md). */
  events: boolean;
  /** Whether event sinks on loopback (http:// too) are accepted (tests, local development); https to public addresses only otherwise. */
  allowHttpLoopbackSinks: boolean;
  /** Whether event sinks on private addresses (RFC 1918, CGNAT, IPv6 unique local) are accepted. */
  allowPrivateSinks: boolean;
  /** How long an event is retried at a sink that fails, in milliseconds, before it is dropped. */
  eventsMaxAgeMs: number;
  /** How long delivered events stay in the outbox, in milliseconds. */
  eventsRetentionMs: number;
  /** The most deliveries in flight at once, over every subscription (each has at most one). */
  eventsConcurrency: number;
  /** How long one delivery may take, in milliseconds. */
  eventsTimeoutMs: number;
  /**
   * Reverse proxies (addresses and CIDR ranges) whose X-Forwarded-For names the client; empty:
   * the TCP peer is the client and the header is ignored.
   */
  trustedProxies: string[];
  /** Browser origins (`https://app.example`) allowed to call the API across origins; `*` for any; empty: no CORS. */
  corsOrigins: string[];
  /**
   * Base64 keys (32 bytes, comma-separated; the first seals) for secrets at rest; undefined
   * means a key file made in dataDir.
   */
  secretsKey: string | undefined;
  /** Run pending migrations at start; false: refuse to start on a store behind the code (`arbor admin migrate` migrates). */
  migrate: boolean;
  /** Requests per client address (every endpoint but health and metrics); undefined: no limit. */
  rateLimitPerAddress: Rate | undefined;
  /** API calls per authenticated identity; undefined: no limit. */
  rateLimitPerIdentity: Rate | undefined;
  /**
   * Requests per client address to the endpoints that take credentials (token exchange, login
   * token, registry token); undefined: no limit.
   */
  exchangeRateLimit: Rate | undefined;
  /**
   * Refused credentials per client address (IPv6: its /64) at the endpoints that take them; past
   * it, 429 until the rate refills; undefined: not throttled.
   */
  authFailuresPerAddress: Rate | undefined;
  /** Refused credentials per attempted identity at those endpoints; undefined: not throttled. */
  authFailuresPerIdentity: Rate | undefined;
  /** Open connections at once; more are closed as they arrive. 0: no cap. */
  maxConnections: number;
  /** The largest request head (request line and headers) of HTTP/1.1, and header list of HTTP/2, in bytes. */
  maxHeaderBytes: number;
  /** Time for a client to send a request's headers, in milliseconds. */
  headersTimeoutMs: number;
  /** Time for a client to send a whole request (an HTTP/2 stream's too), in milliseconds. */
  requestTimeoutMs: number;
  /** How long an idle connection stays open (HTTP/1.1 keep-alive, an HTTP/2 session without streams), in milliseconds. */
  idleTimeoutMs: number;
  /** Streams one HTTP/2 connection may have open at once; more are refused. */
  maxConcurrentStreams: number;
  /** `host:port` of a listener of its own serving `/metrics`; undefined: none. */
  metricsAddress: string | undefined;
  /**
   * A bearer token `/metrics` requires; with it the API port serves `/metrics` too. Undefined: no
   * token, and no metrics on the API port.
   */
  metricsToken: string | undefined;
}

/** The defaults; the CLI's help text is generated from these. */
/** The log levels `--log-level` and ARBOR_LOG_LEVEL take (pino's, and `silent`). */
export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

export const DEFAULT_CONFIG: Readonly<Config> = {
  port: 8080,
  host: undefined,
  baseUrl: undefined,
  issuerUrl: undefined,
  domain: undefined,
  dataDir: "./data",
  databaseUrl: undefined,
  databaseSchema: undefined,
  databaseConnectTimeoutMs: 5_000,
  databaseQueryTimeoutMs: 10_000,
  databasePreparedStatements: true,
  allowOrgCreation: true,
  allowHttpLoopbackIssuers: false,
  allowPrivateIssuers: false,
  logLevel: "info",
  maxBodyBytes: 1024 * 1024,
  shutdownTimeoutMs: 30_000,
  keyRotationMs: 30 * 24 * 60 * 60 * 1000,
  registryHost: undefined,
  loginIssuer: undefined,
  loginClientId: undefined,
  loginClientSecret: undefined,
  loginAttemptsPerAddress: 20,
  loginAttemptsPerOrganization: 1_000,
  tlsCert: undefined,
  tlsKey: undefined,
  advisoriesFeedUrl: undefined,
  advisoriesSyncIntervalMs: 60 * 60 * 1000,
  advisoriesFeedMaxCursorAgeMs: 7 * 24 * 60 * 60 * 1000,
  auditRetentionMs: undefined,
  events: true,
  allowHttpLoopbackSinks: false,
  allowPrivateSinks: false,
  eventsMaxAgeMs: 24 * 60 * 60 * 1000,
  eventsRetentionMs: 24 * 60 * 60 * 1000,
  eventsConcurrency: 16,
  eventsTimeoutMs: 10_000,
  trustedProxies: [],
  corsOrigins: [],
  secretsKey: undefined,
  migrate: true,
  rateLimitPerAddress: undefined,
  rateLimitPerIdentity: undefined,
  exchangeRateLimit: undefined,
  authFailuresPerAddress: { count: 100, periodMs: 60_000 },
  authFailuresPerIdentity: { count: 30, periodMs: 60_000 },
  maxConnections: 10_000,
  maxHeaderBytes: 16_384,
  headersTimeoutMs: 20_000,
  requestTimeoutMs: 60_000,
  idleTimeoutMs: 5_000,
  maxConcurrentStreams: 100,
  metricsAddress: undefined,
  metricsToken: undefined,
};

type Kind = "int" | "string" | "bool" | "url" | "duration" | "origins" | "addresses" | "rate";

/** Each setting: its environment variable, its key in the config file, and its kind. */
export const SETTINGS: Readonly<Record<keyof Config, { env: string; kind: Kind }>> = {
  port: { env: "ARBOR_PORT", kind: "int" },
  host: { env: "ARBOR_HOST", kind: "string" },
  baseUrl: { env: "ARBOR_BASE_URL", kind: "url" },
  issuerUrl: { env: "ARBOR_ISSUER_URL", kind: "url" },
  domain: { env: "ARBOR_DOMAIN", kind: "string" },
  dataDir: { env: "ARBOR_DATA_DIR", kind: "string" },
  databaseUrl: { env: "ARBOR_DATABASE_URL", kind: "string" },
  databaseSchema: { env: "ARBOR_DATABASE_SCHEMA", kind: "string" },
  databaseConnectTimeoutMs: { env: "ARBOR_DATABASE_CONNECT_TIMEOUT", kind: "duration" },
  databaseQueryTimeoutMs: { env: "ARBOR_DATABASE_QUERY_TIMEOUT", kind: "duration" },
  databasePreparedStatements: { env: "ARBOR_DATABASE_PREPARED_STATEMENTS", kind: "bool" },
  allowOrgCreation: { env: "ARBOR_ALLOW_ORG_CREATION", kind: "bool" },
  allowHttpLoopbackIssuers: { env: "ARBOR_ALLOW_HTTP_LOOPBACK_ISSUERS", kind: "bool" },
  allowPrivateIssuers: { env: "ARBOR_ALLOW_PRIVATE_ISSUERS", kind: "bool" },
  logLevel: { env: "ARBOR_LOG_LEVEL", kind: "string" },
  maxBodyBytes: { env: "ARBOR_MAX_BODY_BYTES", kind: "int" },
  shutdownTimeoutMs: { env: "ARBOR_SHUTDOWN_TIMEOUT", kind: "duration" },
  keyRotationMs: { env: "ARBOR_KEY_ROTATION", kind: "duration" },
  registryHost: { env: "ARBOR_REGISTRY_HOST", kind: "string" },
  loginIssuer: { env: "ARBOR_LOGIN_ISSUER", kind: "url" },
  loginClientId: { env: "ARBOR_LOGIN_CLIENT_ID", kind: "string" },
  loginClientSecret: { env: "ARBOR_LOGIN_CLIENT_SECRET", kind: "string" },
  loginAttemptsPerAddress: { env: "ARBOR_LOGIN_ATTEMPTS_PER_ADDRESS", kind: "int" },
  loginAttemptsPerOrganization: { env: "ARBOR_LOGIN_ATTEMPTS_PER_ORGANIZATION", kind: "int" },
  tlsCert: { env: "ARBOR_TLS_CERT", kind: "string" },
  tlsKey: { env: "ARBOR_TLS_KEY", kind: "string" },
  advisoriesFeedUrl: { env: "ARBOR_ADVISORIES_FEED_URL", kind: "url" },
  advisoriesSyncIntervalMs: { env: "ARBOR_ADVISORIES_SYNC_INTERVAL", kind: "duration" },
  advisoriesFeedMaxCursorAgeMs: { env: "ARBOR_ADVISORIES_FEED_MAX_CURSOR_AGE", kind: "duration" },
  auditRetentionMs: { env: "ARBOR_AUDIT_RETENTION", kind: "duration" },
  events: { env: "ARBOR_EVENTS", kind: "bool" },
  allowHttpLoopbackSinks: { env: "ARBOR_ALLOW_HTTP_LOOPBACK_SINKS", kind: "bool" },
  allowPrivateSinks: { env: "ARBOR_ALLOW_PRIVATE_SINKS", kind: "bool" },
  eventsMaxAgeMs: { env: "ARBOR_EVENTS_MAX_AGE", kind: "duration" },
  eventsRetentionMs: { env: "ARBOR_EVENTS_RETENTION", kind: "duration" },
  eventsConcurrency: { env: "ARBOR_EVENTS_CONCURRENCY", kind: "int" },
  eventsTimeoutMs: { env: "ARBOR_EVENTS_TIMEOUT", kind: "duration" },
  trustedProxies: { env: "ARBOR_TRUSTED_PROXIES", kind: "addresses" },
  corsOrigins: { env: "ARBOR_CORS_ORIGINS", kind: "origins" },
  secretsKey: { env: "ARBOR_SECRETS_KEY", kind: "string" },
  migrate: { env: "ARBOR_MIGRATE", kind: "bool" },
  rateLimitPerAddress: { env: "ARBOR_RATE_LIMIT_PER_ADDRESS", kind: "rate" },
  rateLimitPerIdentity: { env: "ARBOR_RATE_LIMIT_PER_IDENTITY", kind: "rate" },
  exchangeRateLimit: { env: "ARBOR_EXCHANGE_RATE_LIMIT", kind: "rate" },
  authFailuresPerAddress: { env: "ARBOR_AUTH_FAILURES_PER_ADDRESS", kind: "rate" },
  authFailuresPerIdentity: { env: "ARBOR_AUTH_FAILURES_PER_IDENTITY", kind: "rate" },
  maxConnections: { env: "ARBOR_MAX_CONNECTIONS", kind: "int" },
  maxHeaderBytes: { env: "ARBOR_MAX_HEADER_BYTES", kind: "int" },
  headersTimeoutMs: { env: "ARBOR_HEADERS_TIMEOUT", kind: "duration" },
  requestTimeoutMs: { env: "ARBOR_REQUEST_TIMEOUT", kind: "duration" },
  idleTimeoutMs: { env: "ARBOR_IDLE_TIMEOUT", kind: "duration" },
  maxConcurrentStreams: { env: "ARBOR_MAX_CONCURRENT_STREAMS", kind: "int" },
  metricsAddress: { env: "ARBOR_METRICS_ADDRESS", kind: "string" },
  metricsToken: { env: "ARBOR_METRICS_TOKEN", kind: "string" },
};

/** A configuration value that cannot be used, with where it came from. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

/** Where values come from; each may be partial. Flags arrive already typed or as strings. */
export interface ConfigSources {
  flags?: Partial<Record<keyof Config, unknown>>;
  env?: Readonly<Record<string, string | undefined>>;
  /** Path of a YAML file whose keys are the Config keys; `ARBOR_CONFIG` names one too. */
  file?: string;
}

/** Resolves the configuration: flags win over the environment, which wins over the file. */
export function resolveConfig(sources: ConfigSources): Config {
  const env = sources.env ?? {};
  const filePath = sources.file ?? env.ARBOR_CONFIG;
  const file = filePath ? readConfigFile(filePath) : {};
  const out: Record<string, unknown> = { ...DEFAULT_CONFIG };
  for (const [key, setting] of Object.entries(SETTINGS) as [keyof Config, (typeof SETTINGS)[keyof Config]][]) {
    const candidates: [unknown, string][] = [
      [sources.flags?.[key], `--${kebab(key)}`],
      [env[setting.env], setting.env],
      [file[key], `${filePath}: ${key}`],
    ];
    for (const [raw, origin] of candidates) {
      if (raw === undefined || raw === "") continue;
      out[key] = convert(raw, setting.kind, origin);
      break;
    }
  }
  const config = out as unknown as Config;
  check(config);
  return config;
}

/** The base URL the server answers as. */
export function baseUrlOf(config: Config, boundPort?: number): string {
  const scheme = config.tlsCert !== undefined ? "https" : "http";
  return stripSlash(config.baseUrl ?? `${scheme}://localhost:${boundPort ?? config.port}`);
}

/** The token issuer URL ({auth_url}). */
export function issuerUrlOf(config: Config, boundPort?: number): string {
  return stripSlash(config.issuerUrl ?? baseUrlOf(config, boundPort));
}

/** The suffix of every error domain (`iam.<domain>`). */
export function errorDomainOf(config: Config, boundPort?: number): string {
  return config.domain ?? new URL(baseUrlOf(config, boundPort)).hostname;
}

function readConfigFile(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new ConfigError(`cannot read config file ${path}: ${(e as Error).message}`);
  }
  const parsed: unknown = parseYaml(text);
  if (parsed === null || parsed === undefined) return {};
  if (typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new ConfigError(`config file ${path} must hold a mapping of settings`);
  }
  for (const key of Object.keys(parsed)) {
    if (!(key in SETTINGS)) throw new ConfigError(`config file ${path}: unknown setting "${key}"`);
  }
  return parsed as Record<string, unknown>;
}

function convert(raw: unknown, kind: Kind, origin: string): unknown {
  const text = String(raw).trim();
  switch (kind) {
    case "int": {
      if (!/^\d+$/.test(text)) throw new ConfigError(`${origin}: "${text}" is not a non-negative integer`);
      return Number(text);
    }
    case "bool": {
      if (/^(true|1|yes|on)$/i.test(text)) return true;
      if (/^(false|0|no|off)$/i.test(text)) return false;
      throw new ConfigError(`${origin}: "${text}" is not true or false`);
    }
    case "url": {
      if (!URL.canParse(text) || !/^https?:$/.test(new URL(text).protocol)) {
        throw new ConfigError(`${origin}: "${text}" is not an http(s) URL`);
      }
      return stripSlash(text);
    }
    case "duration":
      return parseDuration(text, origin);
    case "string":
      return text;
    case "origins":
      return parseOrigins(raw, origin);
    case "addresses":
      try {
        return parseAddressRanges(listOf(raw)).entries;
      } catch (e) {
        throw new ConfigError(`${origin}: ${(e as Error).message}`);
      }
    case "rate": {
      const rate = parseRate(text);
      if (rate instanceof Error) throw new ConfigError(`${origin}: ${rate.message}`);
      return rate;
    }
  }
}

/** A comma-separated list (or a YAML list) of browser origins such as `https://app.example`, or `*`. */
function parseOrigins(raw: unknown, origin: string): string[] {
  const items = listOf(raw);
  for (const item of items) {
    if (item === "*") continue;
    const url = URL.canParse(item) ? new URL(item) : undefined;
    if (url === undefined || !/^https?:$/.test(url.protocol) || url.origin !== item.replace(/\/$/, "")) {
      throw new ConfigError(`${origin}: "${item}" is not an origin such as https://app.example (scheme, host and port only) or *`);
    }
  }
  return items.map((o) => o.replace(/\/$/, ""));
}

/** A comma-separated list, or a YAML list, without empty items. */
function listOf(raw: unknown): string[] {
  return (Array.isArray(raw) ? raw.map(String) : String(raw).split(",")).map((o) => o.trim()).filter((o) => o !== "");
}

/** Parses `30s`, `5m`, `12h`, `7d`, `250ms` or a bare number of milliseconds. */
export function parseDuration(text: string, origin = "duration"): number {
  const m = /^(\d+)(ms|s|m|h|d)?$/.exec(text.trim());
  if (!m) throw new ConfigError(`${origin}: "${text}" is not a duration such as 30s, 5m, 12h or 7d`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] ?? "ms"] ?? 1;
  return Number(m[1]) * unit;
}

function check(c: Config): void {
  if (c.port > 65535) throw new ConfigError(`port ${c.port} is out of range`);
  if (c.databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(c.databaseUrl)) {
    throw new ConfigError(`ARBOR_DATABASE_URL must be a postgres:// or postgresql:// URL (leave it unset for the embedded SQLite store)`);
  }
  if (c.databaseSchema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(c.databaseSchema)) {
    throw new ConfigError(`ARBOR_DATABASE_SCHEMA must be a plain lowercase identifier`);
  }
  if (c.databaseConnectTimeoutMs < 100 || c.databaseQueryTimeoutMs < 100) {
    throw new ConfigError("ARBOR_DATABASE_CONNECT_TIMEOUT and ARBOR_DATABASE_QUERY_TIMEOUT must be at least 100ms");
  }
  if (!(LOG_LEVELS as readonly string[]).includes(c.logLevel)) throw new ConfigError(`log level must be one of ${LOG_LEVELS.join(", ")}`);
  if (c.maxBodyBytes < 1024) throw new ConfigError(`the body size limit must be at least 1024 bytes`);
  if (c.keyRotationMs < 3_600_000) throw new ConfigError(`key rotation must be at least 1h`);
  if ((c.loginIssuer === undefined) !== (c.loginClientId === undefined)) {
    throw new ConfigError("ARBOR_LOGIN_ISSUER and ARBOR_LOGIN_CLIENT_ID go together: set both for a default login provider, or neither");
  }
  if (c.loginAttemptsPerAddress < 1 || c.loginAttemptsPerOrganization < 1) {
    throw new ConfigError("ARBOR_LOGIN_ATTEMPTS_PER_ADDRESS and ARBOR_LOGIN_ATTEMPTS_PER_ORGANIZATION must be at least 1");
  }
  if (c.registryHost !== undefined && !/^[A-Za-z0-9.-]+(:\d{1,5})?$/.test(c.registryHost)) {
    throw new ConfigError("ARBOR_REGISTRY_HOST must be a host name, optionally with :port (no scheme, no path)");
  }
  if ((c.tlsCert === undefined) !== (c.tlsKey === undefined)) {
    throw new ConfigError("ARBOR_TLS_CERT and ARBOR_TLS_KEY go together: set both to serve TLS, or neither");
  }
  if (c.advisoriesSyncIntervalMs < 60_000) throw new ConfigError("ARBOR_ADVISORIES_SYNC_INTERVAL must be at least 1m");
  if (c.advisoriesFeedMaxCursorAgeMs < 3_600_000) throw new ConfigError("ARBOR_ADVISORIES_FEED_MAX_CURSOR_AGE must be at least 1h");
  // A bare number is milliseconds: a retention of "90" meant as days must not empty the log.
  if (c.auditRetentionMs !== undefined && c.auditRetentionMs < 86_400_000)
    throw new ConfigError("ARBOR_AUDIT_RETENTION must be at least 1d (such as 90d)");
  if (c.eventsMaxAgeMs < 60_000 || c.eventsRetentionMs < 60_000)
    throw new ConfigError("ARBOR_EVENTS_MAX_AGE and ARBOR_EVENTS_RETENTION must be at least 1m");
  if (c.eventsConcurrency < 1 || c.eventsConcurrency > 1_000) throw new ConfigError("ARBOR_EVENTS_CONCURRENCY must be from 1 to 1000");
  if (c.eventsTimeoutMs < 100 || c.eventsTimeoutMs > 300_000) throw new ConfigError("ARBOR_EVENTS_TIMEOUT must be from 100ms to 5m");
  if (c.maxHeaderBytes < 1024 || c.maxHeaderBytes > 1_048_576) throw new ConfigError("ARBOR_MAX_HEADER_BYTES must be from 1024 to 1048576");
  if (c.headersTimeoutMs < 1_000 || c.requestTimeoutMs < c.headersTimeoutMs) {
    throw new ConfigError("ARBOR_HEADERS_TIMEOUT must be at least 1s, and ARBOR_REQUEST_TIMEOUT at least as long");
  }
  if (c.metricsAddress !== undefined && parseListenAddress(c.metricsAddress) === undefined) {
    throw new ConfigError(`ARBOR_METRICS_ADDRESS must be host:port (such as 127.0.0.1:9464), [v6]:port or :port`);
  }
  if (c.metricsToken !== undefined && c.metricsToken.length < 16)
    throw new ConfigError("ARBOR_METRICS_TOKEN must be at least 16 characters");
  if (c.idleTimeoutMs < 100) throw new ConfigError("ARBOR_IDLE_TIMEOUT must be at least 100ms");
  if (c.maxConcurrentStreams < 1 || c.maxConcurrentStreams > 10_000)
    throw new ConfigError("ARBOR_MAX_CONCURRENT_STREAMS must be from 1 to 10000");
  if (c.secretsKey !== undefined) {
    try {
      parseSecretKeys(c.secretsKey, "ARBOR_SECRETS_KEY");
    } catch (e) {
      throw new ConfigError((e as Error).message);
    }
  }
}

/** `host:port`, `[v6]:port` or `:port` (host undefined: every interface); undefined when it is none of these. */
export function parseListenAddress(address: string): { host: string | undefined; port: number } | undefined {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(address.trim());
  if (m === null || Number(m[3]) > 65535) return undefined;
  const host = m[1] ?? m[2];
  return { host: host === "" ? undefined : host, port: Number(m[3]) };
}

function kebab(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

function stripSlash(url: string): string {
  return url.replace(/\/+$/, "");
}
