/**
 * Decodes an HTTP request the way the server does, through the real route table: the tests give
 * a method, a URL and a body, and read back the request message as JSON.
 */
import { toJson, type JsonValue } from "@bufbuild/protobuf";
import { GroupsService as GroupsV1 } from "../../../src/gen/arbor/iam/v1/groups_pb.js";
import { GroupsService } from "../../../src/gen/arbor/iam/v2beta1/groups_pb.js";
import { PingService } from "../../../src/gen/arbor/ping/v2beta1/ping_pb.js";
import { decodeRequest } from "../../../src/server/rest/decode.js";
import { createRouteTable } from "../../../src/server/rest/route-table.js";
import { ItemService } from "./fixture.js";

const table = createRouteTable([GroupsService, GroupsV1, PingService, ItemService]);

/**
 * The request message an HTTP request decodes to, as protobuf JSON (set fields only). The body is
 * declared application/json unless contentType says otherwise.
 */
export function decodeJson(
  method: string,
  url: string,
  body?: string | Uint8Array,
  contentType: string | undefined = "application/json",
): JsonValue {
  const q = url.indexOf("?");
  const match = table.match(method, q < 0 ? url : url.slice(0, q));
  if (match === undefined || "allowed" in match) throw new Error(`no route for ${method} ${url}`);
  const bytes = typeof body === "string" ? new TextEncoder().encode(body) : body;
  const message = decodeRequest(match.route, match.params, q < 0 ? "" : url.slice(q + 1), bytes, contentType);
  return toJson(match.route.method.input, message);
}
