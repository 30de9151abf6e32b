/**
 * The `WWW-Authenticate` challenge a 401 from the API carries (RFC 6750 section 3), so that HTTP
 * clients and libraries learn which scheme to answer with and why their token was refused.
 */
import { UnauthenticatedError, type ApiError } from "../../domain/errors.js";
import { header, type AnyRequest } from "./http-util.js";

/** The protection space of API tokens, as the registry's token endpoint names it too. */
export const REALM = "arbor";

/**
 * The challenge for a refused request. A request that sent no credentials gets the bare
 * challenge (RFC 6750 3.1: no error code then); one that sent any gets `error="invalid_token"`
 * and the refusal's sentence as `error_description`, reduced to the characters a quoted string
 * allows there.
 */
export function bearerChallenge(req: AnyRequest, err: ApiError): string {
  const challenge = `Bearer realm="${REALM}"`;
  if ((header(req, "authorization") ?? "").trim() === "") return challenge;
  const sentence = err instanceof UnauthenticatedError ? err.why : err.message;
  const why = sentence.replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, "");
  return `${challenge}, error="invalid_token", error_description="${why}"`;
}
