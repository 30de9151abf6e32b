/**
 * Percent-decoding of URL parts, in the two flavours google.api.http defines: full decoding for
 * single-segment variables and query parameters, and reserved decoding (`%2F` kept as written)
 * for variables spanning several segments; plus Arbor's own for uid variables, where `%2F` may
 * separate the uid's segments.
 */
import { invalidArgument } from "../../domain/errors.js";
import { isUid } from "../../domain/uid.js";

const MALFORMED = "is not valid percent-encoded UTF-8";

/**
 * Decodes every percent-escape of raw. Malformed escapes and invalid UTF-8 are the caller's
 * mistake, so they become INVALID_ARGUMENT naming field instead of a URIError.
 */
export function percentDecode(raw: string, field: string): string {
  if (!raw.includes("%")) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    throw invalidArgument(field, MALFORMED);
  }
}

/**
 * Decodes raw like percentDecode but leaves `%2F`/`%2f` as written: a multi-segment variable must
 * not gain a `/` the client escaped, or `abc%2Fdef` would pass for a two-segment uid.
 */
export function percentDecodeReserved(raw: string, field: string): string {
  if (!raw.includes("%")) return raw;
  // With a capturing split, the escaped slashes sit at the odd indexes and stay untouched.
  const parts = raw.split(/(%2[fF])/);
  for (let i = 0; i < parts.length; i += 2) parts[i] = percentDecode(parts[i] ?? "", field);
  return parts.join("");
}

const ESCAPED_SLASH = /%2[fF]/;

/**
 * Decodes the raw text of a uid variable (`{uid=**}`): like percentDecodeReserved, except that an
 * escaped slash may stand for the `/` between a uid's segments, since generic OpenAPI clients
 * percent-encode every `/` of a path parameter. Decoding is one pass over what was sent, so
 * `%252F` is the text `%2F` and never a separator. A value with an escaped slash is accepted only
 * when, decoded, it is a whole well-formed uid (hex segments: no `..`, no empty segment, nothing
 * else); anything else is INVALID_ARGUMENT naming field, so `%2F` cannot smuggle a separator into
 * any other value.
 */
export function percentDecodeUid(raw: string, field: string): string {
  if (!ESCAPED_SLASH.test(raw)) return percentDecodeReserved(raw, field);
  const decoded = percentDecode(raw, field);
  if (!isUid(decoded)) {
    const shown = decoded.length > 80 ? `${decoded.slice(0, 77)}...` : decoded;
    throw invalidArgument(field, `"${shown}" is not a valid uid: an encoded slash (%2F) is accepted only between the segments of a uid`);
  }
  return decoded;
}

/** Decodes one name or value of an `application/x-www-form-urlencoded` query, where `+` is a space. */
export function formDecode(raw: string, field: string): string {
  return percentDecode(raw.includes("+") ? raw.replaceAll("+", " ") : raw, field);
}
