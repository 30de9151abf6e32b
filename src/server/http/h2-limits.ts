/**
 * HTTP/2's share of the listener's limits, the counterparts of HTTP/1.1's: streams per session,
 * session memory, an idle session's lifetime, and the time a stream's request may take to arrive.
 */
import http2 from "node:http2";
import type { ListenerOptions } from "./listener.js";

/**
 * HTTP/2 limits: the header list as large as an HTTP/1.1 head may be; a cap on concurrent streams
 * (one connection must not hold thousands of requests, each with its buffers); and the memory a
 * session may buffer (Node's default, stated: past it new streams are refused).
 */
export function h2Options(options: ListenerOptions): http2.ServerOptions {
  return {
    settings: { maxHeaderListSize: options.maxHeaderBytes, maxConcurrentStreams: options.maxConcurrentStreams },
    maxSessionMemory: 10,
    maxSessionInvalidFrames: 100,
    maxSessionRejectedStreams: 100,
  };
}

/**
 * Closes a session (GOAWAY, then the connection) that has had no open stream for idleMs, as
 * HTTP/1.1 closes an idle keep-alive connection: an idle session holds a connection of the cap
 * and its buffers for nothing, and PINGs or SETTINGS alone do not keep it open.
 */
export function closeWhenIdle(session: http2.ServerHttp2Session, idleMs: number): void {
  let open = 0;
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    timer = setTimeout(() => session.close(), idleMs);
    timer.unref();
  };
  session.on("stream", (stream: http2.ServerHttp2Stream) => {
    open++;
    clearTimeout(timer);
    stream.once("close", () => {
      if (--open === 0 && !session.closed && !session.destroyed) arm();
    });
  });
  session.once("close", () => clearTimeout(timer));
  arm();
}

/**
 * A stream whose request body has not fully arrived within timeoutMs is cancelled (RST_STREAM
 * CANCEL; gRPC clients see CANCELLED), as HTTP/1.1's request timeout cuts a slow body. Only the
 * request is timed: once the client has sent all of it, the answer may take as long as it takes.
 */
export function bodyDeadline(stream: http2.ServerHttp2Stream, timeoutMs: number): void {
  const timer = setTimeout(() => {
    if (!stream.destroyed && stream.state.remoteClose === 0) stream.close(http2.constants.NGHTTP2_CANCEL);
  }, timeoutMs);
  timer.unref();
  stream.once("close", () => clearTimeout(timer));
}
