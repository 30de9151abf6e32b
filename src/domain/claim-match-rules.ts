/**
 * What a claim match must be (DESIGN 1.7): an issuer and a subject, each exact or by pattern, so
 * no identity stands for every workload of an issuer; an optional audience; custom claims that
 * leave the registered ones to the dedicated fields. Field paths are JSON names relative to the
 * identity (`claimMatch.subjectPattern`).
 */
import { invalidArgument } from "./errors.js";
import type { Relationship } from "./identities.js";
import { patternProblem } from "./identity-patterns.js";

/** A claim match as the store keeps it. */
export type ClaimMatch = Extract<Relationship, { kind: "claimMatch" }>;

/** The longest exact value (issuer, subject, audience, claim value) accepted. */
export const MAX_CLAIM_VALUE_LENGTH = 512;
/** The most entries `claims` and `claimPatterns` may each hold. */
export const MAX_CLAIM_ENTRIES = 32;
/** The longest claim name accepted. */
export const MAX_CLAIM_NAME_LENGTH = 256;
/** Claims with a field of their own (or checked by every verification), refused as custom claims. */
export const RESERVED_CLAIMS: readonly string[] = ["iss", "sub", "aud", "exp", "nbf", "iat"];

/** Whether http:// issuers on loopback are accepted (tests, local development). */
export interface IssuerRules {
  allowHttpLoopbackIssuers: boolean;
}

/** Throws INVALID_ARGUMENT naming the first field of m that breaks a rule. */
export function validateClaimMatch(m: ClaimMatch, rules: IssuerRules): void {
  if (m.issuer !== undefined) {
    exact("claimMatch.issuer", m.issuer);
    checkIssuerUrl(m.issuer, rules);
  } else if (m.issuerPattern !== undefined) {
    pattern("claimMatch.issuerPattern", m.issuerPattern, "issuer");
  } else {
    throw invalidArgument("claimMatch.issuer", "an identity needs issuer or issuerPattern");
  }
  if (m.subject !== undefined) exact("claimMatch.subject", m.subject);
  else if (m.subjectPattern !== undefined) pattern("claimMatch.subjectPattern", m.subjectPattern, "subject");
  else {
    throw invalidArgument("claimMatch.subject", "an identity needs subject or subjectPattern: none may stand for every workload of an issuer");
  }
  if (m.audience !== undefined) exact("claimMatch.audience", m.audience);
  if (m.audiencePattern !== undefined) pattern("claimMatch.audiencePattern", m.audiencePattern, "audience");
  checkClaims("claimMatch.claims", m.claims, (field, value) => exact(field, value, true));
  checkClaims("claimMatch.claimPatterns", m.claimPatterns, (field, value) => pattern(field, value, "value"));
}

function exact(field: string, value: string, emptyAllowed = false): void {
  if (value === "" && !emptyAllowed) throw invalidArgument(field, "must not be empty");
  if ([...value].length > MAX_CLAIM_VALUE_LENGTH) {
    throw invalidArgument(field, `must be at most ${MAX_CLAIM_VALUE_LENGTH} characters`);
  }
}

function pattern(field: string, value: string, what: string): void {
  const problem = patternProblem(value, what);
  if (problem !== undefined) throw invalidArgument(field, problem);
}

function checkClaims(field: string, claims: Readonly<Record<string, string>>, checkValue: (field: string, value: string) => void): void {
  const entries = Object.entries(claims);
  if (entries.length > MAX_CLAIM_ENTRIES) throw invalidArgument(field, `must hold at most ${MAX_CLAIM_ENTRIES} entries`);
  for (const [name, value] of entries) {
    const at = `${field}[${JSON.stringify(name)}]`;
    if (name === "") throw invalidArgument(field, "claim names must not be empty");
    if (name.length > MAX_CLAIM_NAME_LENGTH) throw invalidArgument(field, `claim names must be at most ${MAX_CLAIM_NAME_LENGTH} characters`);
    if (RESERVED_CLAIMS.includes(name)) {
      throw invalidArgument(at, `"${name}" has a field of its own (issuer, subject, audience) or is checked on every token`);
    }
    checkValue(at, value);
  }
}

/** Throws INVALID_ARGUMENT (claimMatch.issuer) unless issuer is https, or http on loopback when allowed. */
function checkIssuerUrl(issuer: string, rules: IssuerRules): void {
  const loopback = rules.allowHttpLoopbackIssuers ? ", or http:// on loopback" : "";
  const refuse = () => invalidArgument("claimMatch.issuer", `must be an https:// URL${loopback}`);
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    throw refuse();
  }
  if (url.username !== "" || url.password !== "") throw invalidArgument("claimMatch.issuer", "must not carry credentials");
  if (url.protocol === "https:") return;
  if (url.protocol === "http:" && rules.allowHttpLoopbackIssuers && isLoopbackHost(url.hostname)) return;
  throw refuse();
}

/** Tells whether a URL's hostname is loopback: localhost, 127.0.0.0/8 or ::1. */
export function isLoopbackHost(hostname: string): boolean {
  return hostname === "localhost" || hostname === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}
