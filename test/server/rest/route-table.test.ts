import { describe, expect, test } from "vitest";
import { Code } from "../../../src/domain/errors.js";
import { GroupsService as GroupsV1 } from "../../../src/gen/arbor/iam/v1/groups_pb.js";
import { GroupsService } from "../../../src/gen/arbor/iam/v2beta1/groups_pb.js";
import { PingService } from "../../../src/gen/arbor/ping/v2beta1/ping_pb.js";
import { createRouteTable, type RouteMatch } from "../../../src/server/rest/route-table.js";
import { ItemService } from "./fixture.js";
import { violationOf } from "./violation.js";

const ORG = "0123456789abcdef0123456789abcdef01234567";
const CHILD = "0123456789abcdef";
const DEEP = `${ORG}/${Array.from({ length: 31 }, () => CHILD).join("/")}`;

const table = createRouteTable([GroupsService, GroupsV1, PingService, ItemService]);

/** The matched RPC (`Service.Method`), its template and params, or the allowed methods, or undefined. */
function resolve(method: string, path: string) {
  const m = table.match(method, path);
  if (m === undefined || "allowed" in m) return m;
  return { rpc: `${m.route.method.parent.name}.${m.route.method.name}`, template: m.route.template.source, params: m.params };
}

describe("createRouteTable", () => {
  test("collects every binding, additional ones included, in declaration order", () => {
    const groups = createRouteTable([GroupsService]).routes.map((r) => `${r.httpMethod} ${r.template.source} ${r.body}`);
    expect(groups).toEqual([
      "GET /iam/v2beta1/groups ",
      "GET /iam/v2beta1/groups/{uid=**} ",
      "POST /iam/v2beta1/groups/{parent=**} group",
      "POST /iam/v2beta1/groups group",
      "PATCH /iam/v2beta1/groups/{group.uid=**} group",
      "DELETE /iam/v2beta1/groups/{uid=**} ",
    ]);
  });

  test("exposes what OpenAPI generation needs", () => {
    const update = table.routes.find((r) => r.method.name === "UpdateGroup");
    expect(update?.method.input.typeName).toBe("arbor.iam.v2beta1.UpdateGroupRequest");
    expect(update?.bodyField?.name).toBe("group");
    expect(update?.pathFields.get("group.uid")?.map((f) => f.name)).toEqual(["group", "uid"]);
    const query = table.routes.find((r) => r.method.name === "QueryItems");
    expect(query?.responseBody).toBe("inner");
    expect(query?.responseBodyField?.name).toBe("inner");
    expect(table.routes.find((r) => r.method.name === "Search")?.httpMethod).toBe("SEARCH");
  });

  test("skips methods without google.api.http", () => {
    expect(createRouteTable([]).routes).toEqual([]);
  });

  test("refuses two methods on one path shape", () => {
    expect(() => createRouteTable([GroupsService, GroupsService])).toThrow(/both bind GET \/iam\/v2beta1\/groups/);
  });
});

describe("match", () => {
  test.each([
    ["GET", "/iam/v2beta1/groups", "GroupsService.ListGroups", {}],
    ["GET", `/iam/v2beta1/groups/${ORG}`, "GroupsService.GetGroup", { uid: ORG }],
    ["GET", `/iam/v2beta1/groups/${DEEP}`, "GroupsService.GetGroup", { uid: DEEP }],
    ["POST", "/iam/v2beta1/groups", "GroupsService.CreateGroup", {}],
    ["POST", `/iam/v2beta1/groups/${ORG}`, "GroupsService.CreateGroup", { parent: ORG }],
    ["POST", `/iam/v2beta1/groups/${ORG}/${CHILD}`, "GroupsService.CreateGroup", { parent: `${ORG}/${CHILD}` }],
    ["PATCH", `/iam/v2beta1/groups/${ORG}/${CHILD}`, "GroupsService.UpdateGroup", { "group.uid": `${ORG}/${CHILD}` }],
    ["DELETE", `/iam/v2beta1/groups/${ORG}`, "GroupsService.DeleteGroup", { uid: ORG }],
    ["GET", "/iam/v1/groups", "GroupsService.ListGroups", {}],
    ["GET", "/ping/v2beta1/ping", "PingService.Ping", {}],
    // A custom verb next to the collection and the deep variable.
    ["POST", "/iam/v2beta1/groups:lookupGroup", "ItemService.LookupGroup", {}],
    ["GET", `/iam/v2beta1/groups/${ORG}/${CHILD}:children`, "ItemService.ListChildren", { parent: `${ORG}/${CHILD}` }],
    // Without a verb route for it, a colon is just part of the uid (which the service refuses).
    ["GET", `/iam/v2beta1/groups/${ORG}:other`, "GroupsService.GetGroup", { uid: `${ORG}:other` }],
    // In a uid variable ({x=**}) %2F may separate the uid's segments, as generic OpenAPI clients send it.
    ["GET", `/iam/v2beta1/groups/${ORG}%2F${CHILD}`, "GroupsService.GetGroup", { uid: `${ORG}/${CHILD}` }],
    ["PATCH", `/iam/v2beta1/groups/${ORG}%2f${CHILD}/${CHILD}`, "GroupsService.UpdateGroup", { "group.uid": `${ORG}/${CHILD}/${CHILD}` }],
    ["POST", `/iam/v2beta1/groups/${ORG}%2F${CHILD}`, "GroupsService.CreateGroup", { parent: `${ORG}/${CHILD}` }],
    ["GET", `/iam/v2beta1/groups/${ORG}%2F${CHILD}:children`, "ItemService.ListChildren", { parent: `${ORG}/${CHILD}` }],
    // Decoded once: a double-encoded slash is the text %2F, never a separator (the service refuses it as a uid).
    ["GET", `/iam/v2beta1/groups/${ORG}%252F${CHILD}`, "GroupsService.GetGroup", { uid: `${ORG}%2F${CHILD}` }],
    // A variable with a pattern of its own is no uid: reserved decoding keeps its %2F as written.
    ["GET", "/v1/projects/p%2Fq/items/i/detail", "ItemService.GetNested", { parent: "projects/p%2Fq/items/i" }],
    // More literal segments win over `**`, whatever the declaration order.
    ["GET", "/v1/projects/p/items/i/detail", "ItemService.GetNested", { parent: "projects/p/items/i" }],
    ["GET", "/v1/projects/p/detail", "ItemService.GetDeepDetail", { parent: "projects/p" }],
    ["GET", "/v1/x/wild/y", "ItemService.Wild", { parent: "y" }],
    ["SEARCH", "/v1/items", "ItemService.Search", {}],
  ])("%s %s", (method, path, rpc, params) => {
    const found = resolve(method, path);
    expect(found && "rpc" in found ? [found.rpc, found.params] : found).toEqual([rpc, params]);
  });

  test("the root create is the additional binding, the child create the main one", () => {
    const root = table.match("POST", "/iam/v2beta1/groups") as RouteMatch;
    const child = table.match("POST", `/iam/v2beta1/groups/${ORG}`) as RouteMatch;
    expect(root.route.template.source).toBe("/iam/v2beta1/groups");
    expect(child.route.template.source).toBe("/iam/v2beta1/groups/{parent=**}");
  });

  test.each([
    ["PUT", `/iam/v2beta1/groups/${ORG}`, ["GET", "POST", "PATCH", "DELETE"]],
    ["DELETE", "/iam/v2beta1/groups", ["GET", "POST"]],
    ["PATCH", "/iam/v2beta1/groups", ["GET", "POST"]],
    ["GET", "/iam/v2beta1/groups:lookupGroup", ["POST"]],
    ["POST", "/ping/v2beta1/ping", ["GET"]],
    ["GET", "/v1/items/a", ["PUT", "PATCH"]],
    ["PUT", "/v1/items", ["GET", "SEARCH"]],
  ])("%s %s is 405 with Allow %j", (method, path, allowed) => {
    expect(resolve(method, path)).toEqual({ allowed });
  });

  test("HEAD is not routed", () => {
    expect(resolve("HEAD", "/ping/v2beta1/ping")).toEqual({ allowed: ["GET"] });
    expect(resolve("HEAD", "/nowhere")).toBeUndefined();
  });

  test.each([
    ["GET", "/"],
    ["GET", "/iam/v2beta1"],
    ["GET", "/iam/v2beta1/group"],
    ["GET", "/iam/v2beta1/groups/"],
    ["GET", `/iam/v2beta1/groups//${ORG}`],
    ["GET", `/iam/v2beta1//groups/${ORG}`],
    ["GET", "/iam/v2beta1/groups:nope"],
    ["GET", "/iam/v3/groups"],
    ["POST", "/iam/v2beta1/%67roups"],
    ["GET", "/iam/v2beta1/groups?page_size=1"],
    ["OPTIONS", "/nowhere"],
  ])("%s %s is unknown", (method, path) => {
    expect(resolve(method, path)).toBeUndefined();
  });

  test("a malformed escape in a path variable is INVALID_ARGUMENT naming it", () => {
    expect(violationOf(() => table.match("PATCH", "/iam/v2beta1/groups/%E2%82"))).toEqual({
      code: Code.INVALID_ARGUMENT,
      field: "group.uid",
    });
  });

  test.each([
    ["GET", `/iam/v2beta1/groups/${ORG}%2F..%2F${CHILD}`, "uid"],
    ["GET", `/iam/v2beta1/groups/${ORG}/${CHILD}%2F..`, "uid"],
    ["GET", `/iam/v2beta1/groups/${ORG}%2F%2F${CHILD}`, "uid"],
    ["GET", `/iam/v2beta1/groups/%2F${ORG}`, "uid"],
    ["GET", `/iam/v2beta1/groups/${ORG}%2F`, "uid"],
    ["GET", `/iam/v2beta1/groups/${ORG}%2F${CHILD}%252F${CHILD}`, "uid"],
    ["GET", `/iam/v2beta1/groups/${ORG}%2Fabc%3Adef`, "uid"],
    ["DELETE", `/iam/v2beta1/groups/${ORG}%2F${CHILD.toUpperCase()}`, "uid"],
    ["PATCH", "/v1/items/a%2Fb", "item.uid"],
  ])("%s %s: an encoded slash outside a well-formed uid is INVALID_ARGUMENT naming %s", (method, path, field) => {
    expect(violationOf(() => table.match(method, path))).toEqual({ code: Code.INVALID_ARGUMENT, field });
  });

  test("a malformed escape under the wrong method is still 405", () => {
    expect(resolve("PUT", "/iam/v2beta1/groups/%zz")).toEqual({ allowed: ["GET", "POST", "PATCH", "DELETE"] });
  });
});
