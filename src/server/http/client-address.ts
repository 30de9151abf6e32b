/**
 * The client's address: the TCP peer, or, when the peer is a trusted reverse proxy
 * (ARBOR_TRUSTED_PROXIES), the address X-Forwarded-For says that proxy got the request from. The
 * per-address limits, the login throttle and the access log key on it, so it must not be
 * something a client can choose: the header is read only from trusted peers, and from the right,
 * where each trusted proxy appends the address it saw; whatever a client wrote itself is to the
 * left of that and never reached.
 */
import type { AddressRanges } from "../../domain/address-ranges.js";
import { normalizeAddress } from "../../domain/address-ranges.js";
import type { AnyRequest } from "./http-util.js";

/** Finds the client address of a request. */
export type ClientAddress = (req: AnyRequest) => string | undefined;

/** Without trusted proxies, the peer; with them, the rightmost X-Forwarded-For hop not itself trusted. */
export function createClientAddress(trusted: AddressRanges): ClientAddress {
  return (req) => {
    const raw = req.socket.remoteAddress;
    const peer = raw === undefined ? undefined : (normalizeAddress(raw) ?? raw);
    if (peer === undefined || trusted.entries.length === 0 || !trusted.has(peer)) return peer;
    const value = req.headers["x-forwarded-for"];
    const hops = (Array.isArray(value) ? value.join(",") : (value ?? "")).split(",");
    let client = peer;
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = normalizeAddress(hops[i] as string);
      // Not an address (empty, "unknown", with a port): the last trusted hop is as far as is known.
      if (hop === undefined) break;
      client = hop;
      if (!trusted.has(hop)) break;
    }
    return client;
  };
}
