/**
 * A REST client for end-to-end tests: JSON in, status and parsed JSON out, as one caller.
 */
import type { TestServer } from "./server.js";

/** A response: its HTTP status and parsed body. */
export interface JsonResponse {
  status: number;
  body: Record<string, any>;
}

/** REST calls as the holder of token. */
export interface RestClient {
  get(path: string): Promise<JsonResponse>;
  post(path: string, body: unknown): Promise<JsonResponse>;
  patch(path: string, body: unknown): Promise<JsonResponse>;
  del(path: string): Promise<JsonResponse>;
}

/** A client of t calling with token. */
export function restClient(t: TestServer, token: string): RestClient {
  const call = async (method: string, path: string, body?: unknown): Promise<JsonResponse> => {
    const init: RequestInit & { token: string } = { method, token };
    if (body !== undefined) {
      init.body = JSON.stringify(body);
      init.headers = { "content-type": "application/json" };
    }
    const res = await t.fetch(path, init);
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };
  return {
    get: (path) => call("GET", path),
    post: (path, body) => call("POST", path, body),
    patch: (path, body) => call("PATCH", path, body),
    del: (path) => call("DELETE", path),
  };
}

/** The detail of an error body with this type (`google.rpc.ErrorInfo`, ...), if present. */
export function detailOf(body: Record<string, any>, type: string): Record<string, any> | undefined {
  return (body.details as Record<string, any>[] | undefined)?.find((d) => d["@type"] === `type.googleapis.com/${type}`);
}

/** The field an INVALID_ARGUMENT body names. */
export function violatedField(body: Record<string, any>): string | undefined {
  return detailOf(body, "google.rpc.BadRequest")?.fieldViolations?.[0]?.field;
}
