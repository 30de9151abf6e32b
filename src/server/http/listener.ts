/**
 * One port for every protocol. Cleartext: each new connection's first bytes tell an HTTP/2
 * prior-knowledge preface (gRPC, h2c REST) from HTTP/1.1, and the connection goes to the matching
 * server. TLS: ALPN chooses (h2 or http/1.1). Either way one request handler serves both.
 * Shutdown stops accepting, lets in-flight requests finish, and closes idle connections.
 */
import http from "node:http";
import http2 from "node:http2";
import net, { type AddressInfo, type Socket } from "node:net";
import tls, { type TLSSocket } from "node:tls";
import { bodyDeadline, closeWhenIdle, h2Options } from "./h2-limits.js";
import type { AnyRequest, AnyResponse } from "./http-util.js";

const PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");

/** Timeouts that keep slow or idle clients from holding connections, and TLS when configured. */
export interface ListenerOptions {
  /** Time to receive a request's headers. */
  headersTimeoutMs: number;
  /** Time to receive a whole request: an HTTP/1.1 request, or an HTTP/2 stream's headers and body. */
  requestTimeoutMs: number;
  /** How long an idle connection stays open: HTTP/1.1 keep-alive, an HTTP/2 session without streams. */
  keepAliveTimeoutMs: number;
  /** Streams one HTTP/2 session may have open at once; more are refused (REFUSED_STREAM). */
  maxConcurrentStreams: number;
  /** Open connections at once; more are closed as they arrive. 0: no cap. */
  maxConnections: number;
  /** The largest HTTP/1.1 request head, and HTTP/2 header list, in bytes. */
  maxHeaderBytes: number;
  /** A PEM certificate chain and key: serve TLS (ALPN h2 and http/1.1) instead of cleartext. */
  tls?: { cert: Buffer; key: Buffer };
}

export const DEFAULT_LISTENER_OPTIONS: Readonly<ListenerOptions> = {
  headersTimeoutMs: 20_000,
  requestTimeoutMs: 60_000,
  keepAliveTimeoutMs: 5_000,
  maxConcurrentStreams: 100,
  maxConnections: 10_000,
  maxHeaderBytes: 16_384,
};

/** A listening port. */
export interface Listener {
  /** Starts listening; resolves with the bound address. */
  listen(port: number, host?: string): Promise<AddressInfo>;
  /** True once close() has begun. */
  readonly draining: boolean;
  /** Stops accepting, waits up to timeoutMs for in-flight requests, then drops what is left. */
  close(timeoutMs: number): Promise<void>;
  /**
   * Serves new TLS connections with another certificate and key; connections already open keep
   * theirs. Throws, changing nothing, when the pair is unusable or the listener is cleartext.
   */
  setTls(tls: NonNullable<ListenerOptions["tls"]>): void;
}

type Handler = (req: AnyRequest, res: AnyResponse) => void;

/** Creates the listener around a request handler. */
export function createListener(handler: Handler, options: ListenerOptions = DEFAULT_LISTENER_OPTIONS): Listener {
  const connections = createConnectionTracker();
  const { server, stop } = options.tls ? tlsServer(handler, options, connections) : cleartextServer(handler, options, connections);
  // Node closes connections beyond the cap as they are accepted, before any byte is read.
  if (options.maxConnections > 0) server.maxConnections = options.maxConnections;
  return {
    get draining() {
      return connections.draining;
    },
    listen(port, host) {
      return new Promise((resolve, reject) => {
        server.once("error", reject);
        server.listen({ port, host }, () => {
          server.off("error", reject);
          resolve(server.address() as AddressInfo);
        });
      });
    },
    async close(timeoutMs) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      stop();
      await connections.drain(timeoutMs);
      await closed;
    },
    setTls(pair) {
      if (!(server instanceof tls.Server)) throw new Error("this listener serves cleartext: there is no certificate to replace");
      // Checked on a context of its own first (a key that does not match the certificate throws
      // here): setSecureContext records the new files on the server before it builds its context.
      tls.createSecureContext({ cert: pair.cert, key: pair.key });
      server.setSecureContext({ cert: pair.cert, key: pair.key });
    },
  };
}

/** The connections of a listener: HTTP/2 sessions, HTTP/1.1 sockets with their requests in flight. */
interface ConnectionTracker {
  readonly draining: boolean;
  session(session: http2.ServerHttp2Session): void;
  h1Socket(socket: Socket): void;
  h1Request(req: http.IncomingMessage, res: http.ServerResponse): void;
  pending(socket: Socket): void;
  settled(socket: Socket): void;
  /** A TCP connection of the TLS server: ended with the rest when shutdown is done. */
  raw(socket: Socket): void;
  drain(timeoutMs: number): Promise<void>;
}

function createConnectionTracker(): ConnectionTracker {
  const sessions = new Set<http2.ServerHttp2Session>();
  const h1Sockets = new Map<Socket, number>();
  const pending = new Set<Socket>();
  const raw = new Set<Socket>();
  let draining = false;
  return {
    get draining() {
      return draining;
    },
    session(session) {
      sessions.add(session);
      session.once("close", () => sessions.delete(session));
      if (draining) session.close();
    },
    h1Socket(socket) {
      h1Sockets.set(socket, 0);
      socket.once("close", () => h1Sockets.delete(socket));
    },
    h1Request(req, res) {
      const socket = req.socket;
      if (!h1Sockets.has(socket)) return;
      h1Sockets.set(socket, (h1Sockets.get(socket) ?? 0) + 1);
      res.once("close", () => {
        const left = (h1Sockets.get(socket) ?? 1) - 1;
        if (h1Sockets.has(socket)) h1Sockets.set(socket, left);
        if (draining && left === 0) socket.end();
      });
    },
    pending(socket) {
      pending.add(socket);
      socket.once("close", () => pending.delete(socket));
    },
    settled(socket) {
      pending.delete(socket);
    },
    raw(socket) {
      raw.add(socket);
      socket.once("close", () => raw.delete(socket));
    },
    async drain(timeoutMs) {
      draining = true;
      for (const session of sessions) session.close();
      for (const socket of pending) socket.destroy();
      for (const [socket, inFlight] of h1Sockets) if (inFlight === 0) socket.end();
      const deadline = Date.now() + timeoutMs;
      while ((sessions.size > 0 || h1Sockets.size > 0) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 20));
      }
      for (const session of sessions) session.destroy();
      for (const socket of h1Sockets.keys()) socket.destroy();
      // What is left are TLS connections that never finished their handshake.
      for (const socket of raw) socket.destroy();
    },
  };
}

/** A server, and what stops its helpers when it closes. */
interface Built {
  server: net.Server;
  stop: () => void;
}

function cleartextServer(handler: Handler, options: ListenerOptions, connections: ConnectionTracker): Built {
  const h1 = http.createServer(
    {
      headersTimeout: options.headersTimeoutMs,
      requestTimeout: options.requestTimeoutMs,
      keepAliveTimeout: options.keepAliveTimeoutMs,
      maxHeaderSize: options.maxHeaderBytes,
      // Node enforces both timeouts only at this interval (30 s by default): check often enough
      // that a slow client is cut near its deadline.
      connectionsCheckingInterval: Math.min(1_000, options.headersTimeoutMs),
    },
    handler,
  );
  // The HTTP/1.1 server never listens itself (sockets are handed to it), and Node starts its
  // header and request timeout checks on 'listening': start them as if it had.
  h1.emit("listening");
  const h2 = http2.createServer(h2Options(options), handler);
  h2.on("session", (session) => {
    connections.session(session);
    closeWhenIdle(session, options.keepAliveTimeoutMs);
  });
  h2.on("stream", (stream) => bodyDeadline(stream, options.requestTimeoutMs));
  h2.on("sessionError", () => {});
  h1.on("request", (req: http.IncomingMessage, res: http.ServerResponse) => connections.h1Request(req, res));
  const server = net.createServer({ noDelay: true }, (socket) => {
    connections.pending(socket);
    socket.on("error", () => socket.destroy());
    // A connection that never sends its first bytes is dropped like one that never sends headers.
    socket.setTimeout(options.headersTimeoutMs, () => socket.destroy());
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
      connections.settled(socket);
      if (h2Prefix) {
        h2.emit("connection", socket);
      } else {
        connections.h1Socket(socket);
        h1.emit("connection", socket);
        // Handed over paused: the HTTP/1.1 parser only reads a flowing socket.
        socket.resume();
      }
    };
    socket.on("data", onData);
  });
  // Closing the never-listening HTTP/1.1 server only stops its timeout checks.
  return { server, stop: () => h1.close() };
}

function tlsServer(handler: Handler, options: ListenerOptions, connections: ConnectionTracker): Built {
  const { cert, key } = options.tls as NonNullable<ListenerOptions["tls"]>;
  // HTTP/1.1 over TLS keeps Node's own 16 KiB head limit: the fallback takes no size option.
  const server = http2.createSecureServer({ cert, key, allowHTTP1: true, ...h2Options(options) }, handler);
  server.on("session", (session) => {
    connections.session(session);
    closeWhenIdle(session, options.keepAliveTimeoutMs);
  });
  server.on("stream", (stream: http2.ServerHttp2Stream) => bodyDeadline(stream, options.requestTimeoutMs));
  server.on("sessionError", () => {});
  server.on("secureConnection", (socket: TLSSocket) => {
    if (socket.alpnProtocol !== "h2") connections.h1Socket(socket);
  });
  server.on("request", (req: AnyRequest, res: AnyResponse) => {
    if (req.httpVersionMajor === 1) connections.h1Request(req as http.IncomingMessage, res as http.ServerResponse);
  });
  server.on("connection", (socket: Socket) => connections.raw(socket));
  server.setTimeout(options.requestTimeoutMs);
  return { server, stop: () => undefined };
}
