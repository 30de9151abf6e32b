/**
 * What services are built from: the store, time, randomness and page tokens, all injected.
 */
import type { TokenExchange } from "../auth/exchange.js";
import type { Clock } from "../domain/clock.js";
import type { PageTokens } from "../domain/page-token.js";
import type { IdSource } from "../domain/uid.js";
import type { Store } from "../store/store.js";

/** Settings that change what services accept. */
export interface ServiceSettings {
  /** Whether http:// issuers on loopback are accepted (tests, local development). */
  allowHttpLoopbackIssuers: boolean;
  /** Whether issuers on private addresses are accepted (ARBOR_ALLOW_PRIVATE_ISSUERS). */
  allowPrivateIssuers: boolean;
  /** Whether events are on (ARBOR_EVENTS): off, changes write no CloudEvent and subscriptions cannot be created or replayed. */
  events: boolean;
  /** Whether http:// event sinks on loopback (and loopback addresses at all) are accepted (ARBOR_ALLOW_HTTP_LOOPBACK_SINKS). */
  allowHttpLoopbackSinks: boolean;
  /** Whether event sinks on private addresses are accepted (ARBOR_ALLOW_PRIVATE_SINKS). */
  allowPrivateSinks: boolean;
}

/** The dependencies every service takes. */
export interface ServiceDeps {
  store: Store;
  clock: Clock;
  ids: IdSource;
  pageTokens: PageTokens;
  settings: ServiceSettings;
  /** The token exchange: ExchangeToken, and the checks the explain call shows. */
  exchange: TokenExchange;
}
