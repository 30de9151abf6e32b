/**
 * Assembles a running Arbor: store, keys, services, transports and the listener, from one
 * resolved Config.
 */
import { randomBytes, X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import type { Logger } from "pino";
import { TokenExchange } from "../auth/exchange.js";
import { createIssuerFetch, systemResolve, type Resolve } from "../auth/issuer-fetch.js";
import { KeyRing } from "../auth/key-ring.js";
import { isLoginIssuer } from "../auth/login-provider.js";
import { Tokens } from "../auth/tokens.js";
import { UpstreamVerifier } from "../auth/upstream-verifier.js";
import { baseUrlOf, ConfigError, type Config } from "../config.js";
import { systemClock, type Clock } from "../domain/clock.js";
import { parseAddressRanges } from "../domain/address-ranges.js";
import { PageTokens } from "../domain/page-token.js";
import { BUILTIN_ROLES } from "../domain/roles.js";
import type { IdSource } from "../domain/uid.js";
import { startConfiguredSync } from "../osv/feed-sync.js";
import { startAuditRetention } from "../services/audit/audit-retention.js";
import { startPeriodic } from "../domain/periodic.js";
import { LIST_CHANGES_PRUNE_INTERVAL_MS } from "../store/list-changes.js";
import { createAuditTrail } from "../services/audit/audit-trail.js";
import { withEvents } from "../services/events/event-outbox.js";
import { Authorizer } from "../auth/authorizer.js";
import { createEscalationGuard } from "../services/iam/escalation-guard.js";
import type { ServiceDeps } from "../services/deps.js";
import { createRegistryIndex } from "../services/registry/registry-index.js";
import { createServices } from "../services/routes.js";
import { createStore, STATISTICS_INTERVAL_MS } from "../store/create-store.js";
import type { Store } from "../store/store.js";
import { createClientAddress } from "./http/client-address.js";
import { ACCEPT_COMPRESSION, createConnectHandlers } from "./connect/connect-handlers.js";
import { createGrpcUnary } from "./connect/grpc-unary.js";
import { createCors } from "./http/cors.js";
import { createHttpHandler } from "./http/http-handler.js";
import { createInvoker } from "./invoker.js";
import { createListener, DEFAULT_LISTENER_OPTIONS, type ListenerOptions } from "./http/listener.js";
import { createServerUrls } from "./server-urls.js";
import { createLoginEndpoints, defaultLoginProviderOf } from "./oauth/login-setup.js";
import { createMetrics } from "./metrics/metrics.js";
import { startMetricsListener, type MetricsListener } from "./metrics/metrics-endpoint.js";
import { createRegistryEndpoints } from "./registry/registry-endpoints.js";
import { createOpenApiDocument } from "./openapi/openapi-document.js";
import { toApiJson } from "./rest/json.js";
import { createRouteTable } from "./rest/route-table.js";
import { createRequestLimits } from "./http/request-limits.js";
import { secureDataDir, type Notice } from "./data-dir.js";
import { loadSecretBox, resealStore } from "./secrets-key.js";
import { recordServedUrls } from "./served-urls.js";
import { createConsole } from "./console/console-site.js";
import { startEvents } from "./events-setup.js";
import type { Delivery } from "../services/events/event-delivery.js";

export interface ArborServer {
  /** {base_url}. */
  readonly url: string;
  /** The bound port. */
  readonly port: number;
  /** The bound port of the metrics listener (ARBOR_METRICS_ADDRESS), when there is one. */
  readonly metricsPort: number | undefined;
  /** The store, for admin operations in the same process (tests, bootstrap). */
  readonly store: Store;
  /** Token issuance, for admin operations in the same process. */
  readonly tokens: Tokens;
  /** The service dependencies, for admin operations in the same process. */
  readonly deps: ServiceDeps;
  /** Graceful shutdown: stop accepting, finish in-flight requests, close the store. */
  close(): Promise<void>;
  /**
   * Reads the TLS certificate and key files again and serves new connections with them (SIGHUP);
   * undefined when the server serves cleartext. A pair that cannot be read or used throws
   * ConfigError and the current one stays.
   */
  reloadTls(): TlsCertificateInfo | undefined;
}

/** The certificate now served, as the log reports it. */
export interface TlsCertificateInfo {
  subject: string;
  notAfter: string;
  fingerprint256: string;
}

/** Injected time and randomness (tests make them exact). */
export interface ServerEnvironment {
  logger: Logger;
  clock?: Clock;
  ids?: IdSource;
  /** How issuers' host names are resolved (tests); the system resolver by default. */
  resolve?: Resolve;
}

/** The random source of a real server. */
export const cryptoIds: IdSource = pooledRandomIds(4_096);

/**
 * Ids from a pool of CSPRNG bytes drawn `poolBytes` at a time, as node:crypto's randomUUID caches
 * its entropy: a create takes several ids, and a `randomBytes` call for each was 4 % of a create's
 * CPU profile (S3), where slicing a pool is a copy. Each byte serves one id only and is zeroed as
 * it is taken, so the pool holds no id already given out; a request larger than the pool draws
 * its own bytes.
 */
export function pooledRandomIds(poolBytes: number): IdSource {
  let pool = Buffer.alloc(0);
  let used = 0;
  return {
    hex(bytes) {
      if (bytes > poolBytes) return randomBytes(bytes).toString("hex");
      if (used + bytes > pool.length) {
        pool = randomBytes(poolBytes);
        used = 0;
      }
      const hex = pool.toString("hex", used, used + bytes);
      pool.fill(0, used, used + bytes);
      used += bytes;
      return hex;
    },
  };
}

/** The store and the pieces built directly on it, shared by the server and the admin commands. */
export interface Core {
  store: Store;
  deps: ServiceDeps;
  keys: KeyRing;
  tokens: Tokens;
  /** Verifies upstream OIDC tokens, with one cache of issuers' documents for the exchange and login. */
  verifier: UpstreamVerifier;
  /** The fetch for upstream issuers' documents and endpoints: only to addresses the configuration allows. */
  issuerFetch: typeof fetch;
  /** The audiences Arbor issues tokens for: {base_url}, then {registry_host} when configured. */
  audiences: () => string[];
}

/**
 * Opens the store and builds the core; `issuer` gives {auth_url}, `baseUrl` {base_url}; `notice`
 * reports what start changed (modes tightened, secrets sealed).
 */
export async function openCore(
  config: Config,
  clock: Clock,
  ids: IdSource,
  issuer: () => string,
  baseUrl: () => string = () => baseUrlOf(config),
  resolve: Resolve = systemResolve,
  notice: Notice = () => undefined,
): Promise<Core> {
  await secureDataDir(config.dataDir, notice);
  const secrets = await loadSecretBox(config);
  const store = await createStore({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    schema: config.databaseSchema,
    secrets,
    connectTimeoutMs: config.databaseConnectTimeoutMs,
    queryTimeoutMs: config.databaseQueryTimeoutMs,
    preparedStatements: config.databasePreparedStatements,
    migrate: config.migrate,
  });
  try {
    // Secrets written before sealing existed, or under a key since rotated out of first place.
    await resealStore(store, config, notice);
    const secret = await store.settings.getOrCreate("page_token_secret", () => randomBytes(32).toString("base64"));
    const pageTokens = new PageTokens(Buffer.from(secret, "base64"), clock);
    // The built-in roles' rows follow the code (names, descriptions, roles added in a release).
    const builtins = [...BUILTIN_ROLES.values()].map(({ uid, name, description }) => ({ uid, name, description }));
    await store.roles.syncBuiltins(builtins, clock.now());
    const keys = new KeyRing(store.keys, clock, { rotationMs: config.keyRotationMs });
    await keys.signingKey();
    const tokens = new Tokens(keys, clock, issuer);
    const settings = {
      allowHttpLoopbackIssuers: config.allowHttpLoopbackIssuers,
      allowPrivateIssuers: config.allowPrivateIssuers,
      events: config.events,
      allowHttpLoopbackSinks: config.allowHttpLoopbackSinks,
      allowPrivateSinks: config.allowPrivateSinks,
    };
    const issuerFetch = createIssuerFetch(
      { allowLoopback: config.allowHttpLoopbackIssuers, allowPrivate: config.allowPrivateIssuers },
      resolve,
    );
    const verifier = new UpstreamVerifier({ allowHttpLoopback: config.allowHttpLoopbackIssuers, clock }, issuerFetch);
    const audiences = () => [baseUrl(), ...(config.registryHost !== undefined ? [config.registryHost] : [])];
    const defaultLogin = defaultLoginProviderOf(config);
    const isPersonIssuer = (iss: string) => isLoginIssuer(store, defaultLogin, iss);
    const exchange = new TokenExchange({
      identities: store.identities,
      tokens,
      verifier,
      clock,
      authUrl: issuer,
      audiences,
      isLoginIssuer: isPersonIssuer,
    });
    return { store, deps: { store, clock, ids, pageTokens, settings, exchange }, keys, tokens, verifier, issuerFetch, audiences };
  } catch (e) {
    await store.close();
    throw e;
  }
}

/** Starts a server and resolves once it listens. */
export async function startServer(config: Config, env: ServerEnvironment): Promise<ArborServer> {
  const clock = env.clock ?? systemClock;
  const urls = createServerUrls(config);
  const core = await openCore(config, clock, env.ids ?? cryptoIds, urls.issuer, urls.base, env.resolve, (message, fields) =>
    env.logger.warn(fields, message),
  );
  const services = createServices(core.deps);
  const limits = createRequestLimits(config, clock);
  // One for every way in, so what it remembers serves them all.
  const authorizer = new Authorizer(core.store.bindings, core.store.identities, { allowOrgCreation: config.allowOrgCreation });
  // Started once the server listens (the issuer needs the port); a change committed before wakes nothing.
  // eslint-disable-next-line prefer-const -- the invoker's commits wake it
  let events: Delivery | undefined;
  const invoker = createInvoker({
    services,
    tokens: core.tokens,
    authorizer,
    audience: urls.base,
    // ARBOR_EVENTS=off: the audit event alone, no CloudEvent in the outbox.
    audit: config.events ? withEvents(createAuditTrail(core.deps, toApiJson), core.store) : createAuditTrail(core.deps, toApiJson),
    atomically: async (fn) => {
      const result = await core.store.atomically(fn);
      events?.nudge();
      return result;
    },
    guard: createEscalationGuard(core.store),
    limits,
  });
  const metrics = createMetrics();
  // Set by close(): the handler answers /readyz 503 and ends HTTP/1.1 keep-alive from then on.
  let closing: Promise<void> | undefined;
  const routes = createRouteTable(services.map((s) => s.service));
  const handler = createHttpHandler({
    limits,
    connect: createConnectHandlers({ services, invoker, domain: urls.domain(), readMaxBytes: config.maxBodyBytes }),
    grpcUnary: createGrpcUnary({
      invoker,
      domain: urls.domain(),
      readMaxBytes: config.maxBodyBytes,
      acceptCompression: ACCEPT_COMPRESSION,
    }),
    routes,
    invoker,
    store: core.store,
    keys: core.keys,
    exchange: core.deps.exchange,
    oauth: createLoginEndpoints(config, core, { issuer: urls.issuer, base: urls.base, domain: urls.domain }, limits),
    console: createConsole({ base: urls.base, issuer: urls.issuer, registryHost: config.registryHost }),
    metrics,
    logger: env.logger,
    domain: urls.domain,
    issuer: urls.issuer,
    base: urls.base,
    maxBodyBytes: config.maxBodyBytes,
    draining: () => closing !== undefined,
    registry: createRegistryEndpoints({
      settings: core.store.settings,
      clock,
      tokens: core.tokens,
      authorizer,
      index: createRegistryIndex(core.deps),
      registryHost: config.registryHost,
      issuer: urls.issuer,
      logger: env.logger,
      maxBodyBytes: config.maxBodyBytes,
      throttle: limits,
    }),
    cors: createCors(config.corsOrigins),
    metricsToken: config.metricsToken,
    clientAddress: createClientAddress(parseAddressRanges(config.trustedProxies)),
    openapi: memoize(() => createOpenApiDocument({ routes, baseUrl: urls.base(), issuerUrl: urls.issuer() })),
  });
  const listener = createListener(handler, {
    ...DEFAULT_LISTENER_OPTIONS,
    headersTimeoutMs: config.headersTimeoutMs,
    requestTimeoutMs: config.requestTimeoutMs,
    keepAliveTimeoutMs: config.idleTimeoutMs,
    maxConcurrentStreams: config.maxConcurrentStreams,
    maxConnections: config.maxConnections,
    maxHeaderBytes: config.maxHeaderBytes,
    ...tlsOf(config),
  });
  let metricsListener: MetricsListener | undefined;
  try {
    urls.bound((await listener.listen(config.port, config.host)).port);
    if (config.metricsAddress !== undefined)
      metricsListener = await startMetricsListener(config.metricsAddress, metrics, config.metricsToken);
    // Only now is the port, and so the default issuer, known.
    await recordServedUrls(core.store.settings, { issuer: urls.issuer(), baseUrl: urls.base() });
  } catch (e) {
    await listener.close(0);
    await core.store.close();
    throw e;
  }
  const sync = startConfiguredSync(config, core.store, env.logger, clock, (r) =>
    metrics.feedSynced(r.mode, r.fetched.documents, r.fetched.bytes),
  );
  const retention = startAuditRetention(core.store.audit, clock, config.auditRetentionMs, env.logger, core.store.leads);
  events = startEvents({
    config,
    store: core.store,
    keys: core.keys,
    clock,
    authorizer,
    issuer: urls.issuer,
    baseUrl: urls.base,
    ...(env.resolve !== undefined && { resolve: env.resolve }),
    logger: env.logger,
  });
  const pruning = startPeriodic(
    () => core.store.pruneListChanges(),
    LIST_CHANGES_PRUNE_INTERVAL_MS,
    (e) => env.logger.warn({ err: e }, "pruning the list change log failed; trying again at the next interval"),
    core.store.leads,
  );
  // At start too: a store that grew while no server ran, or one an older Arbor kept.
  const statistics = startPeriodic(
    async () => {
      const started = performance.now();
      const tables = await core.store.refreshPlannerStatistics();
      // Writes waited meanwhile: said, so that a pause in them can be told from a fault.
      if (tables.length > 0)
        env.logger.info({ tables, duration_ms: Math.round(performance.now() - started) }, "analyzed the query planner's statistics");
    },
    STATISTICS_INTERVAL_MS,
    (e) => env.logger.warn({ err: e }, "refreshing the query planner's statistics failed; trying again at the next interval"),
    core.store.leads,
  );
  return {
    url: urls.base(),
    port: urls.port,
    metricsPort: metricsListener?.port,
    store: core.store,
    tokens: core.tokens,
    deps: core.deps,
    reloadTls() {
      const pair = tlsOf(config).tls;
      if (pair === undefined) return undefined;
      try {
        listener.setTls(pair);
      } catch (e) {
        throw new ConfigError(`the TLS certificate ${config.tlsCert} and key ${config.tlsKey} cannot be used: ${(e as Error).message}`);
      }
      return describeCertificate(pair.cert);
    },
    close() {
      closing ??= (async () => {
        await listener.close(config.shutdownTimeoutMs);
        await metricsListener?.close();
        await sync?.stop();
        await events?.stop();
        await retention?.stop();
        await pruning.stop();
        await statistics.stop();
        await core.store.close();
      })();
      return closing;
    },
  };
}

/** A function computing its value once, on first use (the OpenAPI document needs the bound port). */
function memoize<T>(make: () => T): () => T {
  let value: { v: T } | undefined;
  return () => (value ??= { v: make() }).v;
}

/** What an operator checks after a reload: the first certificate of the chain, without its key. */
function describeCertificate(pem: Buffer): TlsCertificateInfo {
  const cert = new X509Certificate(pem);
  return { subject: cert.subject, notAfter: new Date(cert.validTo).toISOString(), fingerprint256: cert.fingerprint256 };
}

/** The TLS certificate and key the configuration names, read at start and again by reloadTls(). */
function tlsOf(config: Config): Pick<ListenerOptions, "tls"> {
  if (config.tlsCert === undefined || config.tlsKey === undefined) return {};
  const read = (path: string, what: string) => {
    try {
      return readFileSync(path);
    } catch (e) {
      throw new ConfigError(`cannot read the TLS ${what} ${path}: ${(e as Error).message}`);
    }
  };
  return { tls: { cert: read(config.tlsCert, "certificate"), key: read(config.tlsKey, "key") } };
}
