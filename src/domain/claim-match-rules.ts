/**
 * What a claim match must be (DESIGN 1.7): an issuer and a subject, each exact or by pattern, so
 * no identity stands for every workload of an issuer; an optional audience; custom claims that
 * leave the registered ones to the dedicated fields. Field paths are JSON names relative to the
 * identity (`claimMatch.subjectPattern`).
 */
import { invalidArgument } from "./errors.js";
import type { Relationship } from "./identities.js";
import { patternProblem } from "./identity-patterns.js";
import { hostProblem, isLoopbackHost } from "./issuer-address.js";
import { literalPrefixes } from "./pattern-pins.js";

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

/** Which issuers are accepted besides https:// ones on public addresses. */
export interface IssuerRules {
  /** http:// issuers, and any issuer, on loopback (tests, local development). */
  allowHttpLoopbackIssuers: boolean;
  /** Issuers on private addresses (RFC 1918, CGNAT, IPv6 unique local). */
  allowPrivateIssuers: boolean;
}

/**
 * What every alternative of an issuerPattern must start with: a literal scheme, host (and port)
 * and the `/` that ends them, so the pattern pins one origin. Without the `/`, `https://a\.example`
 * followed by `.*` admits `https://a.example.evil.com` and `https://a.example@evil.com`.
 */
const PINNED_ORIGIN = /^https?:\/\/[^/?#@\\\s]+\//;
/**
 * What every alternative of a subjectPattern must start with: a literal of two non-empty parts,
 * each ended by `:` or `/` (`repo:acme/`, `system:serviceaccount:`, `project_path:group/`). One
 * part is an issuer's whole namespace (`repo:` is every repository on GitHub); a part not ended
 * by its separator is an owner's prefix (`repo:acme` admits `repo:acme-evil/...`).
 */
const PINNED_SUBJECT = /^[^:/]+[:/][^:/]+[:/]/;

/** Throws INVALID_ARGUMENT naming the first field of m that breaks a rule. */
export function validateClaimMatch(m: ClaimMatch, rules: IssuerRules): void {
  if (m.issuer !== undefined) {
    exact("claimMatch.issuer", m.issuer);
    checkIssuerUrl(m.issuer, rules);
  } else if (m.issuerPattern !== undefined) {
    pattern("claimMatch.issuerPattern", m.issuerPattern);
    pinned("claimMatch.issuerPattern", m.issuerPattern, PINNED_ORIGIN, (literal, complete) => issuerPinProblem(literal, complete, rules));
  } else {
    throw invalidArgument("claimMatch.issuer", "an identity needs issuer or issuerPattern");
  }
  if (m.subject !== undefined) exact("claimMatch.subject", m.subject);
  else if (m.subjectPattern !== undefined) {
    pattern("claimMatch.subjectPattern", m.subjectPattern);
    pinned("claimMatch.subjectPattern", m.subjectPattern, PINNED_SUBJECT, (literal, complete) =>
      complete || PINNED_SUBJECT.test(literal)
        ? undefined
        : "must start with a literal of two parts each ended by ':' or '/' (like repo:acme/), " +
          "in every alternative, so it pins the subject's prefix",
    );
  } else {
    throw invalidArgument(
      "claimMatch.subject",
      "an identity needs subject or subjectPattern: none may stand for every workload of an issuer",
    );
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

function pattern(field: string, value: string, what?: string): void {
  const problem = patternProblem(value, what);
  if (problem !== undefined) throw invalidArgument(field, problem);
}

/** Throws INVALID_ARGUMENT (field) unless every alternative of value passes check (pattern-pins.ts). */
function pinned(field: string, value: string, enough: RegExp, check: (literal: string, complete: boolean) => string | undefined): void {
  const ways = literalPrefixes(value, (literal) => enough.test(literal));
  if (ways === undefined) throw invalidArgument(field, "has too many alternatives to tell what it pins");
  for (const { literal, complete } of ways) {
    const problem = check(literal, complete);
    if (problem !== undefined) throw invalidArgument(field, problem);
  }
}

/** Why an issuerPattern alternative starting with literal (all of it when complete) pins no acceptable origin. */
function issuerPinProblem(literal: string, complete: boolean, rules: IssuerRules): string | undefined {
  const pinnedUrl = complete ? literal : PINNED_ORIGIN.exec(literal)?.[0];
  if (pinnedUrl === undefined) {
    return "must start with a literal https://host/ (the / included), in every alternative, so it pins the issuer's host";
  }
  return issuerUrlProblem(pinnedUrl, rules);
}
function checkClaims(field: string, claims: Readonly<Record<string, string>>, checkValue: (field: string, value: string) => void): void {
  const entries = Object.entries(claims);
  if (entries.length > MAX_CLAIM_ENTRIES) throw invalidArgument(field, `must hold at most ${MAX_CLAIM_ENTRIES} entries`);
  for (const [name, value] of entries) {
    const at = `${field}[${JSON.stringify(name)}]`;
    if (name === "") throw invalidArgument(field, "claim names must not be empty");
    if (name.length > MAX_CLAIM_NAME_LENGTH)
      throw invalidArgument(field, `claim names must be at most ${MAX_CLAIM_NAME_LENGTH} characters`);
    if (RESERVED_CLAIMS.includes(name)) {
      throw invalidArgument(at, `"${name}" has a field of its own (issuer, subject, audience) or is checked on every token`);
    }
    checkValue(at, value);
  }
}

/** Throws INVALID_ARGUMENT (claimMatch.issuer) unless issuer is an issuer URL Arbor may fetch from. */
function checkIssuerUrl(issuer: string, rules: IssuerRules): void {
  const problem = issuerUrlProblem(issuer, rules);
  if (problem !== undefined) throw invalidArgument("claimMatch.issuer", problem);
}

/**
 * Why issuer is no URL Arbor may fetch from, or undefined: https (http on loopback when allowed),
 * no credentials, and not on an address the rules refuse (issuer-address.ts). Host names are
 * checked again when they are resolved, right before each fetch.
 */
function issuerUrlProblem(issuer: string, rules: IssuerRules): string | undefined {
  const refused = `must be an https:// URL${rules.allowHttpLoopbackIssuers ? ", or http:// on loopback" : ""}`;
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    return refused;
  }
  if (url.username !== "" || url.password !== "") return "must not carry credentials";
  const http = url.protocol === "http:" && rules.allowHttpLoopbackIssuers && isLoopbackHost(url.hostname);
  if (url.protocol !== "https:" && !http) return refused;
  const address = hostProblem(url.hostname, { allowLoopback: rules.allowHttpLoopbackIssuers, allowPrivate: rules.allowPrivateIssuers });
  return address === undefined ? undefined : `must not name a host that ${address}`;
}
