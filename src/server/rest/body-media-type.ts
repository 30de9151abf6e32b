/**
 * The media type of REST request bodies: JSON, as the spec has it ("the Content-Type for bodies
 * is application/json"). A body declared as anything else (fetch's default text/plain, curl -d's
 * form type, none at all) is refused before it is read rather than guessed at, so a client learns
 * at its first call what it must send.
 */
import { invalidArgument } from "../../domain/errors.js";
import { HttpStatusError } from "../errors-to-wire.js";

/** The one media type a body may declare. */
export const BODY_MEDIA_TYPE = "application/json";

/**
 * Throws INVALID_ARGUMENT, as HTTP 415, naming `content-type`, unless contentType is
 * application/json, with no charset or UTF-8 (JSON's only encoding, RFC 8259 8.1).
 */
export function requireJsonBody(contentType: string | undefined): void {
  const [media = "", ...params] = (contentType ?? "").split(";");
  const type = media.trim().toLowerCase();
  if (type !== BODY_MEDIA_TYPE) {
    const sent = type === "" ? "without a Content-Type" : `as ${type}`;
    throw unsupported(`a request body must be sent as ${BODY_MEDIA_TYPE}, not ${sent}`);
  }
  for (const param of params) {
    const [name = "", value = ""] = param.split("=", 2).map((s) => s.trim().toLowerCase());
    if (name === "charset" && value.replace(/^"(.*)"$/, "$1") !== "utf-8") {
      throw unsupported(`a JSON body is UTF-8; charset ${value} is not accepted`);
    }
  }
}

function unsupported(description: string): HttpStatusError {
  return new HttpStatusError(415, invalidArgument("content-type", description));
}
