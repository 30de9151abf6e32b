/**
 * The notifications endpoint, `POST {base_url}/registry/notifications` (DESIGN 1.9): CNCF
 * Distribution posts its events here, authenticated by the shared secret it is configured with
 * (`Authorization: Bearer <secret>`). Manifest pushes and deletes go into the registry index.
 *
 * The answer is 2xx only once every event is indexed: Distribution retries a failed delivery, so
 * a store that cannot be reached loses nothing. An event that can never be indexed (its groups
 * are gone, its path is not a valid one) is logged and skipped instead: Distribution retries one
 * delivery forever, and a single such event would hold back every later one.
 */
import type { Logger } from "pino";
import { Code, invalidArgument, isApiError, unauthenticated } from "../../domain/errors.js";
import type { RegistryIndex } from "../../services/registry/registry-index.js";
import { bearerIs, bearerToken, readBody, writeJson, type AnyRequest, type AnyResponse } from "../http/http-util.js";
import { parseRegistryEvents, type RegistryEvent } from "./registry-events.js";
import type { RequestLog } from "../http/request-log.js";

/** What the endpoint is built from. */
export interface RegistryNotificationsDeps {
  index: Pick<RegistryIndex, "pushed" | "deleted">;
  /** The shared secret (created on first use). */
  secret: () => Promise<string>;
  logger: Logger;
  maxBodyBytes: number;
}

/** Codes of errors that retrying the same event cannot cure. */
const PERMANENT: ReadonlySet<number> = new Set([Code.INVALID_ARGUMENT, Code.NOT_FOUND, Code.FAILED_PRECONDITION, Code.OUT_OF_RANGE]);

/** Serves one delivery; refusals are thrown as ApiErrors for the handler to answer. */
export async function serveRegistryNotifications(
  deps: RegistryNotificationsDeps,
  req: AnyRequest,
  res: AnyResponse,
  record: RequestLog,
): Promise<void> {
  record.route = "POST /registry/notifications";
  if (!(await authorized(req, deps.secret))) {
    throw unauthenticated("NOTIFICATIONS_SECRET");
  }
  const body = await readBody(req, deps.maxBodyBytes);
  let json: unknown;
  try {
    json = JSON.parse(body.toString("utf8"));
  } catch {
    throw invalidArgument("body", "is not JSON: expected a Distribution events envelope");
  }
  const events = parseRegistryEvents(json);
  let skipped = 0;
  for (const e of events) {
    try {
      await index(deps.index, e);
    } catch (err) {
      if (!isApiError(err) || !PERMANENT.has(err.code)) throw err;
      skipped++;
      deps.logger.warn({ repository: e.event.repository, action: e.kind, reason: err.message }, "registry event skipped");
    }
  }
  record.code = 0;
  writeJson(res, 200, { indexed: events.length - skipped, skipped });
}

function index(target: RegistryNotificationsDeps["index"], e: RegistryEvent): Promise<void> {
  return e.kind === "push" ? target.pushed(e.event) : target.deleted(e.event);
}

/** Compares the bearer secret in constant time. */
async function authorized(req: AnyRequest, secret: () => Promise<string>): Promise<boolean> {
  return bearerToken(req.headers.authorization) !== undefined && bearerIs(req, await secret());
}
