/**
 * Matching a verified upstream token against an identity's relationship (DESIGN 1.7): issuer,
 * subject and audience, exactly or by anchored pattern, and custom claims. Each check is reported
 * with its outcome, so an operator can see which one failed (the explain call); the exchange
 * itself tells an anonymous caller only that the token does not match.
 *
 * Custom claims are compared as text: a string claim by its value; a number or boolean claim by
 * its JSON text (`true`, `42`), because identities hold strings and issuers differ in how they
 * type such claims. Any other value (object, array, null) or a missing claim never matches.
 */
import type { UnauthenticatedError } from "../domain/errors.js";
import type { Relationship } from "../domain/identities.js";
import { matchesPattern } from "../domain/identity-patterns.js";
import { reasonSentence, type ReasonParams, type UnauthenticatedReason } from "../domain/unauthenticated-reasons.js";
import type { VerifiedUpstream } from "./upstream-verifier.js";

/**
 * One check of an exchange and its outcome; reason says what failed (empty when it passed), the
 * sentence of code (absent when it passed).
 */
export interface ExchangeCheck {
  check: string;
  passed: boolean;
  reason: string;
  code?: UnauthenticatedReason;
}

/** The relationships a token can be matched against (people log in instead). */
export type AssumableRelationship = Extract<Relationship, { kind: "claimMatch" | "staticKeys" }>;

/** Tells whether an identity's relationship can be assumed with an upstream token. */
export function isAssumable(r: Relationship): r is AssumableRelationship {
  return r.kind === "claimMatch" || r.kind === "staticKeys";
}

/** The issuer check, on the token's (possibly unverified) iss: run before any key is fetched. */
export function issuerCheck(r: AssumableRelationship, issuer: string): ExchangeCheck {
  const passed = r.kind === "staticKeys" ? issuer === r.issuer : exactOrPattern(r.issuer, r.issuerPattern, issuer);
  return exchangeCheck("issuer", passed, "EXCHANGE_ISSUER");
}

/**
 * The checks of a verified token's other claims, in order: subject, audience, each custom claim,
 * then each claim pattern, ending at the first that fails: nothing of a token already refused is
 * matched against a pattern, so a token that fails a cheap check costs no pattern match. The
 * audience is the identity's, or {auth_url} when it names none (static keys never do).
 */
export function claimChecks(r: AssumableRelationship, token: VerifiedUpstream, authUrl: string): ExchangeCheck[] {
  const subject = "EXCHANGE_SUBJECT";
  const pending: (() => ExchangeCheck)[] =
    r.kind === "staticKeys"
      ? [() => exchangeCheck("subject", token.subject === r.subject, subject), () => audienceCheck(token.audience.includes(authUrl))]
      : [
          () => exchangeCheck("subject", exactOrPattern(r.subject, r.subjectPattern, token.subject), subject),
          () => audienceCheck(audienceMatches(r, token.audience, authUrl)),
          ...Object.entries(r.claims).map(
            ([name, expected]) =>
              () =>
                customClaimCheck(`claims.${name}`, token.claims[name], (text) => text === expected),
          ),
          ...Object.entries(r.claimPatterns).map(
            ([name, pattern]) =>
              () =>
                customClaimCheck(`claimPatterns.${name}`, token.claims[name], (text) => matchesPattern(pattern, text)),
          ),
        ];
  const checks: ExchangeCheck[] = [];
  for (const next of pending) {
    const check = next();
    checks.push(check);
    if (!check.passed) break;
  }
  return checks;
}

function audienceMatches(r: Extract<Relationship, { kind: "claimMatch" }>, audience: readonly string[], authUrl: string): boolean {
  if (r.audience !== undefined) return audience.includes(r.audience);
  if (r.audiencePattern !== undefined) return audience.some((a) => matchesPattern(r.audiencePattern as string, a));
  return audience.includes(authUrl);
}

function audienceCheck(passed: boolean): ExchangeCheck {
  return exchangeCheck("audience", passed, "UPSTREAM_AUDIENCE");
}

function customClaimCheck(check: string, value: unknown, accept: (text: string) => boolean): ExchangeCheck {
  const name = check.slice(check.indexOf(".") + 1);
  const text = claimText(value);
  if (text === undefined)
    return exchangeCheck(check, false, value === undefined ? "EXCHANGE_CLAIM_ABSENT" : "EXCHANGE_CLAIM_NOT_TEXT", { name });
  return exchangeCheck(check, accept(text), "EXCHANGE_CLAIM_NOT_MATCHING", { name });
}

/** A claim value as text: strings as they are, numbers and booleans as JSON; undefined otherwise. */
export function claimText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return JSON.stringify(value);
  return undefined;
}

function exactOrPattern(exact: string | undefined, pattern: string | undefined, value: string): boolean {
  if (exact !== undefined) return value === exact;
  if (pattern !== undefined) return matchesPattern(pattern, value);
  return false;
}

/** A check's outcome; the reason is kept only when it failed. */
export function exchangeCheck<R extends UnauthenticatedReason>(
  check: string,
  passed: boolean,
  code: R,
  ...params: ReasonParams<R>
): ExchangeCheck {
  return passed ? passedCheck(check) : { check, passed, reason: reasonSentence(code, ...params), code };
}

export function passedCheck(check: string): ExchangeCheck {
  return { check, passed: true, reason: "" };
}

/** A check that failed with the refusal e: its sentence and code. */
export function failedCheck(check: string, e: UnauthenticatedError): ExchangeCheck {
  return { check, passed: false, reason: e.why, code: e.reason };
}
