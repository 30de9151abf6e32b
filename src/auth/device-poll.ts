/**
 * Headless login (RFC 8628), the CLI's half: its polls of the token endpoint with
 * grant_type=urn:ietf:params:oauth:grant-type:device_code. Each poll is recorded first, so one
 * that comes too soon is told to slow down (and the interval grows by 5 s, section 3.5) whatever
 * the login's state; then the answer is the state: authorization_pending, access_denied,
 * expired_token, or, once, the person who logged in.
 */
import type { Clock } from "../domain/clock.js";
import { failedPrecondition, unauthenticated, type ApiError } from "../domain/errors.js";
import type { UpstreamActor } from "../domain/login.js";
import type { Store } from "../store/store.js";
import { secretHash } from "./login-secrets.js";

/** The device grant's type. */
export const DEVICE_CODE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";
/** How much every slow_down adds to the interval (RFC 8628, 3.5). */
export const SLOW_DOWN_MS = 5_000;
/** How much sooner than the interval a poll may come without being too soon: networks jitter. */
export const POLL_SLACK_MS = 1_000;

/** The RFC 8628 errors, as the PreconditionFailure types (and, lower-cased, the OAuth `error`) of FAILED_PRECONDITION. */
export const DEVICE_ERRORS = ["AUTHORIZATION_PENDING", "SLOW_DOWN", "ACCESS_DENIED", "EXPIRED_TOKEN"] as const;

/**
 * The person a device code's login logged in, taken once. The RFC 8628 errors as
 * FAILED_PRECONDITION (HTTP 400, as RFC 6749 5.2 asks); UNAUTHENTICATED (invalid_grant) for a
 * device code that is unknown or whose tokens were taken already.
 */
export async function pollDevice(
  deps: { store: Store; clock: Clock },
  deviceCode: string,
): Promise<{ identityUid: string; actor: UpstreamActor }> {
  const { store, clock } = deps;
  const hash = secretHash(deviceCode);
  const now = clock.now();
  const poll = await store.devices.poll(hash, now, POLL_SLACK_MS, SLOW_DOWN_MS);
  if (poll === undefined) throw unknownDeviceCode();
  const { record, tooSoon } = poll;
  if (record.expireTime <= now) {
    await store.devices.take(hash, record.outcome.state);
    throw deviceError("EXPIRED_TOKEN", "the code has expired before a person logged in with it; run arbor auth login --headless again");
  }
  if (tooSoon) throw deviceError("SLOW_DOWN", `polled sooner than the interval; wait ${record.intervalMs / 1000}s between polls`);
  switch (record.outcome.state) {
    case "pending":
      throw deviceError("AUTHORIZATION_PENDING", "no one has logged in with the code yet");
    case "denied":
      await store.devices.take(hash, "denied");
      throw deviceError("ACCESS_DENIED", `the login was refused: ${record.outcome.denial}`);
    case "approved": {
      // Taken before tokens are issued: of two polls racing, one gets them.
      const taken = await store.devices.take(hash, "approved");
      if (taken?.outcome.state !== "approved") throw unknownDeviceCode();
      return { identityUid: taken.outcome.identityUid, actor: taken.outcome.actor };
    }
  }
}

function deviceError(type: (typeof DEVICE_ERRORS)[number], description: string): ApiError {
  return failedPrecondition(type, "", description);
}

function unknownDeviceCode(): ApiError {
  return unauthenticated("DEVICE_CODE_INVALID");
}
