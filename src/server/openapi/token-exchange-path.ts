/**
 * The one non-proto endpoint API clients call: the token exchange (DESIGN 1.7, served by
 * server/sts/sts-exchange.ts), described for the OpenAPI document.
 */
import type { JsonObject } from "@bufbuild/protobuf";
import { exchangePath } from "../sts/sts-exchange.js";

/** The security scheme of the exchange: the caller's upstream OIDC token, not an Arbor token. */
export const UPSTREAM_TOKEN = "upstreamOidcToken";

/** The scheme's definition. */
export const UPSTREAM_TOKEN_SCHEME: JsonObject = {
  type: "http",
  scheme: "bearer",
  bearerFormat: "JWT",
  description:
    "An OIDC token from the issuer an identity's `claimMatch` names (a CI system, a cloud's workload identity); " +
    "without `identity`, a registered person's token from their login provider, issued for {auth_url}.",
};

/** The path (under {auth_url}'s origin) and path item of `GET`/`POST /sts/exchange`. */
export function tokenExchangePathItem(issuerUrl: string, statusRef: JsonObject): [string, Record<string, JsonObject>] {
  const parameters = [
    {
      name: "aud",
      in: "query",
      required: false,
      schema: { type: "string" },
      description: "The audience of the Arbor token: {base_url} (default) or {registry_host}.",
    },
    {
      name: "identity",
      in: "query",
      required: false,
      schema: { type: "string" },
      description:
        "The uid of the identity to act as; without it, the person registered with the token's issuer and subject, " +
        "when that issuer is an organization's login provider or the default one.",
    },
  ];
  const responses = {
    "200": {
      description: "An Arbor API token, valid for one hour.",
      content: {
        "application/json": {
          schema: {
            type: "object",
            required: ["token", "expiry"],
            properties: { token: { type: "string" }, expiry: { type: "string", format: "date-time" } },
            additionalProperties: false,
          },
        },
      },
    },
    "401": {
      description: "Every refusal: UNAUTHENTICATED (16), with `WWW-Authenticate: Bearer` and a reason that names the failed check.",
      content: { "application/json": { schema: statusRef } },
    },
    default: { $ref: "#/components/responses/Error" },
  };
  const common = {
    tags: ["Token exchange"],
    servers: [{ url: new URL(issuerUrl).origin }],
    security: [{ [UPSTREAM_TOKEN]: [] }],
    responses,
  };
  const form = {
    schema: { type: "object", properties: { aud: { type: "string" }, identity: { type: "string" } }, additionalProperties: false },
  };
  return [
    exchangePath(issuerUrl),
    {
      get: { ...common, operationId: "TokenExchange_Get", summary: "Exchanges an upstream OIDC token for an Arbor token.", parameters },
      post: {
        ...common,
        operationId: "TokenExchange_Post",
        summary: "Exchanges an upstream OIDC token for an Arbor token (parameters in a form body).",
        parameters,
        requestBody: { required: false, content: { "application/x-www-form-urlencoded": form } },
      },
    },
  ];
}
