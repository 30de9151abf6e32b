/**
 * Why a request is UNAUTHENTICATED, as a closed set of codes (the habit of jose's JOSEErrorCode):
 * code decides and tests assert the code, while each code builds the one sentence a caller reads
 * after `Unauthenticated: ` (DESIGN 1.6). The sentences are the wire: people and scripts read
 * them, so changing one changes the API. The codes are not on the wire (ErrorInfo.reason is the
 * status code's name, DESIGN 1.6); they are for code and tests.
 *
 * A sentence says which check failed and nothing of Arbor's configuration (DESIGN 1.7).
 */

const SENTENCES = {
  // Credentials missing or in the wrong form.
  BEARER_MISSING: () => "send an API token as Authorization: Bearer <token>",
  BEARER_MALFORMED: () => "the Authorization header must be of the form Bearer <token>",
  REGISTRY_AUTH_SCHEME: () => "the Authorization header must be Basic (user _token) or Bearer",
  REGISTRY_LOGIN_MISSING: (p: { user: string }) =>
    `log in with user ${p.user} and an Arbor token for the registry as password (docker-credential-arbor does it)`,
  REGISTRY_USER: (p: { user: string }) => `the user name must be ${p.user}; the password is an Arbor token for the registry`,
  METRICS_TOKEN: () => "send the metrics token (ARBOR_METRICS_TOKEN) as Authorization: Bearer <token>",
  NOTIFICATIONS_SECRET: () => "send the registry notifications secret as Authorization: Bearer <secret> (see arbor admin registry-config)",

  // Arbor's own tokens (auth/tokens.ts).
  TOKEN_UNKNOWN_KEY: () => "the token was not signed by a key of this issuer",
  TOKEN_EXPIRED: () => "the token has expired",
  TOKEN_AUDIENCE: () => "the token is not meant for this API (audience)",
  TOKEN_ISSUER: (p: { claimed: string; expected: string }) =>
    `the token was not issued by this server: its issuer is ${p.claimed}, this server's is ${p.expected}`,
  TOKEN_CLAIM: (p: { claim: string }) => `the token's ${p.claim} claim is not valid`,
  TOKEN_SIGNATURE: () => "the token's signature is not valid",
  TOKEN_ALGORITHM: () => "the token is not signed with ES256",
  TOKEN_MALFORMED: () => "the token is malformed",
  TOKEN_ISSUED_IN_FUTURE: () => "the token's iat claim is in the future",
  TOKEN_LIFETIME: () => "the token's lifetime (exp - iat) is longer than this server issues",
  /** A failure of the server's own while verifying (its key store unreadable), told as it was. */
  TOKEN_IDENTITY_GONE: () => "the token's identity does not exist (deleted, or never registered)",

  // Upstream OIDC tokens (auth/upstream-token.ts, auth/upstream-verifier.ts).
  UPSTREAM_TOO_LARGE: () => "the token is too large",
  UPSTREAM_MALFORMED: () => "the token is malformed",
  UPSTREAM_ALGORITHM: () => "the token's signing algorithm is not accepted",
  UPSTREAM_NO_ISSUER: () => "the token has no issuer",
  UPSTREAM_NO_SUBJECT: () => "the token has no subject",
  UPSTREAM_NO_EXPIRY: () => "the token has no expiry",
  UPSTREAM_EXPIRED: () => "the token has expired",
  UPSTREAM_NOT_YET_VALID: () => "the token is not yet valid",
  UPSTREAM_ISSUED_IN_FUTURE: () => "the token is issued in the future",
  UPSTREAM_ISSUER_NOT_ACCEPTED: () => "the token's issuer is not accepted",
  UPSTREAM_ISSUER_NOT_HTTPS: () => "the token's issuer is not https",
  UPSTREAM_ISSUER_UNREACHABLE: () => "the token's issuer cannot be reached",
  UPSTREAM_NO_DISCOVERY: () => "the token's issuer publishes no valid discovery document",
  UPSTREAM_DISCOVERY_ISSUER: () => "the token's issuer does not match its discovery document",
  UPSTREAM_NO_KEYS: () => "the token's issuer publishes no valid key set",
  UPSTREAM_UNKNOWN_KEY: () => "the token's signing key is unknown to its issuer",
  UPSTREAM_SIGNATURE: () => "the token's signature is not valid",
  UPSTREAM_AUDIENCE: () => "the token's audience is not accepted",
  UPSTREAM_NONCE: () => "the token's nonce does not match",

  // The token exchange (auth/exchange.ts, auth/claim-match.ts, auth/person-exchange.ts, server/sts/sts-exchange.ts).
  EXCHANGE_TOKEN_MISSING: () => "send the upstream OIDC token as Authorization: Bearer <token>",
  EXCHANGE_TOKEN_REQUIRED: () => "token is required: the upstream OIDC token",
  EXCHANGE_BODY_TOO_LARGE: (p: { maxBytes: number }) => `the request body must be at most ${p.maxBytes} bytes`,
  EXCHANGE_BODY_TYPE: () => "the request body must be application/x-www-form-urlencoded",
  EXCHANGE_PARAMETER_REPEATED: (p: { name: string }) => `${p.name} must be given once`,
  EXCHANGE_AUDIENCE_MISSING: () => "aud is required",
  EXCHANGE_AUDIENCE: () => "the requested audience is not accepted",
  EXCHANGE_NO_IDENTITY: () => "there is no such identity",
  EXCHANGE_NOT_ASSUMABLE: () => "the identity cannot be assumed with a token",
  EXCHANGE_ISSUER: () => "the token's issuer does not match the identity",
  EXCHANGE_KEYS_EXPIRED: () => "the identity's keys have expired",
  EXCHANGE_SUBJECT: () => "the token's subject does not match the identity",
  EXCHANGE_CLAIM_ABSENT: (p: { name: string }) => `the token has no claim "${p.name}"`,
  EXCHANGE_CLAIM_NOT_TEXT: (p: { name: string }) => `the token's claim "${p.name}" is not a string, number or boolean`,
  EXCHANGE_CLAIM_NOT_MATCHING: (p: { name: string }) => `the token's claim "${p.name}" does not match the identity`,
  /** What a missing identity, another issuer, expired static keys or a bad signature answer alike. */
  EXCHANGE_NOT_TRUSTED: () => "the token is not from an issuer the identity trusts, or its signature does not verify",
  /** What any custom claim answers: which claim the identity checks is its configuration. */
  EXCHANGE_CLAIM_MISMATCH: () => "a custom claim of the token does not match the identity",
  /** What an issuer that is no login provider, no such person and a bad signature answer alike. */
  EXCHANGE_PERSON_NOT_TRUSTED: () =>
    "the token names no person registered through a login provider of this server, or its signature does not verify",

  // People's logins (auth/login-*.ts, auth/refresh-tokens.ts).
  LOGIN_UNKNOWN: () => "this login is unknown, has expired or has finished already; run arbor auth login again",
  LOGIN_DENIED: (p: { error: string; description: string }) => `the identity provider did not log you in (${p.error}: ${p.description})`,
  LOGIN_GRANT_REFUSED: (p: { error: string }) => `the identity provider refused the login (${p.error})`,
  LOGIN_CODE_INVALID: () => "the authorization code is not valid (expired, used or never issued); log in again",
  LOGIN_REDIRECT_URI: () => "redirect_uri is not the one the login began with",
  LOGIN_CODE_VERIFIER: () => "code_verifier does not match the login's code_challenge",
  LOGIN_EXPIRED: () => "the login has expired; log in again",
  DEVICE_USER_CODE_INVALID: () =>
    "this code is not valid: it may have expired or been used; check it, or run arbor auth login --headless again",
  DEVICE_CODE_INVALID: () =>
    "the device code is not valid (never issued, or its login finished already); run arbor auth login --headless again",
  REFRESH_TOKEN_REUSED: () => "the refresh token was already used, so the login it belongs to is revoked; log in again",
  REFRESH_TOKEN_INVALID: () => "the refresh token is not valid (revoked, expired or never issued); log in again",
} as const satisfies Record<string, (params: never) => string>;

/** Why a request is UNAUTHENTICATED: one of the codes above. */
export type UnauthenticatedReason = keyof typeof SENTENCES;

/** What the sentence of a reason needs: nothing, or one object of named values. */
export type ReasonParams<R extends UnauthenticatedReason> = Parameters<(typeof SENTENCES)[R]>;

/** The reasons whose sentence takes no values. */
export type PlainReason = { [R in UnauthenticatedReason]: ReasonParams<R> extends [] ? R : never }[UnauthenticatedReason];

/** The sentence a caller reads for reason (after `Unauthenticated: `). */
export function reasonSentence<R extends UnauthenticatedReason>(reason: R, ...params: ReasonParams<R>): string {
  return (SENTENCES[reason] as (...p: ReasonParams<R>) => string)(...params);
}
