/**
 * Percent-decoding of URL parts, in the two flavours google.api.http defines: full decoding for
 * single-segment variables and query parameters, and reserved decoding (`%2F` kept as written)
 * for variables spanning several segments.
 */
import { invalidArgument } from "../../domain/errors.js";

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

/** Decodes one name or value of an `application/x-www-form-urlencoded` query, where `+` is a space. */
export function formDecode(raw: string, field: string): string {
  return percentDecode(raw.includes("+") ? raw.replaceAll("+", " ") : raw, field);
}
