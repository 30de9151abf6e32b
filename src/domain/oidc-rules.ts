/**
 * OpenID Connect settings of identity providers: what an issuer, a client and its scopes must look
 * like. Field paths are JSON names relative to the provider (`oidc.issuer`).
 */
import { invalidArgument } from "./errors.js";
import { hostProblem, isLoopbackHost } from "./issuer-address.js";
import type { OidcSettings } from "./identity-providers.js";

/** The longest issuer URL accepted. */
export const MAX_ISSUER_LENGTH = 2048;
/** The longest client id accepted. */
export const MAX_CLIENT_ID_LENGTH = 256;
/** The longest client secret accepted. */
export const MAX_CLIENT_SECRET_LENGTH = 1024;
/** The most additional scopes a provider may request. */
export const MAX_SCOPES = 20;
/** The longest scope token accepted. */
export const MAX_SCOPE_LENGTH = 64;
/** The longest groups claim name accepted. */
export const MAX_GROUPS_CLAIM_LENGTH = 128;

/** A scope token (RFC 6749, 3.3): printable ASCII but space, `"` and `\`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;
/** Whitespace, control characters and backslashes, which a URL parser would silently rewrite. */
const UNSAFE_IN_URL = /[\s\x00-\x1f\x7f\\]/;
const CONTROL = /[\x00-\x1f\x7f]/;

/** What issuers a server accepts besides https ones. */
export interface IssuerPolicy {
  /** Whether http:// issuers on loopback hosts, and issuers on loopback addresses, are accepted (tests, local development). */
  allowHttpLoopback: boolean;
  /** Whether issuers on private addresses (RFC 1918, CGNAT, IPv6 unique local) are accepted. */
  allowPrivate: boolean;
}

/**
 * Throws INVALID_ARGUMENT (`oidc.issuer`) unless issuer is an absolute https URL without
 * credentials, query or fragment; http only on a loopback host and only when the policy allows it.
 * The issuer is kept exactly as given, trailing slash included: OIDC compares it with the `iss`
 * of the provider's tokens character for character.
 */
export function validateIssuer(issuer: string, policy: IssuerPolicy): void {
  const bad = (why: string) => invalidArgument("oidc.issuer", why);
  if (issuer === "") throw bad("is required");
  if (issuer.length > MAX_ISSUER_LENGTH) throw bad(`must be at most ${MAX_ISSUER_LENGTH} characters`);
  if (UNSAFE_IN_URL.test(issuer)) throw bad("must not contain whitespace, control characters or backslashes");
  const scheme = /^(https?):\/\//.exec(issuer)?.[1];
  if (scheme === undefined) throw bad("must be an absolute https URL (https://...)");
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    throw bad("must be an absolute https URL (https://...)");
  }
  if (scheme === "http") {
    if (!isLoopbackHost(url.hostname)) throw bad("must be an https URL; http is accepted only for loopback hosts");
    if (!policy.allowHttpLoopback) throw bad("must be an https URL; this server does not accept http issuers, not even on loopback");
  }
  if (url.username !== "" || url.password !== "") throw bad("must not contain credentials");
  const address = hostProblem(url.hostname, { allowLoopback: policy.allowHttpLoopback, allowPrivate: policy.allowPrivate });
  if (address !== undefined) throw bad(`must not name a host that ${address}`);
  if (issuer.includes("?")) throw bad("must not have a query");
  if (issuer.includes("#")) throw bad("must not have a fragment");
}

/** Throws INVALID_ARGUMENT (`oidc.clientId`) unless the client id is given and fits. */
export function validateClientId(clientId: string): void {
  if (clientId === "") throw invalidArgument("oidc.clientId", "is required");
  if (clientId.length > MAX_CLIENT_ID_LENGTH) {
    throw invalidArgument("oidc.clientId", `must be at most ${MAX_CLIENT_ID_LENGTH} characters`);
  }
  if (CONTROL.test(clientId)) throw invalidArgument("oidc.clientId", "must not contain control characters");
}

/** Throws INVALID_ARGUMENT (`oidc.clientSecret`) unless the secret fits; it may be empty. */
export function validateClientSecret(secret: string): void {
  if (secret.length > MAX_CLIENT_SECRET_LENGTH) {
    throw invalidArgument("oidc.clientSecret", `must be at most ${MAX_CLIENT_SECRET_LENGTH} characters`);
  }
}

/**
 * Throws INVALID_ARGUMENT unless each scope is a scope token of at most 64 characters, named
 * once, and there are at most 20 (`openid` is always requested and need not be listed).
 */
export function validateAdditionalScopes(scopes: readonly string[]): void {
  if (scopes.length > MAX_SCOPES) throw invalidArgument("oidc.additionalScopes", `at most ${MAX_SCOPES} scopes may be given`);
  const seen = new Set<string>();
  scopes.forEach((scope, i) => {
    const field = `oidc.additionalScopes[${i}]`;
    if (!SCOPE_TOKEN.test(scope))
      throw invalidArgument(field, "must be a scope token: printable ASCII without spaces, quotes or backslashes");
    if (scope.length > MAX_SCOPE_LENGTH) throw invalidArgument(field, `must be at most ${MAX_SCOPE_LENGTH} characters`);
    if (seen.has(scope)) throw invalidArgument(field, `scope "${scope}" is named more than once`);
    seen.add(scope);
  });
}

/** Throws INVALID_ARGUMENT (`oidc.groupsClaim`) unless the claim name fits; it may be empty. */
export function validateGroupsClaim(claim: string): void {
  if (claim.length > MAX_GROUPS_CLAIM_LENGTH) {
    throw invalidArgument("oidc.groupsClaim", `must be at most ${MAX_GROUPS_CLAIM_LENGTH} characters`);
  }
  if (CONTROL.test(claim)) throw invalidArgument("oidc.groupsClaim", "must not contain control characters");
}

/** The OIDC settings, in the order they are checked. */
export const OIDC_KEYS: readonly (keyof OidcSettings)[] = ["issuer", "clientId", "clientSecret", "additionalScopes", "groupsClaim"];

/** Each OIDC setting's check, by record key. */
const CHECKS: { [K in keyof OidcSettings]: (value: OidcSettings[K], policy: IssuerPolicy) => void } = {
  issuer: validateIssuer,
  clientId: validateClientId,
  clientSecret: validateClientSecret,
  additionalScopes: validateAdditionalScopes,
  groupsClaim: validateGroupsClaim,
};

/** Validates the given settings of o (all of them when keys is omitted), in a fixed order. */
export function validateOidc(o: OidcSettings, policy: IssuerPolicy, keys: readonly (keyof OidcSettings)[] = OIDC_KEYS): void {
  for (const key of OIDC_KEYS) {
    if (!keys.includes(key)) continue;
    (CHECKS[key] as (value: unknown, policy: IssuerPolicy) => void)(o[key], policy);
  }
}
