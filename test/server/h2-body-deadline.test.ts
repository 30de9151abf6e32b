/**
 * The HTTP/2 body deadline times the request only: a stream whose request arrived whole may take
 * longer than ARBOR_REQUEST_TIMEOUT to be answered (a slow call is not a slow client), while one
 * whose body stalls is cancelled. The listener alone, around a handler that answers late.
 */
import http2 from "node:http2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createListener, DEFAULT_LISTENER_OPTIONS, type Listener } from "../../src/server/http/listener.js";

const TIMEOUT_MS = 1_000;

describe("the HTTP/2 body deadline", () => {
  let listener: Listener;
  let url: string;

  beforeAll(async () => {
    // Reads the whole body, then answers after twice the request timeout.
    listener = createListener(
      (req, res) => {
        req.resume();
        req.once("end", () => setTimeout(() => res.end("late"), 2 * TIMEOUT_MS));
      },
      { ...DEFAULT_LISTENER_OPTIONS, headersTimeoutMs: TIMEOUT_MS, requestTimeoutMs: TIMEOUT_MS, keepAliveTimeoutMs: TIMEOUT_MS },
    );
    url = `http://127.0.0.1:${(await listener.listen(0, "127.0.0.1")).port}`;
  });
  afterAll(() => listener?.close(1_000));

  function send(body: string, end: boolean): Promise<{ rst: number; text: string }> {
    const session = http2.connect(url);
    session.on("error", () => undefined);
    const stream = session.request({ ":method": "POST", ":path": "/" }, { endStream: false });
    stream.on("error", () => undefined);
    let text = "";
    stream.on("data", (d: Buffer) => (text += d.toString()));
    if (end) stream.end(body);
    else stream.write(body);
    return new Promise((resolve) =>
      stream.once("close", () => {
        session.destroy();
        resolve({ rst: stream.rstCode ?? 0, text });
      }),
    );
  }

  it("answers a request that arrived whole, however long the answer takes", async () => {
    expect(await send("{}", true)).toEqual({ rst: http2.constants.NGHTTP2_NO_ERROR, text: "late" });
  });

  it("cancels a stream whose body does not finish", async () => {
    expect(await send("{", false)).toEqual({ rst: http2.constants.NGHTTP2_CANCEL, text: "" });
  });
});
