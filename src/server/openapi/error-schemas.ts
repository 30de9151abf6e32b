/**
 * The error side of the OpenAPI document: google.rpc.Status as REST writes it (server/errors-to-wire.ts),
 * its `details` as the detail messages Arbor sends, each with its `@type`, and one response per
 * HTTP status naming the codes that map to it.
 */
import type { DescMessage, JsonObject } from "@bufbuild/protobuf";
import { Code, codeName } from "../../domain/errors.js";
import {
  BadRequestSchema,
  ErrorInfoSchema,
  PreconditionFailureSchema,
  ResourceInfoSchema,
  RetryInfoSchema,
} from "../../gen/google/rpc/error_details_pb.js";
import { HTTP_STATUS } from "../errors-to-wire.js";
import { messageRef, type Components, type SchemaFlavor } from "./json-schemas.js";

/** Status JSON is written without alwaysEmitImplicit: empty fields are left out, so none is required. */
const ERROR_FLAVOR: SchemaFlavor = { suffix: "", requireImplicit: false, closed: true, input: false };

/** The detail messages an error may carry (ErrorInfo always, first). */
const DETAILS: readonly DescMessage[] = [ErrorInfoSchema, BadRequestSchema, PreconditionFailureSchema, ResourceInfoSchema, RetryInfoSchema];

/** The name of the component schema of the error body. */
export const STATUS_SCHEMA = "google.rpc.Status";

/** Adds google.rpc.Status and its details to components; returns the `$ref` of Status. */
export function addStatusSchema(components: Components): JsonObject {
  const details = DETAILS.map((desc) => {
    const name = `${desc.typeName}.Detail`;
    const ref = messageRef(components, desc, ERROR_FLAVOR);
    const properties = { "@type": { const: `type.googleapis.com/${desc.typeName}` } };
    components[name] = { type: "object", required: ["@type"], properties, allOf: [ref], unevaluatedProperties: false };
    return { $ref: `#/components/schemas/${name}` };
  });
  // The details are strict (closed) messages; @type is let through by unevaluatedProperties above.
  for (const desc of DETAILS) delete (components[desc.typeName] as JsonObject).additionalProperties;
  components[STATUS_SCHEMA] = {
    type: "object",
    title: "Status",
    description:
      "Every error, on every transport (DESIGN 1.6). `details` holds exactly one ErrorInfo, then the detail that fits the error.",
    required: ["code", "message", "details"],
    properties: {
      code: { type: "integer", description: "The google.rpc.Code." },
      message: { type: "string" },
      details: { type: "array", items: { anyOf: details } },
    },
    additionalProperties: false,
  };
  return { $ref: `#/components/schemas/${STATUS_SCHEMA}` };
}

/** The HTTP statuses an error may have, with the codes behind each, in ascending status order. */
export function errorStatuses(): Map<number, string[]> {
  const out = new Map<number, string[]>();
  for (const [code, status] of Object.entries(HTTP_STATUS)) {
    const names = out.get(status) ?? [];
    names.push(`${codeName(Number(code) as Code)} (${code})`);
    out.set(status, names);
  }
  return new Map([...out].sort(([a], [b]) => a - b));
}
