/**
 * Sending fuzz cases as they are, over one keep-alive HTTP/1.1 agent and one HTTP/2 session:
 * no client-side normalization beyond what node:http insists on (it refuses some header bytes and
 * paths; such cases are counted as not sent, never silently passed).
 */
import http from "node:http";
import http2 from "node:http2";
import type { GrpcCase } from "./rpc-cases.js";
import type { HttpCase } from "./rest-cases.js";

/** What came back for an HTTP/1.1 request; undefined status means the client would not send it. */
export interface HttpAnswer {
  status?: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** Why node:http refused to send the case. */
  unsendable?: string;
}

/** What came back for a gRPC call: the response headers and trailers merged, and the body. */
export interface GrpcAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** No single request may take longer than this: a hang is a failure, not slowness. */
export const REQUEST_DEADLINE_MS = 15_000;

/** A sender of HTTP/1.1 and gRPC cases to one server. */
export interface Sender {
  http(c: HttpCase): Promise<HttpAnswer>;
  grpc(c: GrpcCase): Promise<GrpcAnswer>;
  close(): void;
}

/** A sender to base (http://host:port), keeping up to sockets HTTP/1.1 connections alive. */
export function createSender(base: string, sockets = 16): Sender {
  const url = new URL(base);
  // The timeout makes the agent heed the server's Keep-Alive hint and drop an idle socket before
  // the server closes it; without one, reusing a socket the server is closing fails the case.
  const agent = new http.Agent({ keepAlive: true, maxSockets: sockets, timeout: REQUEST_DEADLINE_MS });
  let session: http2.ClientHttp2Session | undefined;
  const h2 = () => {
    if (session === undefined || session.closed || session.destroyed) {
      session = http2.connect(base);
      session.on("error", () => (session = undefined));
    }
    return session;
  };
  return {
    http: (c) => sendHttp(agent, url, c),
    grpc: (c) => sendGrpc(h2(), c),
    close() {
      agent.destroy();
      session?.destroy();
    },
  };
}

function sendHttp(agent: http.Agent, url: URL, c: HttpCase): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    let req: http.ClientRequest;
    try {
      const headers: Record<string, string | string[]> = { ...c.headers };
      if (c.body !== undefined && headers["transfer-encoding"] === undefined) headers["content-length"] = String(c.body.length);
      req = http.request({ agent, host: url.hostname, port: url.port, method: c.method, path: c.path, headers });
    } catch (e) {
      resolve({ headers: {}, body: Buffer.alloc(0), unsendable: (e as Error).message });
      return;
    }
    req.setTimeout(REQUEST_DEADLINE_MS, () => req.destroy(new Error(`no answer within ${REQUEST_DEADLINE_MS} ms`)));
    req.once("error", reject);
    req.once("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (d: Buffer) => chunks.push(d));
      res.once("error", reject);
      res.once("end", () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.end(c.body);
  });
}

function sendGrpc(session: http2.ClientHttp2Session, c: GrpcCase): Promise<GrpcAnswer> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ":method": "POST", ":path": c.path, ...c.headers });
    const timer = setTimeout(() => stream.close(http2.constants.NGHTTP2_CANCEL), REQUEST_DEADLINE_MS);
    const headers: GrpcAnswer["headers"] = {};
    let status = 0;
    const chunks: Buffer[] = [];
    stream.on("response", (h) => {
      status = Number(h[":status"]);
      Object.assign(headers, h);
    });
    stream.on("trailers", (t) => Object.assign(headers, t));
    stream.on("data", (d: Buffer) => chunks.push(d));
    stream.once("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    stream.once("close", () => {
      clearTimeout(timer);
      if (status === 0) reject(new Error(`stream closed without a response (rst code ${stream.rstCode})`));
      else resolve({ status, headers, body: Buffer.concat(chunks) });
    });
    stream.end(c.body);
  });
}
