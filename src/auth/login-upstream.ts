/**
 * Arbor as an OpenID Connect client of a login provider: its endpoints from the discovery
 * document, the authorization request, and the code exchange at its token endpoint. Every
 * request is bounded in time and size (upstream-fetch.ts's policy): a provider is someone else's
 * server. ID tokens are verified by UpstreamVerifier, not here.
 */
import type { Clock } from "../domain/clock.js";
import { ApiError, Code, unauthenticated, unavailable } from "../domain/errors.js";
import { fetchJsonObject, isFetchableUrl, readBounded, type FetchPolicy } from "./upstream-fetch.js";

/** A provider's endpoints, from its discovery document. */
export interface LoginEndpoints {
  authorization: string;
  token: string;
  /** token_endpoint_auth_methods_supported; empty when the document does not say. */
  authMethods: string[];
}

/** What the authorization request carries besides the endpoint. */
export interface AuthorizationRequest {
  clientId: string;
  redirectUri: string;
  scopes: readonly string[];
  state: string;
  nonce: string;
  codeChallenge: string;
}

/** What the code exchange sends. */
export interface CodeExchange {
  code: string;
  redirectUri: string;
  clientId: string;
  /** Empty for a public client (PKCE alone). */
  clientSecret: string;
  codeVerifier: string;
}

export interface LoginUpstreamOptions {
  allowHttpLoopback: boolean;
  clock: Clock;
  /** Time limit of one request, body included; default 5 s. */
  fetchTimeoutMs?: number;
  /** Largest response accepted; default 256 KiB. */
  maxResponseBytes?: number;
}

/** How long a discovery document is kept. */
const ENDPOINTS_MAX_AGE_MS = 10 * 60_000;

/** Talks to login providers. */
export class LoginUpstream {
  readonly #policy: FetchPolicy;
  readonly #clock: Clock;
  readonly #fetch: typeof fetch;
  readonly #cache = new Map<string, { value: LoginEndpoints; fetchedAt: number }>();

  constructor(options: LoginUpstreamOptions, fetchImpl: typeof fetch = fetch) {
    this.#policy = {
      allowHttpLoopback: options.allowHttpLoopback,
      timeoutMs: options.fetchTimeoutMs ?? 5_000,
      maxBytes: options.maxResponseBytes ?? 256 * 1024,
    };
    this.#clock = options.clock;
    this.#fetch = fetchImpl;
  }

  /** The provider's endpoints (cached ten minutes); UNAVAILABLE when they cannot be learned. */
  async endpoints(issuer: string): Promise<LoginEndpoints> {
    const cached = this.#cache.get(issuer);
    if (cached !== undefined && this.#clock.now() - cached.fetchedAt < ENDPOINTS_MAX_AGE_MS) return cached.value;
    if (!isFetchableUrl(issuer, this.#policy.allowHttpLoopback)) throw providerProblem("its issuer is not an https URL");
    let doc: Record<string, unknown>;
    try {
      doc = await fetchJsonObject(`${issuer.replace(/\/$/, "")}/.well-known/openid-configuration`, this.#policy, this.#fetch);
    } catch (e) {
      throw unavailable("the identity provider cannot be reached; try again later", e);
    }
    if (doc.issuer !== issuer) throw providerProblem("its discovery document names another issuer");
    const authorization = this.#endpoint(doc.authorization_endpoint, "authorization_endpoint");
    // Arbor sends browsers there from its own domain: only to the issuer's origin, never to
    // wherever a document says, so /oauth/login cannot be made to redirect anywhere else.
    if (new URL(authorization).origin !== new URL(issuer).origin)
      throw providerProblem("its authorization_endpoint is not at the issuer's origin");
    const value = {
      authorization,
      token: this.#endpoint(doc.token_endpoint, "token_endpoint"),
      authMethods: Array.isArray(doc.token_endpoint_auth_methods_supported)
        ? doc.token_endpoint_auth_methods_supported.filter((m) => typeof m === "string")
        : [],
    };
    this.#cache.delete(issuer);
    this.#cache.set(issuer, { value, fetchedAt: this.#clock.now() });
    if (this.#cache.size > 256) this.#cache.delete(this.#cache.keys().next().value as string);
    return value;
  }

  /** The URL that sends a browser to the provider's login (authorization code flow, PKCE S256). */
  authorizationUrl(endpoints: LoginEndpoints, req: AuthorizationRequest): string {
    const url = new URL(endpoints.authorization);
    const params = {
      response_type: "code",
      client_id: req.clientId,
      redirect_uri: req.redirectUri,
      scope: req.scopes.join(" "),
      state: req.state,
      nonce: req.nonce,
      code_challenge: req.codeChallenge,
      code_challenge_method: "S256",
    };
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    return url.href;
  }

  /**
   * Exchanges an authorization code for the provider's ID token. UNAUTHENTICATED when the
   * provider refuses the code, UNAVAILABLE when it cannot be reached or answers nonsense.
   */
  async exchangeCode(endpoints: LoginEndpoints, exchange: CodeExchange): Promise<string> {
    const form = new URLSearchParams({
      grant_type: "authorization_code",
      code: exchange.code,
      redirect_uri: exchange.redirectUri,
      code_verifier: exchange.codeVerifier,
    });
    const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded", accept: "application/json" };
    if (exchange.clientSecret === "") {
      form.set("client_id", exchange.clientId);
    } else if (endpoints.authMethods.length === 0 || endpoints.authMethods.includes("client_secret_basic")) {
      // RFC 6749, 2.3.1: both parts form-encoded before base64.
      const basic = `${encodeURIComponent(exchange.clientId)}:${encodeURIComponent(exchange.clientSecret)}`;
      headers.authorization = `Basic ${Buffer.from(basic).toString("base64")}`;
    } else {
      form.set("client_id", exchange.clientId);
      form.set("client_secret", exchange.clientSecret);
    }
    const { status, body } = await this.#post(endpoints.token, form, headers);
    if (status === 200 && typeof body?.id_token === "string") return body.id_token;
    if (status === 200) throw providerProblem("its token response has no id_token");
    if (status >= 400 && status < 500 && typeof body?.error === "string") {
      throw unauthenticated("LOGIN_GRANT_REFUSED", { error: body.error.slice(0, 64).replace(/[^\x20-\x7e]/g, "?") });
    }
    throw unavailable(`the identity provider's token endpoint answered ${status}; try again later`);
  }

  #endpoint(value: unknown, name: string): string {
    if (typeof value !== "string" || !isFetchableUrl(value, this.#policy.allowHttpLoopback)) {
      throw providerProblem(`its discovery document has no usable ${name}`);
    }
    return value;
  }

  async #post(
    url: string,
    form: URLSearchParams,
    headers: Record<string, string>,
  ): Promise<{ status: number; body: Record<string, unknown> | undefined }> {
    let res: Response;
    let text: string;
    try {
      res = await this.#fetch(url, {
        method: "POST",
        body: form,
        headers,
        redirect: "error",
        signal: AbortSignal.timeout(this.#policy.timeoutMs),
      });
      text = await readBounded(res, this.#policy.maxBytes, url);
    } catch (e) {
      throw unavailable("the identity provider cannot be reached; try again later", e);
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    const object = typeof body === "object" && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
    return { status: res.status, body: object };
  }
}

/** A provider that is set up wrongly: the people logging in cannot fix it, its administrators can. */
function providerProblem(what: string): ApiError {
  return new ApiError(Code.FAILED_PRECONDITION, `Precondition failed: the identity provider cannot be used: ${what}`, {
    preconditionViolations: [{ type: "IDENTITY_PROVIDER", subject: "", description: `the identity provider cannot be used: ${what}` }],
  });
}
