/**
 * The issuers' fetch connects only to allowed addresses: a name is resolved once, every address
 * is checked, and the connection goes to the checked one.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AddressRefused, createIssuerFetch, type Resolve } from "../../src/auth/issuer-fetch.js";
import { fetchJsonObject } from "../../src/auth/upstream-fetch.js";
import { addressKind } from "../../src/domain/issuer-address.js";

const policy = { allowHttpLoopback: true, timeoutMs: 2_000, maxBytes: 1024 };

describe("the issuers' fetch", () => {
  let server: Server;
  let port: number;
  const seen: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(`${req.method} ${req.headers.host} ${req.url}`);
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ ok: true }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** A resolver answering these addresses for every name, and counting its calls. */
  const resolver = (...addresses: string[]): Resolve & { calls: number } => {
    const r = Object.assign(
      async () => {
        r.calls++;
        return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
      },
      { calls: 0 },
    );
    return r;
  };

  it("connects to the address it checked, keeping the name for the Host header", async () => {
    const resolve = resolver("127.0.0.1");
    const fetchImpl = createIssuerFetch({ allowLoopback: true, allowPrivate: false }, resolve);
    expect(await fetchJsonObject(`http://localhost:${port}/.well-known/openid-configuration`, policy, fetchImpl)).toEqual({ ok: true });
    expect(seen.at(-1)).toBe(`GET localhost:${port} /.well-known/openid-configuration`);
    expect(resolve.calls).toBe(1);
  });

  it.each([
    [["10.0.0.5"], "is a private address"],
    [["192.168.1.20"], "is a private address"],
    [["203.0.113.7", "10.0.0.5"], "is a private address"],
    [["169.254.169.254"], "is a link-local address"],
    [["::ffff:169.254.169.254"], "is a link-local address"],
    [["fd00::1"], "is a private address"],
    [["127.0.0.1"], "is a loopback address"],
  ])("refuses a name resolving to %j before any request", async (addresses, why) => {
    const before = seen.length;
    const fetchImpl = createIssuerFetch({ allowLoopback: false, allowPrivate: false }, resolver(...addresses));
    const failure = await fetchJsonObject(`https://issuer.test:${port}/x`, policy, fetchImpl).catch((e: unknown) => e);
    expect(failure).toMatchObject({ name: "FetchFailure", kind: "unreachable", cause: { name: "AddressRefused" } });
    await expect(fetchImpl(`https://issuer.test:${port}/x`)).rejects.toThrow(new RegExp(`${why}$`));
    expect(seen.length).toBe(before);
  });

  it("refuses a literal private address, and allows private ones when the operator does", async () => {
    const strict = createIssuerFetch({ allowLoopback: false, allowPrivate: false }, resolver());
    await expect(strict("https://10.1.2.3/x")).rejects.toBeInstanceOf(AddressRefused);
    await expect(strict(`http://127.0.0.1:${port}/x`)).rejects.toThrow("127.0.0.1 is a loopback address");
    const loose = createIssuerFetch({ allowLoopback: true, allowPrivate: true }, resolver("10.0.0.5"));
    await expect(loose("https://issuer.test/x", { signal: AbortSignal.timeout(50) })).rejects.not.toBeInstanceOf(AddressRefused);
  });

  it.each([
    ["8.8.8.8", undefined],
    ["2606:4700::1111", undefined],
    ["100.64.0.1", "private"],
    ["172.31.255.255", "private"],
    ["172.32.0.1", undefined],
    ["64:ff9b::a00:1", "private"],
    ["2002:a9fe:a9fe::1", "link-local"],
    ["::", "reserved"],
    ["ff02::1", "reserved"],
  ])("classifies %s as %s", (ip, kind) => {
    expect(addressKind(ip)).toBe(kind);
  });
});
