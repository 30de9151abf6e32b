/**
 * The registry's two ways into Arbor (DESIGN 1.9): the Docker token endpoint at
 * `{auth_url}/registry/token` and the notifications endpoint at `{base_url}/registry/notifications`.
 * docs/registry.md shows how Distribution is configured to use them.
 */
import type { Logger } from "pino";
import { registryNotificationsSecret, registrySigningKey } from "../../auth/registry-keys.js";
import { registryTokenIssuer, RegistryTokens } from "../../auth/registry-tokens.js";
import type { Tokens } from "../../auth/tokens.js";
import type { Clock } from "../../domain/clock.js";
import type { Authorizer } from "../../auth/authorizer.js";
import type { RegistryIndex } from "../../services/registry/registry-index.js";
import type { SettingsStore } from "../../store/settings-store.js";
import type { RequestLimits } from "../http/request-limits.js";
import { serveRegistryNotifications } from "./registry-notifications.js";
import { serveRegistryToken } from "./registry-token.js";
import type { FixedHandler, FixedRoute, FixedRoutes } from "../http/fixed-routes.js";
import { pathOfUrl } from "../http/path-prefix.js";

/** The path of the notifications endpoint, below {base_url}. */
export const NOTIFICATIONS_PATH = "/registry/notifications";

/** The token endpoint's route on the port (a proxy's prefix taken off, http/path-prefix.ts). */
const TOKEN_ROUTE = "/registry/token";

/** Where clients find the token endpoint: the issuer URL's path plus `/registry/token`. */
export function registryTokenPath(issuerUrl: string): string {
  return `${pathOfUrl(issuerUrl)}${TOKEN_ROUTE}`;
}

/** The registry endpoints: {auth_url}/registry/token and {base_url}/registry/notifications. */
export interface RegistryEndpoints {
  /** The endpoints' routes, without the issuer's or base URL's path. */
  routes(): FixedRoutes;
}

/** What the endpoints are built from. */
export interface RegistryEndpointsDeps {
  settings: SettingsStore;
  clock: Clock;
  tokens: Tokens;
  authorizer: Pick<Authorizer, "callerPermissions">;
  index: RegistryIndex;
  /** {registry_host}, when a registry is configured. */
  registryHost: string | undefined;
  /** {auth_url}: its path prefixes the token endpoint; registry tokens are issued in its name. */
  issuer: () => string;
  logger: Logger;
  maxBodyBytes: number;
  /** The throttle of refused credentials at the token endpoint. */
  throttle: Pick<RequestLimits, "authAllowed" | "authFailed">;
}

/** Creates the endpoints; the signing key and the secret are read (or created) on first use. */
export function createRegistryEndpoints(deps: RegistryEndpointsDeps): RegistryEndpoints {
  const token = {
    tokens: deps.tokens,
    authorizer: deps.authorizer,
    index: deps.index,
    registryHost: deps.registryHost,
    throttle: deps.throttle,
    registryTokens: new RegistryTokens({
      key: cached(() => registrySigningKey(deps.settings, deps.clock)),
      clock: deps.clock,
      issuer: () => registryTokenIssuer(deps.issuer()),
    }),
  };
  const notifications = {
    index: deps.index,
    secret: cached(() => registryNotificationsSecret(deps.settings)),
    logger: deps.logger,
    maxBodyBytes: deps.maxBodyBytes,
  };
  return {
    routes() {
      const tokenEndpoint: FixedHandler = (req, res, record) => serveRegistryToken(token, req, res, record);
      return new Map<string, FixedRoute>([
        [TOKEN_ROUTE, { GET: tokenEndpoint, POST: tokenEndpoint }],
        [NOTIFICATIONS_PATH, { POST: (req, res, record) => serveRegistryNotifications(notifications, req, res, record) }],
      ]);
    },
  };
}

/** get's result, kept once it resolves; a failure (the store was down) is tried again on the next call. */
function cached<T>(get: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | undefined;
  return () =>
    (value ??= get().catch((e: unknown) => {
      value = undefined;
      throw e;
    }));
}
