/**
 * Headless login (RFC 8628), the person's half. The CLI asks for a device authorization and
 * shows the person a user code and Arbor's verification page; there the person confirms the
 * code, and goes through the very login a browser login goes through (login-begin.ts), with
 * the same provider, limits and invite; the provider's callback (login-flow.ts) then settles
 * the device authorization here instead of sending the browser to a loopback listener. The
 * CLI's polls are device-poll.ts.
 */
import type { Clock } from "../domain/clock.js";
import { ApiError, Code, failedPrecondition, isApiError, unauthenticated } from "../domain/errors.js";
import { createRateLimiter, type RateLimiter } from "../domain/rate-limit.js";
import { newUserCode, normalizeUserCode } from "../domain/user-code.js";
import type { LoginAttemptAdmission, UpstreamActor } from "../domain/login.js";
import type { Store } from "../store/store.js";
import {
  addressHash,
  beginAtProvider,
  chooseLogin,
  loginsExhausted,
  MAX_LIVE_LOGIN_ATTEMPTS,
  organizationOf,
  type LoginBeginDeps,
  type LoginOutcome,
} from "./login-begin.js";
import { newSecret, secretHash } from "./login-secrets.js";
import { providerOfAttempt } from "./login-provider.js";

/** How long a device code and its user code are good for. */
export const DEVICE_CODE_TTL_MS = 10 * 60_000;
/** How long the CLI waits between polls, unless told to slow down. */
export const DEVICE_POLL_INTERVAL_MS = 5_000;
/** The prefix of device codes. */
export const DEVICE_CODE_PREFIX = "arbdev_";
/**
 * Wrong user codes entered at this replica, from every address together, per minute: with at
 * most MAX_LIVE_LOGIN_ATTEMPTS live codes among 20^8, a minute's guesses find one with a
 * probability under 1 in 4,000 even when that many are live (per address, the credential
 * throttle is far stricter still).
 */
export const USER_CODE_FAILURES_PER_MINUTE = 600;

/** The device authorization response (RFC 8628, 3.2). */
export interface DeviceAuthorizationResponse {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

/** The device half of people's login. */
export class DeviceFlow {
  readonly #deps: LoginBeginDeps;
  readonly #failures: RateLimiter;

  constructor(deps: LoginBeginDeps) {
    this.#deps = deps;
    this.#failures = createRateLimiter({ count: USER_CODE_FAILURES_PER_MINUTE, periodMs: 60_000 }, deps.clock);
  }

  /**
   * `POST {auth_url}/oauth/device_authorization` from the client at address: the provider is
   * chosen now, so a login that cannot work (no provider, bad invite, provider down) fails now.
   */
  async authorize(params: URLSearchParams, address: string | undefined): Promise<DeviceAuthorizationResponse> {
    const { store, clock, ids } = this.#deps;
    const { provider, inviteCodeHash } = await chooseLogin(this.#deps, params.get("org") || undefined, params.get("invite") || undefined);
    const deviceCode = newSecret(ids, DEVICE_CODE_PREFIX);
    for (let tries = 0; ; tries++) {
      const userCode = newUserCode(ids);
      const now = clock.now();
      const record = {
        deviceCodeHash: secretHash(deviceCode),
        userCodeHash: secretHash(userCode),
        providerUid: provider.uid,
        issuer: provider.issuer,
        clientId: provider.clientId,
        inviteCodeHash,
        addressHash: addressHash(address),
        organizationUid: organizationOf(provider),
        intervalMs: DEVICE_POLL_INTERVAL_MS,
        lastPollTime: null,
        outcome: { state: "pending" } as const,
        createTime: now,
        expireTime: now + DEVICE_CODE_TTL_MS,
      };
      let admission: LoginAttemptAdmission;
      try {
        admission = await store.devices.insert(record, { live: MAX_LIVE_LOGIN_ATTEMPTS, ...this.#deps.limits });
      } catch (e) {
        // Two live user codes alike: rare (20^8 codes); draw another.
        if (isApiError(e) && e.code === Code.ALREADY_EXISTS && tries < 3) continue;
        throw e;
      }
      if (admission !== "stored") throw loginsExhausted(admission);
      const verificationUri = `${this.#deps.issuer()}/oauth/device`;
      return {
        device_code: deviceCode,
        user_code: userCode,
        verification_uri: verificationUri,
        verification_uri_complete: `${verificationUri}?${new URLSearchParams({ user_code: userCode })}`,
        expires_in: DEVICE_CODE_TTL_MS / 1000,
        interval: DEVICE_POLL_INTERVAL_MS / 1000,
      };
    }
  }

  /**
   * The person confirmed a user code at the verification page (a POST its CSRF check let
   * through): the authorization's login begins at its provider. INVALID_ARGUMENT for a code
   * that is not one; UNAUTHENTICATED for one that is no (longer a) pending login, which the
   * caller counts as a refused credential; RESOURCE_EXHAUSTED past the replica's guesses.
   */
  async verify(typed: string, address: string | undefined): Promise<string> {
    const { store, clock } = this.#deps;
    const wait = this.#failures.wait("all");
    if (wait > 0) {
      const seconds = Math.ceil(wait / 1000);
      throw new ApiError(
        Code.RESOURCE_EXHAUSTED,
        `Resource exhausted: too many wrong codes were entered at this server; retry in ${seconds}s`,
        { retryDelayMs: seconds * 1000 },
      );
    }
    const userCode = normalizeUserCode(typed);
    const device = await store.devices.findPending(secretHash(userCode), clock.now());
    if (device === undefined) {
      this.#failures.take("all");
      throw unauthenticated("DEVICE_USER_CODE_INVALID");
    }
    // The provider chosen when the CLI asked, as it is now (FAILED_PRECONDITION if it changed since).
    const provider = await providerOfAttempt(store, this.#deps.defaultProvider, device);
    const client = { redirectUri: "", codeChallenge: "", clientState: "", deviceCodeHash: device.deviceCodeHash };
    return beginAtProvider(this.#deps, { provider, inviteCodeHash: device.inviteCodeHash }, client, address);
  }
}

/** The callback of a device's login: the person is logged in; the CLI's next poll takes the tokens. */
export async function finishDevice(
  deps: { store: Store; clock: Clock },
  deviceCodeHash: string,
  identityUid: string,
  actor: UpstreamActor,
): Promise<LoginOutcome> {
  if (!(await deps.store.devices.settle(deviceCodeHash, { state: "approved", identityUid, actor }, deps.clock.now()))) {
    return {
      page: failedPrecondition(
        "DEVICE_LOGIN_OVER",
        "",
        "this device login has expired or finished already; run arbor auth login --headless again",
      ),
    };
  }
  return { deviceLoggedIn: true };
}

/**
 * The callback of a device's login failed: the CLI hears access_denied with the reason, unless
 * the failure may pass (the provider or store unavailable, a limit), when the person may enter
 * the code again.
 */
export async function refuseDevice(deps: { store: Store; clock: Clock }, deviceCodeHash: string, error: ApiError): Promise<LoginOutcome> {
  const passing = error.code === Code.UNAVAILABLE || error.code === Code.RESOURCE_EXHAUSTED || error.code === Code.INTERNAL;
  if (!passing) await deps.store.devices.settle(deviceCodeHash, { state: "denied", denial: error.message }, deps.clock.now());
  return { page: error };
}
