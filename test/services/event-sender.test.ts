/**
 * The event sender against a local HTTP server: binary-mode headers and the JSON body, each
 * status mapped to delivered, retry or rejected, no redirect followed, an answer's body never
 * read, a sink too slow given up on, and a sink on an address the rules refuse never contacted.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createIssuerFetch } from "../../src/auth/issuer-fetch.js";
import type { StoredEvent } from "../../src/domain/events.js";
import { createEventSender } from "../../src/services/events/event-sender.js";

const EVENT: StoredEvent = {
  at: { xid: 0, position: 7 },
  id: "e-1",
  type: "dev.arbor.api.iam.group.created.v1",
  subject: "a".repeat(40),
  groupUid: "a".repeat(40),
  time: Date.UTC(2026, 0, 2, 3, 4, 5, 6),
  readCaps: ["groups.list"],
  data: { actor: { subject: "b".repeat(40) }, body: { uid: "a".repeat(40) } },
};

describe("the event sender", () => {
  let base = "";
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_, res) => res.end();
  const requests: { headers: IncomingMessage["headers"]; body: string; path: string }[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      requests.push({ headers: req.headers, body, path: req.url ?? "" });
      handler(req, res);
    });
  });
  const send = (rules = { allowLoopback: true, allowPrivate: false }, timeoutMs = 2_000) =>
    createEventSender({
      fetch: createIssuerFetch(rules),
      sign: async (sub, aud) => `token-for-${sub}-${aud}`,
      source: () => "https://arbor.example",
      timeoutMs,
    });

  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it("sends the event in binary mode with the subscription's token", async () => {
    handler = (_, res) => res.writeHead(202).end();
    const sink = `${base}/in`;
    expect(await send()({ uid: "s-1", sink }, EVENT)).toEqual({ kind: "delivered" });
    const got = requests.at(-1);
    expect(got?.headers).toMatchObject({
      "ce-specversion": "1.0",
      "ce-id": "e-1",
      "ce-source": "https://arbor.example",
      "ce-type": EVENT.type,
      "ce-subject": EVENT.subject,
      "ce-time": "2026-01-02T03:04:05.006Z",
      "ce-group": EVENT.groupUid,
      "content-type": "application/json",
      authorization: `Bearer token-for-s-1-${sink}`,
    });
    expect(JSON.parse(got?.body ?? "")).toEqual(EVENT.data);
  });

  it.each([
    [200, "delivered"],
    [204, "delivered"],
    [400, "rejected"],
    [401, "rejected"],
    [404, "rejected"],
    [408, "retry"],
    [429, "retry"],
    [500, "retry"],
    [503, "retry"],
    [302, "retry"],
  ])("maps %i to %s", async (status, kind) => {
    const before = requests.length;
    handler = (_, res) => res.writeHead(status, status === 302 ? { location: `${base}/elsewhere` } : {}).end();
    expect((await send()({ uid: "s", sink: `${base}/in` }, EVENT)).kind).toBe(kind);
    // One request: a redirect is not followed.
    expect(requests.slice(before).map((r) => r.path)).toEqual(["/in"]);
  });

  it("does not read an answer's body", async () => {
    let written = 0;
    handler = (_, res) => {
      res.writeHead(200, { "content-type": "application/octet-stream" });
      const chunk = Buffer.alloc(64 * 1024);
      const more = () => {
        while (written < 512 * 1024 * 1024) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", more);
        }
        res.end();
      };
      res.on("close", () => (written = Number.POSITIVE_INFINITY));
      more();
    };
    expect(await send()({ uid: "s", sink: `${base}/big` }, EVENT)).toEqual({ kind: "delivered" });
    await new Promise((r) => setTimeout(r, 100));
    expect(written).toBe(Number.POSITIVE_INFINITY);
  });

  it("gives up on a sink that does not answer in time", async () => {
    handler = () => undefined;
    const outcome = await send(undefined, 200)({ uid: "s", sink: `${base}/slow` }, EVENT);
    expect(outcome).toEqual({ kind: "retry", error: "delivering event e-1: the sink did not answer in time" });
  });

  it("never connects to an address the sinks' rules refuse", async () => {
    const before = requests.length;
    const outcome = await send({ allowLoopback: false, allowPrivate: false })({ uid: "s", sink: `${base}/in` }, EVENT);
    expect(outcome.kind).toBe("retry");
    expect(outcome.kind === "retry" && outcome.error).toMatch(/loopback address/);
    expect(requests.length).toBe(before);
  });
});
