/**
 * What a browser sees of the login at Arbor itself: a redirect, or a small page saying what
 * failed. Neither may leak where the browser came from (no Referer) or be framed by anyone.
 */
import type { ServerResponse } from "node:http";
import type { ApiError } from "../../domain/errors.js";
import type { AnyResponse } from "../http/http-util.js";
import { httpStatusOf } from "../errors-to-wire.js";

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

/** Sends the browser to location after a form was posted (303: the browser GETs it). */
export function writeSeeOther(res: AnyResponse, location: string): void {
  const r = res as ServerResponse;
  r.writeHead(303, { ...BROWSER_HEADERS, location, "content-length": "0" });
  r.end();
}

/** Answers with a page saying what failed, with the HTTP status of its code. */
export function writeErrorPage(res: AnyResponse, error: ApiError): void {
  writePage(
    res,
    httpStatusOf(error),
    "Login failed",
    `<h1>Login failed</h1>\n<p>${escapeHtml(error.message)}</p>\n` +
      "<p>Nothing was changed. Start again with <code>arbor auth login</code>.</p>",
  );
}

/**
 * Answers with a page of Arbor's: title and body (HTML, escaped by the caller). It loads nothing,
 * runs no script and may not be framed (clickjacking); headers add to the defaults.
 */
export function writePage(res: AnyResponse, status: number, title: string, body: string, headers: Record<string, string> = {}): void {
  const html =
    `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">` +
    `<title>Arbor: ${escapeHtml(title)}</title></head>\n<body>${body}</body></html>\n`;
  const r = res as ServerResponse;
  r.writeHead(status, {
    ...BROWSER_HEADERS,
    "content-type": "text/html; charset=utf-8",
    "content-security-policy": "default-src 'none'; frame-ancestors 'none'; base-uri 'none'",
    "content-length": String(Buffer.byteLength(html)),
    ...headers,
  });
  r.end(html);
}

/** Text made safe to put inside an HTML element. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
