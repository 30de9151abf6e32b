/**
 * The token exchange (DESIGN 1.7): an upstream OIDC token, an identity uid and an audience in; an
 * Arbor token for that identity out. The same checks serve the explain call, which shows an
 * operator every outcome and issues nothing. Without an identity uid the token is matched to a
 * registered person instead (person-exchange.ts).
 *
 * What an anonymous caller is told: which check failed (the issue's and DESIGN 1.7's rule), never
 * what the identity expects: no issuer, subject, audience, claim name or value of its
 * configuration. Anyone can make a token with any `iss` (unsigned, or signed with their own key),
 * so the identity, issuer, expirationTime and signature checks answer alike: had the issuer
 * check a message of its own, a forged token would tell which issuer an identity trusts, and a
 * missing identity which uids exist. Subject, audience and claim failures keep theirs: they are
 * reached only by a token the trusted issuer really signed. The failed check's own reason (with a
 * claim's name) travels as the error's cause, for the server log and the explain call.
 */
import type { Clock } from "../domain/clock.js";
import { Code, isApiError, unauthenticated, UnauthenticatedError } from "../domain/errors.js";
import type { Relationship } from "../domain/identities.js";
import { isUid } from "../domain/uid.js";
import { reasonSentence, type UnauthenticatedReason } from "../domain/unauthenticated-reasons.js";
import type { IdentityStore } from "../store/identity-store.js";
import { claimChecks, exchangeCheck, failedCheck, isAssumable, issuerCheck, passedCheck, type ExchangeCheck } from "./claim-match.js";
import { matchPerson } from "./person-exchange.js";
import type { IssuedToken, Tokens } from "./tokens.js";
import type { UpstreamVerifier, VerifiedUpstream } from "./upstream-verifier.js";

/** The answer for a missing identity, another issuer, expired static keys or a signature that does not verify. */
export const NOT_TRUSTED = reasonSentence("EXCHANGE_NOT_TRUSTED");
/** The checks whose failures answer NOT_TRUSTED: told apart, they would reveal the identity's issuer. */
const UNTOLD = new Set(["identity", "issuer", "expirationTime", "signature"]);
/** The answer for any custom claim: which claim the identity checks is its configuration. */
export const CLAIM_MISMATCH = reasonSentence("EXCHANGE_CLAIM_MISMATCH");

/** The reason told instead of a failed check's own, which would reveal the identity's configuration; undefined when its own may be told. */
function hidingReason(failed: Pick<ExchangeCheck, "check"> | undefined): UnauthenticatedReason | undefined {
  if (failed === undefined || UNTOLD.has(failed.check)) return "EXCHANGE_NOT_TRUSTED";
  if (failed.check.startsWith("claims.") || failed.check.startsWith("claimPatterns.")) return "EXCHANGE_CLAIM_MISMATCH";
  return undefined;
}

/** What an anonymous caller is told for a failed check: the check, never the identity's configuration. */
export function publicReason(failed: Pick<ExchangeCheck, "check" | "passed" | "reason"> | undefined): string {
  const hiding = hidingReason(failed);
  return hiding === undefined ? (failed?.reason ?? "") : reasonSentence(hiding);
}

/** What the exchange is built from. */
export interface TokenExchangeDeps {
  identities: Pick<IdentityStore, "get" | "touch">;
  tokens: Tokens;
  verifier: UpstreamVerifier;
  clock: Clock;
  /** {auth_url}: the audience a token must carry when its identity names none. */
  authUrl: () => string;
  /** The audiences Arbor issues tokens for: {base_url} first, then {registry_host} when configured. */
  audiences: () => readonly string[];
  /** Whether people log in through issuer: an organization's login provider's, or the default one's. */
  isLoginIssuer: (issuer: string) => Promise<boolean>;
}

/** One exchange request, as the endpoint received it. */
export interface ExchangeRequest {
  /** The upstream token (from Authorization: Bearer). */
  token: string;
  /** The requested audience (`aud`). */
  audience: string | undefined;
  /** The identity to assume (`identity`); none: the registered person the token names. */
  identity: string | undefined;
}

/** The outcome of the checks for one token and identity. */
export interface Evaluation {
  checks: ExchangeCheck[];
  /** True when every check passed. */
  passed: boolean;
  /** The verified token, when the signature was verified. */
  upstream: VerifiedUpstream | undefined;
}

/** Checks (GET|POST {auth_url}/sts/exchange) and issues Arbor tokens for workloads. */
export class TokenExchange {
  readonly #deps: TokenExchangeDeps;

  constructor(deps: TokenExchangeDeps) {
    this.#deps = deps;
  }

  /** The audience of API tokens, {base_url}: what the explain call assumes when none is given. */
  get defaultAudience(): string {
    return this.#deps.audiences()[0] ?? "";
  }

  /**
   * Exchanges an upstream token for an Arbor token for the identity named, or without one for
   * the registered person the token names; UNAUTHENTICATED with a reason otherwise.
   */
  async exchange(req: ExchangeRequest): Promise<IssuedToken> {
    if (req.audience === undefined || req.audience === "") throw unauthenticated("EXCHANGE_AUDIENCE_MISSING");
    if (!this.#deps.audiences().includes(req.audience)) throw unauthenticated("EXCHANGE_AUDIENCE");
    if (req.identity === undefined || req.identity === "") {
      const { person, upstream } = await matchPerson(this.#deps, req.token);
      return this.#issue(person.uid, upstream, req.audience);
    }
    const uid = req.identity;
    const identity = isUid(uid) ? await this.#deps.identities.get(uid) : undefined;
    const { checks, passed, upstream } = await this.evaluate(identity?.relationship, req.token, req.audience);
    const failed = checks.find((c) => !c.passed);
    if (!passed || upstream === undefined || identity === undefined) throw refusal(failed);
    return this.#issue(identity.uid, upstream, req.audience);
  }

  /** Issues the token of an identity a verified upstream token became, for audience. */
  async #issue(uid: string, upstream: VerifiedUpstream, audience: string): Promise<IssuedToken> {
    // Touch first: an identity deleted meanwhile gets no token.
    if (!(await this.#deps.identities.touch(uid, this.#deps.clock.now()))) throw refusal(undefined);
    const act = { iss: upstream.issuer, sub: upstream.subject, aud: actAudience(upstream) };
    return this.#deps.tokens.issue(uid, audience, act);
  }

  /**
   * Runs the checks of an exchange of token for an identity with relationship (undefined: no
   * such identity), for audience. Checks after a failed one are not run: nothing is fetched for a
   * token the identity would refuse by its issuer, and no pattern runs for a refused token.
   */
  async evaluate(relationship: Relationship | undefined, token: string, audience: string): Promise<Evaluation> {
    const accepted = this.#deps.audiences().includes(audience);
    const checks: ExchangeCheck[] = [exchangeCheck("requestedAudience", accepted, "EXCHANGE_AUDIENCE")];
    const done = (upstream?: VerifiedUpstream): Evaluation => ({ checks, passed: checks.every((c) => c.passed), upstream });
    let issuer: string;
    try {
      issuer = this.#deps.verifier.decode(token).claims.iss;
      checks.push(passedCheck("token"));
    } catch (e) {
      checks.push(failedCheck("token", refusalOf(e)));
      return done();
    }
    if (relationship === undefined || !isAssumable(relationship)) {
      checks.push(exchangeCheck("identity", false, relationship === undefined ? "EXCHANGE_NO_IDENTITY" : "EXCHANGE_NOT_ASSUMABLE"));
      return done();
    }
    checks.push(passedCheck("identity"));
    const issuerResult = issuerCheck(relationship, issuer);
    checks.push(issuerResult);
    if (!issuerResult.passed) return done();
    if (relationship.kind === "staticKeys") {
      const live = this.#deps.clock.now() < relationship.expirationTime;
      checks.push(exchangeCheck("expirationTime", live, "EXCHANGE_KEYS_EXPIRED"));
      if (!live) return done();
    }
    let upstream: VerifiedUpstream;
    try {
      upstream =
        relationship.kind === "staticKeys"
          ? await this.#deps.verifier.verifyWithKeys(token, parseKeys(relationship.issuerKeys), { issuer })
          : await this.#deps.verifier.verify(token, { issuer });
      checks.push(passedCheck("signature"));
    } catch (e) {
      checks.push(failedCheck("signature", refusalOf(e)));
      return done();
    }
    checks.push(...claimChecks(relationship, upstream, this.#deps.authUrl()));
    return done(upstream);
  }
}

/** The checks that run only on a token whose signature verified (claimChecks'). */
const SIGNED_CHECK = /^(?:subject|audience|claims\.[^:]*|claimPatterns\.[^:]*): /;

/**
 * Whether e refused a token its issuer really signed (a subject, audience or custom claim that
 * does not match): the token's issuer and subject are then proven, not merely claimed.
 */
export function isSignedRefusal(e: unknown): boolean {
  return isApiError(e) && e.code === Code.UNAUTHENTICATED && typeof e.cause === "string" && SIGNED_CHECK.test(e.cause);
}

/** The refusal an anonymous caller gets for a failed check; the check's own reason is the cause. */
function refusal(failed: ExchangeCheck | undefined): UnauthenticatedError {
  const detail = failed === undefined ? "identity: the identity is gone" : `${failed.check}: ${failed.reason}`;
  const reason = hidingReason(failed) ?? failed?.code ?? "EXCHANGE_NOT_TRUSTED";
  return new UnauthenticatedError(reason, publicReason(failed), { cause: detail });
}

/** Stored static keys as a JWKS; they were validated on the way in, so a failure here is corruption. */
function parseKeys(json: string): { keys: object[] } {
  try {
    return JSON.parse(json) as { keys: object[] };
  } catch {
    throw unauthenticated("UPSTREAM_NO_KEYS");
  }
}

/** e, a refusal of the verifier; anything else is no refusal and goes on up. */
function refusalOf(e: unknown): UnauthenticatedError {
  if (e instanceof UnauthenticatedError) return e;
  throw e;
}

/** The upstream aud as the token had it: one string, or the list. */
function actAudience(upstream: VerifiedUpstream): string | string[] | undefined {
  const aud = upstream.claims.aud;
  return typeof aud === "string" || Array.isArray(aud) ? (aud as string | string[]) : undefined;
}
