/**
 * The endpoints that are no RPC (people's login, the STS exchange, the registry's token and
 * notifications, probes, metrics, discovery and keys), as one table of paths: each family
 * declares its paths and methods, the handler looks a request's path up once and answers 405
 * with the methods a known path allows. The RPCs' REST routes are rest/route-table.ts.
 */
import type { AnyRequest, AnyResponse } from "./http-util.js";
import type { RequestLog } from "./request-log.js";

/** Serves one request of a fixed endpoint; it records what it learns in the log. */
export type FixedHandler = (req: AnyRequest, res: AnyResponse, record: RequestLog) => Promise<void>;

/** One path's handlers, by method. */
export type FixedRoute = Readonly<Record<string, FixedHandler>>;

/** Paths (as the request's, prefix included) and their handlers. */
export type FixedRoutes = ReadonlyMap<string, FixedRoute>;

/** The families' routes as one table; a path two families claim is a wiring mistake, told at start. */
export function fixedRouteTable(...families: FixedRoutes[]): FixedRoutes {
  const table = new Map<string, FixedRoute>();
  for (const family of families) {
    for (const [path, route] of family) {
      if (table.has(path)) throw new Error(`two endpoints claim ${path}`);
      table.set(path, route);
    }
  }
  return table;
}

/** A route answering GET and HEAD alike (node leaves the body out of a HEAD response). */
export function readOnly(handler: FixedHandler): FixedRoute {
  return { GET: handler, HEAD: handler };
}
