/**
 * Page tokens: opaque, URL-safe and authenticated with an HMAC under a secret every replica
 * shares. A token carries a digest of the query it belongs to, the sort key of the last item
 * returned, that item's position, and when it was issued.
 */
import { createHash, createHmac, createSecretKey, timingSafeEqual, type KeyObject } from "node:crypto";
import type { Clock } from "./clock.js";
import { invalidArgument } from "./errors.js";

/** How long a token is good for: after this it silently restarts the query (spec, Limits). */
export const PAGE_TOKEN_TTL_MS = 3 * 24 * 60 * 60 * 1000;

const TAG_BYTES = 16;

/** What a valid page token says. */
export interface Cursor {
  key: (string | number)[];
  position: number;
}

interface Payload {
  v: 1;
  q: string;
  k: (string | number)[];
  p: number;
  t: number;
}

/** Issues and reads page tokens. */
export class PageTokens {
  /**
   * A KeyObject, made once: createHmac given the bytes took 14 µs a tag here, given this 2.6 µs
   * (Node 24), and a page that has a next one reads a tag and makes one.
   */
  readonly #secret: KeyObject;
  readonly #clock: Clock;

  constructor(secret: Buffer, clock: Clock) {
    if (secret.length < 32) throw new RangeError("page token secret must be at least 32 bytes");
    this.#secret = createSecretKey(secret);
    this.#clock = clock;
  }

  /** A short digest of a resource's query (filters and order), to bind tokens to it. */
  digest(resource: string, query: unknown, order: string): string {
    const text = JSON.stringify([resource, query, order]);
    return createHash("sha256").update(text).digest("base64url").slice(0, 16);
  }

  /** Issues a token that continues after the item with sort key `key` at `position`. */
  issue(digest: string, key: (string | number)[], position: number): string {
    const payload: Payload = { v: 1, q: digest, k: key, p: position, t: this.#clock.now() };
    const body = Buffer.from(JSON.stringify(payload)).toString("base64url");
    return `${body}.${this.#tag(body)}`;
  }

  /**
   * Reads a token for a query with the given digest. Returns undefined when an authentic token
   * has expired, whatever query it was issued for (the query restarts); throws INVALID_ARGUMENT
   * when it is malformed, forged, or, unexpired, was issued for other filters or another order.
   */
  read(token: string, digest: string, keyLength: number): Cursor | undefined {
    const bad = () => invalidArgument("page_token", "is not a valid page token");
    const dot = token.indexOf(".");
    if (dot <= 0 || token.length > 4096) throw bad();
    const body = token.slice(0, dot);
    const tag = Buffer.from(token.slice(dot + 1), "base64url");
    const want = Buffer.from(this.#tag(body), "base64url");
    if (tag.length !== want.length || !timingSafeEqual(tag, want)) throw bad();
    let payload: Payload;
    try {
      payload = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as Payload;
    } catch {
      throw bad();
    }
    if (payload.v !== 1 || typeof payload.t !== "number") throw bad();
    // Expiry first: an expired token restarts the query whatever it was issued for (spec, List
    // rule 3), so a client that changed its filters along with it gets a first page, not an error.
    if (this.#clock.now() - payload.t > PAGE_TOKEN_TTL_MS) return undefined;
    if (!Array.isArray(payload.k) || payload.k.length !== keyLength) throw bad();
    if (payload.q !== digest) {
      throw invalidArgument(
        "page_token",
        "was issued for other filters or another order_by; send the same parameters as the first page, or no token",
      );
    }
    return { key: payload.k, position: payload.p };
  }

  #tag(body: string): string {
    return createHmac("sha256", this.#secret).update(body).digest().subarray(0, TAG_BYTES).toString("base64url");
  }
}
