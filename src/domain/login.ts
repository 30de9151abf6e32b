/**
 * People's logins in progress as the store keeps them: the attempt between the redirect to the
 * upstream provider and its callback, Arbor's one-time code the CLI redeems, and a headless
 * login's device authorization (RFC 8628).
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
  /** SHA-256 of the device code of the headless login this attempt finishes; null for a browser login. */
  deviceCodeHash: string | null;
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

/** Where a headless login stands: waiting for the person, logged in as someone, or refused with a reason. */
export type DeviceOutcome =
  { state: "pending" } | { state: "approved"; identityUid: string; actor: UpstreamActor } | { state: "denied"; denial: string };

/** A headless login (RFC 8628): from the CLI's device authorization request to its last poll. */
export interface DeviceAuthorizationRecord {
  /** SHA-256 (hex) of the device code the CLI polls with. */
  deviceCodeHash: string;
  /** SHA-256 (hex) of the normalized user code the person types. */
  userCodeHash: string;
  /** The provider the login goes through, as LoginAttemptRecord. */
  providerUid: string | null;
  issuer: string;
  clientId: string;
  inviteCodeHash: string | null;
  addressHash: string;
  organizationUid: string;
  /** How long the CLI must wait between polls; every slow_down adds 5 s. */
  intervalMs: number;
  lastPollTime: number | null;
  outcome: DeviceOutcome;
  createTime: number;
  expireTime: number;
}

/** A poll as the store saw it: the authorization, and whether it came sooner than its interval allows. */
export interface DevicePoll {
  record: DeviceAuthorizationRecord;
  tooSoon: boolean;
}
