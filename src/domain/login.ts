/**
 * People's logins in progress as the store keeps them: the attempt between the redirect to the
 * upstream provider and its callback, and Arbor's one-time code the CLI redeems.
 */

/** Who an upstream token named: the `act` claim of the tokens a login yields. */
export interface UpstreamActor {
  iss: string;
  sub: string;
  aud?: string | string[];
}

/** A login between the redirect to the upstream provider and its callback. */
export interface LoginAttemptRecord {
  /** SHA-256 (hex) of the state sent to the upstream provider. */
  stateHash: string;
  /** The organization's identity provider; null for the server's default login provider. */
  providerUid: string | null;
  issuer: string;
  clientId: string;
  /** The upstream PKCE verifier (sent to the provider's token endpoint as it is). */
  codeVerifier: string;
  nonce: string;
  /** The CLI's loopback redirect URI. */
  redirectUri: string;
  /** The CLI's PKCE challenge (S256) for Arbor's own code. */
  codeChallenge: string;
  /** The CLI's state, echoed back to it. */
  clientState: string;
  /** SHA-256 of the invite code given at login, or null. */
  inviteCodeHash: string | null;
  createTime: number;
  expireTime: number;
  /** SHA-256 (hex) of the client's address key (loginAddressKey): logins in progress count per address. */
  addressHash: string;
  /** The organization whose identity provider the login goes through; '' for the default login provider. */
  organizationUid: string;
}

/** How many logins may be in progress at once: in all, from one address, and per organization. */
export interface LoginAttemptLimits {
  live: number;
  perAddress: number;
  perOrganization: number;
}

/** Whether an attempt was stored, or which limit refused it. */
export type LoginAttemptAdmission = "stored" | "address" | "organization" | "server";

/** Arbor's one-time authorization code, redeemed by the CLI with its PKCE verifier. */
export interface LoginCodeRecord {
  /** SHA-256 (hex) of the code. */
  codeHash: string;
  identityUid: string;
  actor: UpstreamActor;
  redirectUri: string;
  codeChallenge: string;
  createTime: number;
  expireTime: number;
}
