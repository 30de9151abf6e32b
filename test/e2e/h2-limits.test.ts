/**
 * HTTP/2 gets HTTP/1.1's limits (operations.md, Limits), seen with Node's own http2 client over
 * h2c and TLS: a cap on concurrent streams, a deadline for a stream's request body, idle sessions closed,
 * and each session counted against the connection cap.
 */
import http2 from "node:http2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engines } from "../support/engines.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { selfSignedCertificate } from "../support/tls.js";

const engine = engines[0]!;
const STREAMS = 10;
const BODY_TIMEOUT_MS = 1_500;
const IDLE_MS = 1_000;

describe.each(["h2c", "TLS"])(`HTTP/2 limits (%s) [${engine.name}]`, (transport) => {
  let t: TestServer;
  let options: http2.SecureClientSessionOptions = {};

  beforeAll(async () => {
    const cert = transport === "TLS" ? await selfSignedCertificate() : undefined;
    if (cert !== undefined) options = { ca: cert.certPem };
    t = await startTestServer(engine, {
      ...(cert !== undefined && { tlsCert: cert.certFile, tlsKey: cert.keyFile }),
      headersTimeoutMs: 1_000,
      requestTimeoutMs: BODY_TIMEOUT_MS,
      idleTimeoutMs: IDLE_MS,
      maxConcurrentStreams: STREAMS,
      maxConnections: 4,
    });
  });
  afterAll(() => t?.close());

  /** A session the server has answered (its SETTINGS arrived). */
  async function session(): Promise<http2.ClientHttp2Session> {
    const s = http2.connect(t.url, options);
    s.on("error", () => undefined);
    await new Promise((resolve, reject) => {
      s.once("remoteSettings", resolve);
      s.once("close", () => reject(new Error("closed before the server's SETTINGS")));
    });
    return s;
  }

  /** When and how a stream ended: its RST_STREAM code (0: none), after how many ms. */
  function ending(stream: http2.ClientHttp2Stream, started: number): Promise<{ rst: number; ms: number; status?: number }> {
    let status: number | undefined;
    stream.on("response", (h) => (status = h[":status"]));
    stream.on("error", () => undefined);
    stream.resume();
    return new Promise((resolve) =>
      stream.once("close", () => resolve({ rst: stream.rstCode ?? 0, ms: Date.now() - started, ...(status !== undefined && { status }) })),
    );
  }

  it("refuses streams past the cap, and cancels bodies that do not finish in time", async () => {
    // Streams sent with the preface, before the server's SETTINGS could be read, as a hostile
    // client would (a polite one queues past the advertised cap): the cap must hold server-side.
    const s = http2.connect(t.url, { ...options, peerMaxConcurrentStreams: 1_000 });
    s.on("error", () => undefined);
    const started = Date.now();
    const ends = Array.from({ length: STREAMS + 5 }, () => {
      const stream = s.request(
        { ":method": "POST", ":path": "/iam/v2beta1/groups", "content-type": "application/json" },
        { endStream: false },
      );
      stream.write("{");
      return ending(stream, started);
    });
    const results = await Promise.all(ends);
    const refused = results.filter((r) => r.rst === http2.constants.NGHTTP2_REFUSED_STREAM);
    const cancelled = results.filter((r) => r.rst === http2.constants.NGHTTP2_CANCEL);
    expect(refused).toHaveLength(5);
    expect(cancelled).toHaveLength(STREAMS);
    for (const r of cancelled) {
      expect(r.ms).toBeGreaterThanOrEqual(BODY_TIMEOUT_MS - 100);
      expect(r.ms).toBeLessThan(BODY_TIMEOUT_MS + 2_000);
    }
    s.destroy();
  });

  it("serves many streams one after another on one session: a finished stream frees its place", async () => {
    const s = await session();
    for (let i = 0; i < 3 * STREAMS; i++) {
      const r = await ending(s.request({ ":path": "/healthz" }), Date.now());
      expect(r).toMatchObject({ rst: 0, status: 200 });
    }
    s.destroy();
  });

  it("closes a session that has no open stream for the idle timeout", async () => {
    const s = await session();
    const started = Date.now();
    s.ping(() => undefined);
    const goaway = new Promise<boolean>((resolve) => s.once("goaway", () => resolve(true)));
    await new Promise((resolve) => s.once("close", resolve));
    expect(await goaway).toBe(true);
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(IDLE_MS - 100);
    expect(took).toBeLessThan(IDLE_MS + 2_000);
  });

  it("counts each session against the connection cap", async () => {
    const held = await Promise.all(Array.from({ length: 4 }, () => session()));
    await expect(session()).rejects.toThrow(/closed before the server's SETTINGS/);
    for (const s of held) s.destroy();
    await new Promise((r) => setTimeout(r, 100));
    const again = await session();
    expect((await ending(again.request({ ":path": "/healthz" }), Date.now())).status).toBe(200);
    again.destroy();
  });
});
