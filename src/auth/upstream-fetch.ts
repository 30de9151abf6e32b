/**
 * Fetching an upstream issuer's documents (discovery, JWKS) under a strict policy: https only
 * (http on loopback when allowed), a time limit, a size limit, and redirects followed only within
 * the same origin. An upstream issuer is someone else's server; nothing it does may hold a
 * request of ours for long or fill our memory.
 */
import { isLoopbackHost } from "../domain/issuer-address.js";

/** How a fetch is bounded. */
export interface FetchPolicy {
  /** Whether http:// URLs on loopback hosts are allowed (tests, local development). */
  allowHttpLoopback: boolean;
  /** The whole exchange, body included, in milliseconds. */
  timeoutMs: number;
  /** The largest body accepted, in bytes. */
  maxBytes: number;
}

/** Why a fetch failed: the URL is refused, the server did not answer well, or the body is unusable. */
export type FetchFailureKind = "url" | "unreachable" | "invalid";

/** A failed fetch; the verifier turns it into a reason for the caller. */
export class FetchFailure extends Error {
  override readonly name = "FetchFailure";
  readonly kind: FetchFailureKind;

  constructor(kind: FetchFailureKind, message: string, options?: ErrorOptions) {
    super(message, options);
    this.kind = kind;
  }
}

/** The most same-origin redirects followed. */
const MAX_REDIRECTS = 3;

/**
 * Tells whether url may be fetched: an absolute https URL without credentials, or http on a
 * loopback host when allowed.
 */
export function isFetchableUrl(url: string, allowHttpLoopback: boolean): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.username !== "" || parsed.password !== "") return false;
  if (parsed.protocol === "https:") return true;
  return parsed.protocol === "http:" && allowHttpLoopback && isLoopbackHost(parsed.hostname);
}

/** GETs url and parses its body as a JSON object, within the policy; FetchFailure otherwise. */
export async function fetchJsonObject(url: string, policy: FetchPolicy, fetchImpl: typeof fetch): Promise<Record<string, unknown>> {
  const signal = AbortSignal.timeout(policy.timeoutMs);
  let current = url;
  for (let hop = 0; ; hop++) {
    if (!isFetchableUrl(current, policy.allowHttpLoopback)) throw new FetchFailure("url", `refused URL ${current}`);
    let res: Response;
    try {
      res = await untilAborted(fetchImpl(current, { redirect: "manual", signal, headers: { accept: "application/json" } }), signal);
    } catch (e) {
      throw new FetchFailure("unreachable", `GET ${current} failed`, { cause: e });
    }
    if (res.status >= 300 && res.status < 400) {
      await res.body?.cancel();
      const location = res.headers.get("location");
      const next = location === null ? undefined : URL.parse(location, current);
      // Another origin could be anyone's server; the issuer vouches only for its own.
      if (next === undefined || next === null || next.origin !== new URL(current).origin || hop >= MAX_REDIRECTS) {
        throw new FetchFailure("unreachable", `GET ${current} redirected elsewhere`);
      }
      current = next.href;
      continue;
    }
    if (res.status !== 200) {
      await res.body?.cancel();
      throw new FetchFailure("unreachable", `GET ${current} answered ${res.status}`);
    }
    const text = await untilAborted(readBounded(res, policy.maxBytes, current), signal).catch(async (e: unknown) => {
      await res.body?.cancel().catch(() => undefined);
      throw e instanceof FetchFailure ? e : new FetchFailure("unreachable", `GET ${current} took too long`, { cause: e });
    });
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new FetchFailure("invalid", `GET ${current} did not answer JSON`);
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      throw new FetchFailure("invalid", `GET ${current} did not answer a JSON object`);
    }
    return parsed as Record<string, unknown>;
  }
}

/** p, or a rejection once signal aborts: the time limit holds even for a fetch that ignores it. */
function untilAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason instanceof Error ? signal.reason : new Error("aborted"));
    if (signal.aborted) return abort();
    signal.addEventListener("abort", abort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener("abort", abort));
  });
}

/** The body of res as text, refusing more than maxBytes (FetchFailure "invalid"). */
export async function readBounded(res: Response, maxBytes: number, url: string): Promise<string> {
  const declared = Number(res.headers.get("content-length") ?? "0");
  if (declared > maxBytes) {
    await res.body?.cancel();
    throw new FetchFailure("invalid", `GET ${url} answered more than ${maxBytes} bytes`);
  }
  if (res.body === null) return "";
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = res.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel();
        throw new FetchFailure("invalid", `GET ${url} answered more than ${maxBytes} bytes`);
      }
      chunks.push(value);
    }
  } catch (e) {
    if (e instanceof FetchFailure) throw e;
    throw new FetchFailure("unreachable", `GET ${url} failed while reading`, { cause: e });
  }
  return Buffer.concat(chunks).toString("utf8");
}
