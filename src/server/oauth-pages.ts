/**
 * What a browser sees of the login at Arbor itself: a redirect, or a small page saying what
 * failed. Neither may leak where the browser came from (no Referer) or be framed by anyone.
 */
import type { ServerResponse } from "node:http";
import type { ApiError } from "../domain/errors.js";
import type { AnyResponse } from "./http-util.js";
import { httpStatusOf } from "./status.js";

const BROWSER_HEADERS = {
  "cache-control": "no-store",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
};

/** Sends the browser to location (302). */
export function writeRedirect(res: AnyResponse, location: string): void {
  const r = res as ServerResponse;
  r.writeHead(302, { ...BROWSER_HEADERS, location, "content-length": "0" });
  r.end();
}

/** Answers with a page saying what failed, with the HTTP status of its code. */
export function writeErrorPage(res: AnyResponse, error: ApiError): void {
  const html =
    `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>Arbor: login failed</title></head>\n` +
    `<body><h1>Login failed</h1>\n<p>${escapeHtml(error.message)}</p>\n` +
    `<p>Nothing was changed. Start again with <code>arbor auth login</code>.</p></body></html>\n`;
  const r = res as ServerResponse;
  r.writeHead(httpStatusOf(error), {
    ...BROWSER_HEADERS,
    "content-type": "text/html; charset=utf-8",
    "content-security-policy": "default-src 'none'",
    "content-length": String(Buffer.byteLength(html)),
  });
  r.end(html);
}

/** Text made safe to put inside an HTML element. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
