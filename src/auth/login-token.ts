/**
 * People's login (DESIGN 1.7), the CLI's half: `POST {auth_url}/oauth/token` redeems Arbor's
 * one-time code with the CLI's PKCE verifier, a headless login's device code (device-poll.ts),
 * or a refresh token (rotating it), for an API token and a new refresh token; `POST {auth_url}/oauth/revoke` ends a login (logout).
 */
import type { Clock } from "../domain/clock.js";
import { invalidArgument, unauthenticated } from "../domain/errors.js";
import { pkceMatches } from "../domain/login-rules.js";
import type { Store } from "../store/store.js";
import type { UpstreamActor } from "../domain/login.js";
import { DEVICE_CODE_GRANT, pollDevice } from "./device-poll.js";
import { secretHash } from "./login-secrets.js";
import type { RefreshTokens } from "./refresh-tokens.js";
import type { Tokens } from "./tokens.js";

/** The answer of the token endpoint. */
export interface TokenResponse {
  access_token: string;
  token_type: "Bearer";
  /** Seconds the access token is valid for. */
  expires_in: number;
  /** When the access token expires, RFC 3339. */
  expiry: string;
  refresh_token: string;
}

/** What the endpoint is built from. */
export interface LoginTokenDeps {
  store: Store;
  clock: Clock;
  tokens: Tokens;
  refresh: RefreshTokens;
  /** The audiences API tokens may be issued for: {base_url} (the default) first, then {registry_host}. */
  audiences: () => string[];
}

/** The token and revocation endpoints. */
export class LoginTokenEndpoint {
  readonly #deps: LoginTokenDeps;

  constructor(deps: LoginTokenDeps) {
    this.#deps = deps;
  }

  /**
   * Answers a token request. INVALID_ARGUMENT naming the parameter for a missing or malformed
   * one; UNAUTHENTICATED for a code or refresh token that is not (or no longer) good.
   */
  async token(params: URLSearchParams): Promise<TokenResponse> {
    const grantType = params.get("grant_type") ?? "";
    const audiences = this.#deps.audiences();
    const audience = params.get("audience") || (audiences[0] as string);
    if (!audiences.includes(audience)) throw invalidArgument("audience", `must be one of ${audiences.join(", ")}`);
    switch (grantType) {
      case "authorization_code":
        return this.#redeemCode(params, audience);
      case DEVICE_CODE_GRANT: {
        const { identityUid, actor } = await pollDevice(this.#deps, required(params, "device_code"));
        return this.#answer(identityUid, audience, actor, await this.#deps.refresh.start(identityUid, actor));
      }
      case "refresh_token": {
        const { family, token } = await this.#deps.refresh.rotate(required(params, "refresh_token"));
        return this.#answer(family.identityUid, audience, family.actor, token);
      }
      default:
        throw invalidArgument("grant_type", `must be authorization_code, ${DEVICE_CODE_GRANT} or refresh_token`);
    }
  }

  /** Revokes the login a refresh token belongs to; succeeds for an unknown token too (RFC 7009). */
  async revoke(params: URLSearchParams): Promise<void> {
    await this.#deps.refresh.revoke(required(params, "token"));
  }

  async #redeemCode(params: URLSearchParams, audience: string): Promise<TokenResponse> {
    const code = required(params, "code");
    const verifier = required(params, "code_verifier");
    const redirectUri = required(params, "redirect_uri");
    // Taken before it is checked: a code presented with a wrong verifier is spent all the same.
    const login = await this.#deps.store.logins.takeCode(secretHash(code), this.#deps.clock.now());
    if (login === undefined) throw unauthenticated("LOGIN_CODE_INVALID");
    if (login.redirectUri !== redirectUri) throw unauthenticated("LOGIN_REDIRECT_URI");
    if (!pkceMatches(verifier, login.codeChallenge)) throw unauthenticated("LOGIN_CODE_VERIFIER");
    const refreshToken = await this.#deps.refresh.start(login.identityUid, login.actor);
    return this.#answer(login.identityUid, audience, login.actor, refreshToken);
  }

  async #answer(identityUid: string, audience: string, actor: UpstreamActor, refreshToken: string): Promise<TokenResponse> {
    const { token, expiry } = await this.#deps.tokens.issue(identityUid, audience, actor);
    return {
      access_token: token,
      token_type: "Bearer",
      expires_in: Math.max(0, Math.ceil((expiry - this.#deps.clock.now()) / 1000)),
      expiry: new Date(expiry).toISOString(),
      refresh_token: refreshToken,
    };
  }
}

function required(params: URLSearchParams, name: string): string {
  const value = params.get(name) ?? "";
  if (value === "") throw invalidArgument(name, "is required");
  return value;
}
