/**
 * Hostile requests to the endpoints the one port serves outside the route table: health,
 * metrics, discovery, the token exchange, login, and paths that match nothing.
 */
import fc from "fast-check";
import { brokenJson, uidArb } from "./hostile-values.js";
import { authorizationArb, contentTypeArb, OTHER_METHODS, percentEncode, type CaseContext, type HttpCase } from "./rest-cases.js";

/** Requests to the endpoints outside the route table: health, metrics, discovery, exchange, login, unknown paths. */
export function fixedCaseArb(c: CaseContext): fc.Arbitrary<HttpCase> {
  const paths = fc.oneof(
    fc.constantFrom(
      "/healthz",
      "/readyz",
      "/metrics",
      "/.well-known/openid-configuration",
      "/.well-known/jwks.json",
      "/sts/exchange",
      "/sts/exchange?aud=x&identity=",
      "/oauth/login",
      "/oauth/callback?state=x&code=y",
      "/oauth/token",
      "/oauth/revoke",
      "/",
      "//",
      "/..",
      "/%2e%2e/etc/passwd",
      "/iam",
      "/iam/v2beta1",
      "/iam/v2beta1/",
      "/ping/v2beta1/ping",
      "/arbor.iam.v2beta1.GroupsService",
      "/arbor.iam.v2beta1.GroupsService/",
      "/grpc.health.v1.Health/Check",
      "*",
    ),
    uidArb(c.known).map((u) => `/iam/v2beta1/${u}`),
    fc.string({ maxLength: 40 }).map((s) => `/${percentEncode(s)}`),
  );
  return fc
    .record({
      method: fc.constantFrom(...OTHER_METHODS),
      path: paths,
      auth: authorizationArb(c),
      body: fc.option(fc.oneof(brokenJson, fc.constantFrom("grant_type=authorization_code&code=x", "subject_token=a.b.c&aud=x", "%%%")), {
        nil: undefined,
      }),
      contentType: contentTypeArb,
    })
    .map(({ method, path, auth, body, contentType }) => {
      const headers: Record<string, string | string[]> = {};
      if (auth !== undefined) headers.authorization = auth;
      if (contentType !== undefined) headers["content-type"] = contentType;
      return {
        method,
        path,
        headers,
        body: method === "HEAD" || body === undefined ? undefined : Buffer.from(body),
        target: `fixed ${path.split("?")[0]}`,
      };
    });
}
