/**
 * Limits, each refused clearly and cheaply on a real server: rates per address, per identity and
 * on the credential endpoints (429, code 8, Retry-After, RetryInfo, over REST and gRPC), header
 * count and size, slow headers, slow bodies, and the connection cap.
 */
import net from "node:net";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engines } from "../support/engines.js";
import { call, failure, loadProtos, statusOf } from "../support/grpc.js";
import { detailOf } from "../support/rest.js";
import { printFigures } from "../support/figures.js";
import { startTestServer, type TestServer } from "../support/server.js";

const engine = engines[0]!;
const RETRY_INFO = "google.rpc.RetryInfo";

describe("rate limits", () => {
  let t: TestServer;
  let token: string;
  let org: string;

  beforeAll(async () => {
    t = await startTestServer(engine, {
      rateLimitPerAddress: { count: 9, periodMs: 3_600_000 },
      rateLimitPerIdentity: { count: 3, periodMs: 3_600_000 },
      exchangeRateLimit: { count: 2, periodMs: 3_600_000 },
    });
    const made = await t.organization("limited");
    token = made.token;
    org = made.org.uid;
  });
  afterAll(async () => {
    await t?.close();
  });

  it("refuses an identity past its rate with 429, code 8, Retry-After and RetryInfo; health is never limited", async () => {
    for (let i = 0; i < 3; i++) expect((await t.fetch(`/iam/v2beta1/groups/${org}`, { token })).status).toBe(200);
    const refused = await t.fetch(`/iam/v2beta1/groups/${org}`, { token });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    const body = (await refused.json()) as Record<string, any>;
    expect(body.code).toBe(8);
    expect(body.message).toMatch(/^Resource exhausted: too many requests from this identity; retry in \d+s$/);
    expect(detailOf(body, RETRY_INFO)?.retryDelay).toMatch(/^\d+s$/);
    expect(detailOf(body, "google.rpc.ErrorInfo")?.reason).toBe("RESOURCE_EXHAUSTED");
    for (let i = 0; i < 5; i++) expect((await t.fetch("/healthz")).status).toBe(200);
  });

  it("refuses the credential endpoints past their own, tighter rate", async () => {
    const codes = [];
    for (let i = 0; i < 3; i++) codes.push((await t.fetch("/sts/exchange?aud=x&identity=y")).status);
    expect(codes.slice(0, 2).every((c) => c !== 429)).toBe(true);
    expect(codes[2]).toBe(429);
    // One budget per address across every endpoint that takes credentials.
    expect((await t.fetch("/registry/token?service=x&scope=repository:a/b:pull")).status).toBe(429);
    expect((await t.fetch("/oauth/token", { method: "POST", body: "grant_type=refresh_token" })).status).toBe(429);
  });

  it("refuses cheaply: past its rate, an address is answered 429 before any other work", async () => {
    // This address has spent its budget (the cases above); time a stream of its requests. A
    // figure for docs/reliability.md, not an assertion: timing is the benchmarks' business.
    const n = 2_000;
    const started = performance.now();
    for (let i = 0; i < n; i++) {
      const res = await t.fetch(`/iam/v2beta1/groups?uidp.descendants_of=${org}`, { token });
      expect(res.status).toBe(429);
      await res.arrayBuffer();
    }
    const seconds = (performance.now() - started) / 1000;
    printFigures("rate-limit refusals", {
      refused: n,
      perSecond: Math.round(n / seconds),
      meanMs: Math.round((seconds / n) * 1e6) / 1e3,
      client: "fetch, one at a time",
    });
  });

  it("refuses an address past its rate, over gRPC too (code 8)", async () => {
    // This address has spent 4 API calls (the refused one counts) and 5 on the token endpoints: the next is over.
    const pkg = loadProtos(["arbor/ping/v2beta1/ping.proto"]);
    const client = new pkg.arbor.ping.v2beta1.PingService(`127.0.0.1:${t.server.port}`, grpc.credentials.createInsecure()) as grpc.Client;
    const err = await failure(call(client, "Ping", {}));
    client.close();
    expect(err.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(err.details).toMatch(/too many requests from this address/);
    expect(statusOf(err).details.map((d) => d.typeUrl)).toContain(`type.googleapis.com/${RETRY_INFO}`);
  });
});

describe("request limits", () => {
  let t: TestServer;
  let port: number;

  beforeAll(async () => {
    t = await startTestServer(engine, { headersTimeoutMs: 1_000, requestTimeoutMs: 1_500, maxConnections: 4, maxHeaderBytes: 4_096 });
    port = t.server.port;
  });
  afterAll(async () => {
    await t?.close();
  });

  it("refuses more than 100 headers with code 3", async () => {
    const headers = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`x-h${i}`, "1"]));
    const res = await t.fetch("/ping/v2beta1/ping", { headers });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toBe("Invalid argument: headers: a request may carry at most 100 headers");
  });

  it("refuses a request head over the size limit with 431", async () => {
    const reply = await rawExchange(port, `GET /ping/v2beta1/ping HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(5_000)}\r\n\r\n`);
    expect(reply).toMatch(/^HTTP\/1\.1 431 /);
  });

  it("closes a connection whose headers do not arrive in time (after a 408)", async () => {
    const started = Date.now();
    const socket = net.connect(port, "127.0.0.1");
    socket.write("GET /ping/v2beta1/ping HTTP/1.1\r\nHost: x\r\n");
    let reply = "";
    socket.on("data", (d) => (reply += d.toString("latin1")));
    await new Promise((resolve) => socket.once("close", resolve));
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(900);
    expect(took).toBeLessThan(5_000);
    expect(reply).toMatch(/^(HTTP\/1\.1 408 |)/);
  });

  it("answers 408 to a body that does not arrive in time", async () => {
    const reply = await rawExchange(port, "POST /iam/v2beta1/groups/x HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{");
    expect(reply).toMatch(/^HTTP\/1\.1 408 /);
  });

  it("closes connections beyond the cap as they arrive, and serves again once they go", async () => {
    const held = await Promise.all(Array.from({ length: 4 }, () => openSocket(port)));
    const extra = net.connect(port, "127.0.0.1");
    const closedAt = await new Promise<number>((resolve) => extra.once("close", () => resolve(Date.now())));
    expect(closedAt).toBeDefined();
    for (const s of held) s.destroy();
    await new Promise((r) => setTimeout(r, 100));
    expect((await t.fetch("/healthz")).status).toBe(200);
  });
});

function openSocket(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, "127.0.0.1", () => resolve(s));
    s.once("error", reject);
  });
}

/** Writes raw bytes and collects what comes back until the server closes the connection. */
function rawExchange(port: number, text: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1", () => socket.write(text));
    let reply = "";
    socket.on("data", (d) => (reply += d.toString("latin1")));
    socket.on("error", () => undefined);
    socket.on("close", () => resolve(reply));
  });
}
