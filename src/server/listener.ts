/**
 * One port for every protocol: each new connection's first bytes tell an HTTP/2 prior-knowledge
 * preface (gRPC, h2c REST) from HTTP/1.1, and the connection goes to the matching server. Both
 * servers share one request handler. Shutdown stops accepting, lets in-flight requests finish,
 * and closes idle connections.
 */
import http from "node:http";
import http2 from "node:http2";
import net, { type AddressInfo, type Socket } from "node:net";
import type { AnyRequest, AnyResponse } from "./http-util.js";

const PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");

/** Timeouts that keep slow or idle clients from holding connections. */
export interface ListenerOptions {
  /** Time to receive a request's headers. */
  headersTimeoutMs: number;
  /** Time to receive a whole HTTP/1.1 request. */
  requestTimeoutMs: number;
  /** How long an idle HTTP/1.1 keep-alive connection stays open. */
  keepAliveTimeoutMs: number;
}

/** The defaults. */
export const DEFAULT_LISTENER_OPTIONS: Readonly<ListenerOptions> = {
  headersTimeoutMs: 20_000,
  requestTimeoutMs: 60_000,
  keepAliveTimeoutMs: 5_000,
};

/** A listening port. */
export interface Listener {
  /** Starts listening; resolves with the bound address. */
  listen(port: number, host?: string): Promise<AddressInfo>;
  /** True once close() has begun. */
  readonly draining: boolean;
  /** Stops accepting, waits up to timeoutMs for in-flight requests, then drops what is left. */
  close(timeoutMs: number): Promise<void>;
}

/** Creates the listener around a request handler. */
export function createListener(handler: (req: AnyRequest, res: AnyResponse) => void, options: ListenerOptions = DEFAULT_LISTENER_OPTIONS): Listener {
  const h1 = http.createServer(
    {
      headersTimeout: options.headersTimeoutMs,
      requestTimeout: options.requestTimeoutMs,
      keepAliveTimeout: options.keepAliveTimeoutMs,
    },
    handler,
  );
  const h2 = http2.createServer({}, handler);
  const sessions = new Set<http2.ServerHttp2Session>();
  const h1Sockets = new Map<Socket, number>();
  const pending = new Set<Socket>();
  let draining = false;

  h2.on("session", (session) => {
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
    if (draining) session.close();
  });
  h2.on("sessionError", () => {});
  h1.on("request", (req: http.IncomingMessage, res: http.ServerResponse) => {
    const socket = req.socket;
    h1Sockets.set(socket, (h1Sockets.get(socket) ?? 0) + 1);
    res.once("close", () => {
      const left = (h1Sockets.get(socket) ?? 1) - 1;
      if (h1Sockets.has(socket)) h1Sockets.set(socket, left);
      if (draining && left === 0) socket.end();
    });
  });

  const tcp = net.createServer({ noDelay: true }, (socket) => {
    pending.add(socket);
    socket.on("error", () => socket.destroy());
    socket.setTimeout(options.headersTimeoutMs, () => {
      if (pending.has(socket)) socket.destroy();
    });
    let head: Buffer = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = head.length === 0 ? chunk : Buffer.concat([head, chunk]);
      const n = Math.min(head.length, PREFACE.length);
      const h2Prefix = head.subarray(0, n).equals(PREFACE.subarray(0, n));
      if (h2Prefix && head.length < PREFACE.length) return;
      socket.off("data", onData);
      socket.pause();
      socket.unshift(head);
      socket.setTimeout(0);
      pending.delete(socket);
      if (h2Prefix) {
        h2.emit("connection", socket);
      } else {
        h1Sockets.set(socket, 0);
        socket.once("close", () => h1Sockets.delete(socket));
        h1.emit("connection", socket);
        socket.resume();
      }
    };
    socket.on("data", onData);
    socket.once("close", () => pending.delete(socket));
  });

  return {
    get draining() {
      return draining;
    },
    listen(port, host) {
      return new Promise((resolve, reject) => {
        tcp.once("error", reject);
        tcp.listen({ port, host }, () => {
          tcp.off("error", reject);
          resolve(tcp.address() as AddressInfo);
        });
      });
    },
    async close(timeoutMs) {
      draining = true;
      const closed = new Promise<void>((resolve) => tcp.close(() => resolve()));
      for (const session of sessions) session.close();
      for (const socket of pending) socket.destroy();
      for (const [socket, inFlight] of h1Sockets) if (inFlight === 0) socket.end();
      const deadline = Date.now() + timeoutMs;
      while ((sessions.size > 0 || h1Sockets.size > 0) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 20));
      }
      for (const session of sessions) session.destroy();
      for (const socket of h1Sockets.keys()) socket.destroy();
      await closed;
    },
  };
}
