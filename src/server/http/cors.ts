/**
 * Cross-origin access for browsers (ARBOR_CORS_ORIGINS): preflight answers and the headers that
 * let a page on a listed origin call REST, Connect and gRPC-Web and read their errors. Bearer
 * tokens travel in Authorization, never in cookies, so credentials mode is never allowed.
 */
import { header, type AnyRequest, type AnyResponse } from "./http-util.js";

const ALLOW_METHODS = "GET, POST, PUT, PATCH, DELETE";

/** What Connect and gRPC-Web clients send, besides the CORS-safelisted headers. */
const ALLOW_HEADERS = [
  "authorization",
  "content-type",
  "connect-protocol-version",
  "connect-timeout-ms",
  "connect-accept-encoding",
  "connect-content-encoding",
  "grpc-timeout",
  "grpc-accept-encoding",
  "x-grpc-web",
  "x-user-agent",
].join(", ");

/** What a page may read of an answer: gRPC-Web carries its status in these headers. */
const EXPOSE_HEADERS = [
  "grpc-status",
  "grpc-message",
  "grpc-status-details-bin",
  "grpc-encoding",
  "connect-content-encoding",
  "allow",
].join(", ");

/** How long a browser may cache a preflight answer, in seconds (Chromium caps it at two hours). */
const MAX_AGE = "7200";

/** The CORS behaviour of a server. */
export interface Cors {
  /**
   * Adds the CORS headers a request from a listed origin gets; answers a preflight itself and then
   * returns true (the request is done).
   */
  handle(req: AnyRequest, res: AnyResponse): boolean;
}

/** CORS for these origins (`*` allows any); with none, requests pass untouched. */
export function createCors(origins: readonly string[]): Cors {
  const any = origins.includes("*");
  const listed = new Set(origins);
  return {
    handle(req, res) {
      const origin = header(req, "origin");
      if (origins.length === 0 || origin === undefined || (!any && !listed.has(origin))) return false;
      res.setHeader("access-control-allow-origin", any ? "*" : origin);
      if (!any) res.setHeader("vary", "origin");
      if (req.method !== "OPTIONS" || header(req, "access-control-request-method") === undefined) {
        res.setHeader("access-control-expose-headers", EXPOSE_HEADERS);
        return false;
      }
      res.setHeader("access-control-allow-methods", ALLOW_METHODS);
      res.setHeader("access-control-allow-headers", ALLOW_HEADERS);
      res.setHeader("access-control-max-age", MAX_AGE);
      res.statusCode = 204;
      res.end();
      return true;
    },
  };
}
