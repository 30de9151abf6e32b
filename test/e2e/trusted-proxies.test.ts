/**
 * X-Forwarded-For is believed only from a trusted proxy (ARBOR_TRUSTED_PROXIES), and then read
 * from the right: a client cannot choose the address the failed-authentication throttle, the
 * login limits and the access log key on. Real server, requests from real loopback addresses
 * (127.0.0.2 is the client, 127.0.0.3 the proxy).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Config } from "../../src/config.js";
import { engines } from "../support/engines.js";
import { fetchFrom, type Answer } from "../support/from-address.js";
import { runArbor } from "../support/process.js";
import { startTestServer, type TestServer } from "../support/server.js";

const engine = engines[0]!;
/** Two refused credentials per address an hour, and no limit per identity: a third refusal is 429. */
const THROTTLE: Partial<Config> = { authFailuresPerAddress: { count: 2, periodMs: 3_600_000 }, authFailuresPerIdentity: undefined };
const CLIENT = "127.0.0.2";
const PROXY = "127.0.0.3";

function describeServer(title: string, settings: Partial<Config>, body: (t: () => TestServer) => void): void {
  describe(title, () => {
    let t: TestServer;
    beforeAll(async () => {
      t = await startTestServer(engine, { ...THROTTLE, ...settings });
    });
    afterAll(() => t?.close());
    body(() => t);
  });
}

/** A token exchange with a credential that is refused (401), from an address, with an X-Forwarded-For. */
const refusedExchange = (t: TestServer, from: string, forwardedFor?: string): Promise<Answer> =>
  fetchFrom(from, `${t.url}/sts/exchange?${new URLSearchParams({ aud: t.url, identity: "0".repeat(40) })}`, {
    headers: { authorization: "Bearer not.a.token", ...(forwardedFor !== undefined && { "x-forwarded-for": forwardedFor }) },
  });

const statuses = async (n: number, send: (i: number) => Promise<Answer>) => {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await send(i)).status);
  return out;
};

describeServer("without trusted proxies (the default)", {}, (t) => {
  it("ignores X-Forwarded-For: a new header per attempt does not dodge the per-address throttle", async () => {
    expect(await statuses(3, (i) => refusedExchange(t(), CLIENT, `198.51.100.${i + 1}`))).toEqual([401, 401, 429]);
    const logged = t().logs.filter((l) => l.msg === "request" && l.path === "/sts/exchange");
    expect(logged.map((l) => l.address)).toEqual([CLIENT, CLIENT, CLIENT]);
  });
});

describeServer("with a trusted proxy", { trustedProxies: [PROXY, "10.0.0.0/8"] }, (t) => {
  it("keys on the address the proxy appended, the rightmost one not itself trusted", async () => {
    // Each forwarded client has a budget of its own behind the one proxy.
    expect(await statuses(3, () => refusedExchange(t(), PROXY, "198.51.100.7"))).toEqual([401, 401, 429]);
    expect((await refusedExchange(t(), PROXY, "198.51.100.8")).status).toBe(401);
    // Whatever the client wrote itself is left of what the proxy appended: it does not help.
    expect((await refusedExchange(t(), PROXY, "203.0.113.1, 198.51.100.7")).status).toBe(429);
    expect((await refusedExchange(t(), PROXY, "203.0.113.2,198.51.100.7, 10.1.2.3")).status).toBe(429);
    // A trusted hop in the chain is skipped; an IPv4-mapped spelling is the IPv4 address.
    expect((await refusedExchange(t(), PROXY, "::ffff:198.51.100.7, 10.9.9.9")).status).toBe(429);
    const logged = t().logs.filter((l) => l.msg === "request" && l.path === "/sts/exchange");
    expect(logged.map((l) => l.address)).toEqual([
      "198.51.100.7",
      "198.51.100.7",
      "198.51.100.7",
      "198.51.100.8",
      "198.51.100.7",
      "198.51.100.7",
      "198.51.100.7",
    ]);
  });

  it("ignores X-Forwarded-For from a peer that is not trusted", async () => {
    expect(await statuses(3, (i) => refusedExchange(t(), CLIENT, `198.51.100.${50 + i}`))).toEqual([401, 401, 429]);
  });

  it("keys on the proxy itself when the header is missing or not an address", async () => {
    expect((await refusedExchange(t(), PROXY)).status).toBe(401);
    expect((await refusedExchange(t(), PROXY, "unknown")).status).toBe(401);
    expect((await refusedExchange(t(), PROXY, "")).status).toBe(429);
  });
});

describe("a bad ARBOR_TRUSTED_PROXIES", () => {
  it.each(["10.0.0.0/33", "proxy.internal", "fd00::/129", "::ffff:10.0.0.0/8"])(
    "%s stops arbor serve with exit code 2 naming it",
    async (value) => {
      const run = await runArbor(["serve", "--port", "0", "--data-dir", "/nonexistent/never-made"], { ARBOR_TRUSTED_PROXIES: value });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`arbor: ARBOR_TRUSTED_PROXIES: "${value}"`);
    },
  );
});
