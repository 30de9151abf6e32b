/**
 * A CloudEvents receiver on loopback, as a customer would write one: the `cloudevents` SDK reads
 * each request (HTTP binding, binary mode), and `jose` checks its bearer token against Arbor's
 * published keys, issuer and the sink URL as audience. What it answers is up to the test.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import { HTTP, type CloudEvent } from "cloudevents";
import { createRemoteJWKSet, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from "jose";

/** One request the receiver read. */
export interface Received {
  event: CloudEvent<unknown>;
  claims: JWTPayload;
  /** The status answered. */
  status: number;
}

/** A running receiver. */
export interface EventReceiver {
  /** The sink URL (its path names the receiver, so several can share the port). */
  url: string;
  /** Every request accepted (2xx), in arrival order. */
  readonly accepted: Received[];
  /** Every request, whatever was answered. */
  readonly all: Received[];
  /** Requests that failed verification or parsing, with why. */
  readonly refused: string[];
  /** Decides the answer to each event (200 by default). */
  answer: (event: CloudEvent<unknown>) => number;
  close(): Promise<void>;
}

/**
 * Starts a receiver trusting tokens of issuer, whose keys are at issuer/.well-known/jwks.json
 * unless keys says where else; delayMs holds each answer back (a slow sink).
 */
export async function startEventReceiver(issuer: string, path = "/events", keys?: JWTVerifyGetKey, delayMs = 0): Promise<EventReceiver> {
  const jwks = keys ?? createRemoteJWKSet(new URL(`${issuer}/.well-known/jwks.json`));
  let url = "";
  const receiver: EventReceiver = {
    url: "",
    accepted: [],
    all: [],
    refused: [],
    answer: () => 200,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((req, res) => {
    void (async () => {
      try {
        const body = await readBody(req);
        const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1] ?? "";
        const { payload } = await jwtVerify(token, jwks, { issuer, audience: url, algorithms: ["ES256"] });
        const parsed = HTTP.toEvent({ headers: req.headers as Record<string, string>, body });
        const event = (Array.isArray(parsed) ? parsed[0] : parsed) as CloudEvent<unknown>;
        if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
        const status = receiver.answer(event);
        const got = { event, claims: payload, status };
        receiver.all.push(got);
        if (status < 300) receiver.accepted.push(got);
        res.writeHead(status).end();
      } catch (e) {
        receiver.refused.push((e as Error).message);
        res.writeHead(401).end();
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address() as { port: number };
  url = `http://127.0.0.1:${address.port}${path}`;
  receiver.url = url;
  return receiver;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}
