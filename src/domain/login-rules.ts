/**
 * Rules of people's login (DESIGN 1.7): where Arbor may send a browser back to (a loopback
 * listener of the CLI, nothing else), what a PKCE challenge looks like, the name a new person
 * gets, and when an invite may be redeemed.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { isIPv4, isIPv6 } from "node:net";
import { sameEmailAddress } from "./email-address.js";
import { ApiError, Code, failedPrecondition, invalidArgument } from "./errors.js";
import { MAX_NAME_LENGTH } from "./names.js";
import type { GroupInviteRecord } from "./group-invites.js";

/** The hosts a CLI's redirect URI may name: its own machine's loopback listener. */
const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);
/** The longest redirect URI accepted. */
export const MAX_REDIRECT_URI_LENGTH = 512;
/** A PKCE S256 challenge: base64url of a SHA-256, 43 characters (RFC 7636, 4.2). */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
/** A PKCE verifier (RFC 7636, 4.1): 43 to 128 unreserved characters. */
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;
/** The longest state a CLI may ask to have echoed. */
export const MAX_CLIENT_STATE_LENGTH = 256;

/**
 * Throws INVALID_ARGUMENT (`redirect_uri`) unless uri is an http URL on 127.0.0.1, [::1] or
 * localhost with a port, without credentials or fragment: the CLI's loopback listener
 * (RFC 8252, 7.3). Anything else could hand the login to another machine.
 */
export function checkLoopbackRedirectUri(uri: string): void {
  const bad = (why: string) => invalidArgument("redirect_uri", why);
  if (uri === "") throw bad("is required");
  if (uri.length > MAX_REDIRECT_URI_LENGTH) throw bad(`must be at most ${MAX_REDIRECT_URI_LENGTH} characters`);
  const url = URL.parse(uri);
  if (url === null || !/^http:\/\//i.test(uri)) throw bad("must be an http:// URL of a loopback listener (http://127.0.0.1:<port>/...)");
  if (!LOOPBACK_HOSTS.has(url.hostname))
    throw bad("must name 127.0.0.1, [::1] or localhost: Arbor sends logins only to a listener on your own machine");
  if (url.port === "") throw bad("must name the listener's port");
  if (url.username !== "" || url.password !== "") throw bad("must not contain credentials");
  if (uri.includes("#")) throw bad("must not have a fragment");
}

/**
 * Whose logins in progress count together: an IPv4 address, or the /64 network of an IPv6 one
 * (a single host is commonly given a whole /64, so one address each would be no limit at all).
 * IPv4-mapped IPv6 addresses count as their IPv4 address; an unknown address counts as `unknown`.
 */
export function loginAddressKey(address: string | undefined): string {
  if (address === undefined || address === "") return "unknown";
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped !== null) return mapped[1] as string;
  if (isIPv4(address)) return address;
  if (!isIPv6(address)) return address;
  const [head = "", tail = ""] = address.split("::");
  const left = head === "" ? [] : head.split(":");
  const right = address.includes("::") ? (tail === "" ? [] : tail.split(":")) : [];
  const groups = [...left, ...Array<string>(8 - left.length - right.length).fill("0"), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(":")}::/64`;
}

/** Throws INVALID_ARGUMENT unless the challenge is an S256 PKCE challenge. */
export function checkCodeChallenge(challenge: string, method: string): void {
  if (method !== "S256") throw invalidArgument("code_challenge_method", "must be S256");
  if (!S256_CHALLENGE.test(challenge))
    throw invalidArgument("code_challenge", "must be the base64url SHA-256 of the verifier (43 characters)");
}

/** The S256 challenge of a PKCE verifier. */
export function pkceChallenge(verifier: string): string {
  return createHash("sha256").update(verifier, "ascii").digest("base64url");
}

/** Tells whether verifier is well-formed and its S256 challenge is challenge (in constant time). */
export function pkceMatches(verifier: string, challenge: string): boolean {
  if (!VERIFIER.test(verifier)) return false;
  const a = Buffer.from(pkceChallenge(verifier));
  const b = Buffer.from(challenge);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Throws INVALID_ARGUMENT (`state`) unless the CLI's state fits. */
export function checkClientState(state: string): void {
  if (state.length > MAX_CLIENT_STATE_LENGTH || /[\x00-\x1f\x7f]/.test(state)) {
    throw invalidArgument("state", `must be at most ${MAX_CLIENT_STATE_LENGTH} printable characters`);
  }
}

/**
 * The name a new person's identity gets: the first of preferred_username, email, name and sub
 * that yields one, lowercased, without accents, with every run of characters the name rules
 * forbid turned into `-`.
 */
export function personName(claims: Readonly<Record<string, unknown>>): string {
  for (const claim of ["preferred_username", "email", "name", "sub"]) {
    const value = claims[claim];
    if (typeof value !== "string") continue;
    const name = value
      .normalize("NFKD")
      // Accents go (é is e and a combining mark); other letters become `-` below.
      .replace(/\p{M}/gu, "")
      .toLowerCase()
      .replace(/[^a-z0-9 ._-]+/g, "-")
      .replace(/^[\s-]+|[\s-]+$/g, "")
      .slice(0, MAX_NAME_LENGTH);
    if (name !== "") return name;
  }
  return "person";
}

/**
 * Why the invite cannot be redeemed now by the holder of claims, as an error; undefined when it
 * can. An email-restricted invite needs the same address in a verified email claim.
 */
export function inviteRefusal(invite: GroupInviteRecord, now: number, claims?: Readonly<Record<string, unknown>>): ApiError | undefined {
  if (invite.expirationTime <= now) return failedPrecondition("INVITE_EXPIRED", invite.uid, "the invite has expired; ask for a new one");
  if (invite.singleUse && invite.redeemTime !== null) {
    return failedPrecondition("INVITE_USED", invite.uid, "the invite has already been used; ask for a new one");
  }
  if (claims === undefined || invite.email === "") return undefined;
  const email = claims.email;
  if (typeof email !== "string" || !sameEmailAddress(email, invite.email)) {
    return new ApiError(Code.PERMISSION_DENIED, "Permission denied: the invite is for another email address");
  }
  if (claims.email_verified !== true) {
    return new ApiError(
      Code.PERMISSION_DENIED,
      "Permission denied: the invite needs a verified email address, and the identity provider does not vouch for yours",
    );
  }
  return undefined;
}
