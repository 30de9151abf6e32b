/**
 * Builds the login endpoints from the configuration and the core: the browser and device flows
 * (with the default login provider, if configured), the token endpoint and the refresh tokens
 * behind it.
 */
import { DeviceFlow } from "../../auth/device-flow.js";
import { LoginFlow } from "../../auth/login-flow.js";
import type { DefaultLoginProvider } from "../../auth/login-provider.js";
import { LoginTokenEndpoint } from "../../auth/login-token.js";
import { LoginUpstream } from "../../auth/login-upstream.js";
import { RefreshTokens } from "../../auth/refresh-tokens.js";
import type { Config } from "../../config.js";
import { consoleCallbackUrl } from "../console/console-site.js";
import { createOAuthEndpoints, type OAuthEndpoints } from "./oauth-endpoints.js";
import type { RequestLimits } from "../http/request-limits.js";
import type { Core } from "../server.js";

/** Where the server is: known once it listens. */
export interface ServerUrls {
  /** {auth_url}. */
  issuer: () => string;
  /** {base_url}: the web console's callback is under it. */
  base: () => string;
  /** The suffix of error domains. */
  domain: () => string;
}

/** The server's default login provider, when ARBOR_LOGIN_ISSUER and ARBOR_LOGIN_CLIENT_ID are set. */
export function defaultLoginProviderOf(
  config: Pick<Config, "loginIssuer" | "loginClientId" | "loginClientSecret">,
): DefaultLoginProvider | undefined {
  return config.loginIssuer !== undefined && config.loginClientId !== undefined
    ? { issuer: config.loginIssuer, clientId: config.loginClientId, clientSecret: config.loginClientSecret ?? "" }
    : undefined;
}

export function createLoginEndpoints(config: Config, core: Core, urls: ServerUrls, limits: RequestLimits): OAuthEndpoints {
  const { store, deps, tokens, verifier, issuerFetch, audiences } = core;
  const { clock, ids } = deps;
  const allowHttpLoopback = config.allowHttpLoopbackIssuers;
  const defaultProvider = defaultLoginProviderOf(config);
  const begin = {
    store,
    clock,
    ids,
    upstream: new LoginUpstream({ allowHttpLoopback, clock }, issuerFetch),
    issuer: urls.issuer,
    defaultProvider,
    limits: { perAddress: config.loginAttemptsPerAddress, perOrganization: config.loginAttemptsPerOrganization },
  };
  const flow = new LoginFlow({ ...begin, verifier, consoleRedirectUri: () => consoleCallbackUrl(urls.base()) });
  const device = new DeviceFlow(begin);
  const token = new LoginTokenEndpoint({
    store,
    clock,
    tokens,
    refresh: new RefreshTokens(store.refreshTokens, clock, ids),
    audiences,
  });
  return createOAuthEndpoints({ flow, device, token, ids, issuer: urls.issuer, domain: urls.domain, throttle: limits });
}
