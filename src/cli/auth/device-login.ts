/**
 * `arbor auth login --headless`: the OAuth device authorization grant (RFC 8628) for a person
 * whose browser is on another machine (SSH, a container). The server gives a user code and a
 * page; the person opens the page anywhere and enters the code; meanwhile this process polls
 * the token endpoint at the interval the server asked for, five seconds slower after each
 * slow_down, until the person has logged in, refused, or the code expired.
 */
import type { ClientConfig } from "./client-config.js";
import { postForm, ServerError, UnreachableError, type JsonObject } from "./http.js";
import { keepPersonLogin, loginForm, loginRefused } from "./person-login.js";
import { AuthError } from "./tokens.js";

/** The device grant's type. */
const DEVICE_CODE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";
/** The interval when the server names none (RFC 8628, 3.2), and what a slow_down adds. */
const DEFAULT_INTERVAL_MS = 5_000;

/** Options of a headless login. */
export interface DeviceLoginOptions {
  org?: string;
  invite?: string;
  /** How long to wait at most; by default until the code expires. */
  timeoutMs?: number;
  /** Where messages for the person go (stderr). */
  say: (text: string) => void;
  /** Waits ms; tests may hurry it. */
  sleep?: (ms: number) => Promise<void>;
}

/** Logs a person in through the device flow; resolves with their identity uid once the tokens are cached. */
export async function deviceLogin(config: ClientConfig, options: DeviceLoginOptions): Promise<string> {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  // The server refuses here, with its reason, a login that cannot work (no provider, a bad invite).
  const grant = await postForm(`${config.issuer}/oauth/device_authorization`, loginForm(options.org, options.invite)).catch(
    (e: unknown) => {
      throw loginRefused(e);
    },
  );
  const deviceCode = text(grant, "device_code");
  const userCode = text(grant, "user_code");
  const page = text(grant, "verification_uri");
  const expiresInMs = seconds(grant, "expires_in", 600) * 1000;
  let intervalMs = seconds(grant, "interval", DEFAULT_INTERVAL_MS / 1000) * 1000;
  const complete = typeof grant.verification_uri_complete === "string" ? grant.verification_uri_complete : undefined;
  const minutes = Math.max(1, Math.round(expiresInMs / 60_000));
  options.say(
    `To log in, open this page in a browser on any device:\n\n  ${page}\n\nand enter the code:\n\n  ${userCode}\n\n` +
      (complete === undefined ? "" : `(or open ${complete} and check that it shows this code)\n\n`) +
      `Waiting for you to log in (the code expires in ${minutes} minute${minutes === 1 ? "" : "s"})...`,
  );
  const waitMs = Math.min(expiresInMs, options.timeoutMs ?? expiresInMs);
  const deadline = Date.now() + waitMs;
  for (;;) {
    await sleep(intervalMs);
    if (Date.now() >= deadline) {
      throw new AuthError(`no one logged in with the code within ${Math.round(waitMs / 1000)}s; run arbor auth login --headless again`);
    }
    try {
      return await keepPersonLogin(
        config,
        await postForm(`${config.issuer}/oauth/token`, { grant_type: DEVICE_CODE_GRANT, device_code: deviceCode }),
      );
    } catch (e) {
      // A network blip is not the end of a login that may be finishing: poll again.
      if (e instanceof UnreachableError) continue;
      if (!(e instanceof ServerError)) throw e;
      // A busy server (a throttle, a store briefly away) is waited out like a slow_down.
      if (e.status === 429 || e.status === 503) {
        intervalMs += DEFAULT_INTERVAL_MS;
        continue;
      }
      switch (e.oauthError) {
        case "authorization_pending":
          continue;
        case "slow_down":
          intervalMs += DEFAULT_INTERVAL_MS;
          continue;
        case "access_denied":
          throw new AuthError(`login failed: ${e.message}`);
        case "expired_token":
          throw new AuthError("the code expired before anyone logged in with it; run arbor auth login --headless again");
        case undefined:
        default:
          throw e;
      }
    }
  }
}

function text(answer: JsonObject, field: string): string {
  const value = answer[field];
  if (typeof value !== "string" || value === "") throw new AuthError(`the server's device authorization has no ${field}`);
  return value;
}

/** A positive number of seconds from the answer, else fallback. */
function seconds(answer: JsonObject, field: string, fallback: number): number {
  const value = answer[field];
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : fallback;
}
