/**
 * The fetch Arbor uses for upstream issuers (discovery, key sets, a provider's token endpoint):
 * it connects only to addresses the operator allows (domain/issuer-address.ts). The host name is
 * resolved once, every address it resolves to is checked, and the connection goes to the address
 * that was checked (node's `lookup` hook), so a name that resolves to a public address for the
 * check and a private one for the connection (DNS rebinding) gains nothing. TLS still verifies
 * the certificate against the name.
 */
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { request as httpRequest, type IncomingMessage, type RequestOptions } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { Readable } from "node:stream";
import { addressProblem, type AddressRules } from "../domain/issuer-address.js";

/** Resolves a host name to all its addresses (dns.lookup with `all`, by default). */
export type Resolve = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolve: Resolve = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true, verbatim: true }, (e, addresses) => (e ? reject(e) : resolve(addresses))),
  );

/** A refused address: the request is never sent. */
export class AddressRefused extends Error {
  override readonly name = "AddressRefused";
}

/** A fetch (GET or POST, no redirects followed) that connects only to addresses rules allow. */
export function createIssuerFetch(rules: AddressRules, resolve: Resolve = systemResolve): typeof fetch {
  return async (input, init = {}) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
    const address = isIP(host) !== 0 ? { address: host, family: isIP(host) } : await checkedAddress(host, rules, resolve);
    const refused = addressProblem(address.address, rules);
    if (refused !== undefined) throw new AddressRefused(`${url.hostname} ${refused}`);
    const pinned: LookupFunction = (_name, options, callback) => {
      if ((options as { all?: boolean }).all === true) (callback as (e: null, a: LookupAddress[]) => void)(null, [address]);
      else callback(null, address.address, address.family);
    };
    const headers = new Headers(init.headers);
    if (init.body instanceof URLSearchParams && !headers.has("content-type"))
      headers.set("content-type", "application/x-www-form-urlencoded");
    const res = await send(
      url,
      { method: init.method ?? "GET", headers: Object.fromEntries(headers), lookup: pinned, signal: init.signal ?? undefined },
      init.body,
    );
    if (init.redirect === "error" && res.statusCode !== undefined && res.statusCode >= 300 && res.statusCode < 400) {
      res.destroy();
      throw new TypeError(`redirected to ${res.headers.location ?? "nowhere"}`);
    }
    return toResponse(res);
  };
}

/** The first address of hostname; AddressRefused when any of its addresses is refused. */
async function checkedAddress(hostname: string, rules: AddressRules, resolve: Resolve): Promise<LookupAddress> {
  const addresses = await resolve(hostname);
  for (const a of addresses) {
    const refused = addressProblem(a.address, rules);
    if (refused !== undefined) throw new AddressRefused(`${hostname} resolves to ${a.address}, which ${refused}`);
  }
  const first = addresses[0];
  if (first === undefined) throw new AddressRefused(`${hostname} resolves to no address`);
  return first;
}

function send(url: URL, options: RequestOptions, body: RequestInit["body"]): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = (url.protocol === "https:" ? httpsRequest : httpRequest)(url, options, resolve);
    req.on("error", reject);
    req.end(body === undefined || body === null ? undefined : String(body));
  });
}

function toResponse(res: IncomingMessage): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    for (const v of Array.isArray(value) ? value : [value]) if (v !== undefined) headers.append(name, v);
  }
  const status = res.statusCode ?? 502;
  const empty = status === 204 || status === 304 || (status >= 300 && status < 400);
  if (empty) res.resume();
  const body = empty ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
  return new Response(body, { status, headers });
}
