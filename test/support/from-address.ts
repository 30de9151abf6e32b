/**
 * HTTP requests sent from a chosen loopback address (127.0.0.2, 127.0.0.3, ...: Linux routes the
 * whole 127/8 to lo), so a test can show what one client address does to another.
 */
import { request } from "node:http";

/** What came back: the status, the headers and the body as text. */
export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body as JSON. */
  json(): any;
}

/** Sends method url (with headers and body) from localAddress. */
export function fetchFrom(
  localAddress: string,
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: init.method ?? "GET", headers: init.headers ?? {}, localAddress, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) });
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(init.body);
  });
}
