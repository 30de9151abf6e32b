/**
 * GET /openapi.json: valid OpenAPI 3.1 (checked by a maintained validator), one operation per
 * REST binding, and true to the wire: every operation is called on a real server and answers as
 * a route (never the transcoder's "no such route", 405 or 501), with a body that validates
 * against the document's own schemas.
 */
import { Validator } from "@seriousme/openapi-schema-validator";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServices } from "../../src/services/routes.js";
import { createRouteTable } from "../../src/server/rest/route-table.js";
import { engines } from "../support/engines.js";
import { startTestServer, type TestServer } from "../support/server.js";

const engine = engines[0]!;
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const METHODS = ["get", "put", "post", "delete", "patch"];

type Doc = { paths: Record<string, Record<string, any>>; components: { schemas: Record<string, unknown> }; [k: string]: any };

/** An ajv validator of the document's component schemas, by name. */
function schemaValidator(doc: Doc): (name: string) => ValidateFunction {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  for (const f of ["int32", "uint32", "int64", "uint64"]) ajv.addFormat(f, true);
  // The document's refs point into components; the same schemas go under $defs of one schema.
  const defs = JSON.parse(JSON.stringify(doc.components.schemas).replaceAll('"#/components/schemas/', '"#/$defs/'));
  ajv.addSchema({ $id: "https://arbor.test/schemas", $defs: defs });
  return (name) => ajv.getSchema(`https://arbor.test/schemas#/$defs/${name}`)!;
}

/** The component name a `$ref` points to. */
function refName(schema: { $ref?: string }): string {
  return (schema.$ref ?? "").replace("#/components/schemas/", "");
}

describe(`OpenAPI document [${engine.name}]`, () => {
  let t: TestServer;
  let doc: Doc;
  let validatorOf: (name: string) => ValidateFunction;

  beforeAll(async () => {
    t = await startTestServer(engine);
    const res = await t.fetch("/openapi.json");
    expect(res.status).toBe(200);
    doc = (await res.json()) as Doc;
    validatorOf = schemaValidator(doc);
  });
  afterAll(() => t?.close());

  it("is valid OpenAPI 3.1", async () => {
    const result = await new Validator().validate(doc as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.servers).toEqual([{ url: t.url }]);
    // Every component is a schema ajv compiles in strict mode (JSON Schema 2020-12, as 3.1 says).
    for (const name of Object.keys(doc.components.schemas)) expect(typeof validatorOf(name), name).toBe("function");
  });

  it("has one operation per REST binding of every served service, each with a unique operationId", () => {
    const routes = createRouteTable(createServices(t.server.deps).map((b) => b.service)).routes;
    const operations = Object.values(doc.paths).flatMap((item) => METHODS.filter((m) => m in item).map((m) => item[m]));
    // Plus GET and POST /sts/exchange, the one non-proto endpoint described.
    expect(operations).toHaveLength(routes.length + 2);
    expect(new Set(operations.map((o) => o.operationId)).size).toBe(operations.length);
    const tags = new Set(operations.flatMap((o) => o.tags));
    for (const b of createServices(t.server.deps)) {
      if (routes.some((r) => r.method.parent === b.service)) expect(tags).toContain(b.service.typeName);
    }
  });

  it("describes path templates, query parameters and bodies as the transcoder reads them", () => {
    const get = doc.paths["/iam/v2beta1/groups/{uid}"]!.get;
    expect(get.operationId).toBe("iam_v2beta1_GroupsService_GetGroup");
    expect(get.summary).toBe("Gets one group by uid.");
    expect(get.description).toContain("Needs `groups.list` on `uid` or above.");
    expect(doc.tags.find((tag: { name: string }) => tag.name === "arbor.iam.v2beta1.GroupsService").description).toMatch(
      /^GroupsService manages the tree of groups/,
    );
    expect(doc.components.schemas["arbor.iam.v2beta1.Group"]).toMatchObject({ description: expect.stringMatching(/^Group is a node/) });
    expect(get.parameters[0]).toMatchObject({ name: "uid", in: "path", required: true });
    expect(get.parameters[0].description).toMatch(/as they are or percent-encoded \(`%2F`\), both are accepted/);
    const list = doc.paths["/iam/v2beta1/groups"]!.get;
    const names = list.parameters.map((p: { name: string }) => p.name);
    expect(names).toEqual(
      expect.arrayContaining(["uidp.descendants_of", "uidp.ids", "page_size", "page_token", "order_by", "skip", "name"]),
    );
    expect(list.parameters.find((p: { name: string }) => p.name === "uidp.ids").schema.type).toBe("array");
    expect(list.parameters.find((p: { name: string }) => p.name === "page_size").description).toContain("`pageSize`");
    // One path item per path: Create's {parent} and Update's {group.uid} share Get's {uid}, each saying which field it sets.
    expect(Object.keys(doc.paths).filter((p) => p.startsWith("/iam/v2beta1/groups/"))).toEqual(["/iam/v2beta1/groups/{uid}"]);
    const patch = doc.paths["/iam/v2beta1/groups/{uid}"]!.patch;
    expect(patch.parameters.map((p: { name: string }) => p.name)).toEqual(["uid", "update_mask"]);
    expect(patch.parameters[0].description).toMatch(/^Sets `group.uid`\./);
    expect(doc.paths["/iam/v2beta1/groups/{uid}"]!.post.parameters[0]).toMatchObject({
      name: "uid",
      in: "path",
      description: expect.stringMatching(/^Sets `parent`\./),
    });
    expect(Object.keys(doc.paths).filter((p) => p.startsWith("/registry/v1/repos/"))).toEqual(["/registry/v1/repos/{id}"]);
    expect(refName(patch.requestBody.content["application/json"].schema)).toBe("arbor.iam.v2beta1.Group.Input");
    expect(list.security).toEqual([{ bearerAuth: [] }]);
    expect(doc.paths["/ping/v2beta1/ping"]!.get.security).toEqual([]);
    expect(list.responses.default).toEqual({ $ref: "#/components/responses/Error" });
    expect(doc.components.schemas["arbor.iam.v2beta1.ListGroupsResponse"]).toMatchObject({
      properties: { totalCount: { type: "string", format: "int64" } },
      required: ["groups", "totalCount", "skipped"],
    });
  });

  it("answers every operation as a route, with bodies that validate against the document", async () => {
    const problems: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const verb of METHODS.filter((m) => m in item)) {
        const op = item[verb];
        if (op.security?.[0]?.upstreamOidcToken !== undefined) continue; // the token exchange: see below
        const { org, token } = await t.organization(`walk-${op.operationId.toLowerCase().replaceAll("_", "-")}`);
        const created = await t.fetch(`/iam/v2beta1/groups/${org.uid}`, { method: "POST", token, body: '{"name":"child"}' });
        const child = ((await created.json()) as { uid: string }).uid;
        // Plausible path values, tried in turn until one is accepted as an argument: a group below
        // the organization (any uid there is within the owner's reach, so the answer is about the
        // resource), the organization, an advisory id.
        let outcome: string[] = [];
        for (const value of [child, org.uid, "GHSA-0000-0000-0000"]) {
          outcome = await check(
            op,
            verb,
            path.replace(/\{([^}]+)\}/g, () => value),
            token,
          );
          if (!outcome.some((p) => p.endsWith("path parameter refused"))) break;
        }
        problems.push(...outcome);
      }
    }
    expect(problems).toEqual([]);
  });

  /** Calls one operation; returns what is wrong with the answer. */
  async function check(op: any, verb: string, url: string, token: string): Promise<string[]> {
    const problems: string[] = [];
    const res = await t.fetch(url, {
      method: verb.toUpperCase(),
      token,
      ...(op.requestBody ? { body: "{}", headers: { "content-type": "application/json" } } : {}),
    });
    const body = (await res.json()) as any;
    const where = `${verb.toUpperCase()} ${url} (${op.operationId}) -> ${res.status} ${JSON.stringify(body).slice(0, 300)}`;
    if (res.status === 200) {
      const validate = validatorOf(refName(op.responses["200"].content["application/json"].schema));
      if (!validate(body)) problems.push(`${where}: ${JSON.stringify(validate.errors)}`);
      return problems;
    }
    const status = validatorOf("google.rpc.Status");
    if (!status(body)) problems.push(`${where}: error body: ${JSON.stringify(status.errors)}`);
    const resource = body.details?.find((d: any) => d["@type"].endsWith("ResourceInfo"));
    if (resource?.resourceType === "route" || [405, 501].includes(res.status)) problems.push(`${where}: not routed`);
    else if (![3, 5, 6, 9].includes(body.code)) problems.push(`${where}: unexpected code`);
    if (!(String(res.status) in op.responses)) problems.push(`${where}: status not documented`);
    // A refused path value means the value or the documented path is wrong: the caller tries another value.
    // A path parameter is named after its path item (`uid`) and says the field it sets (`parent`): either may be refused.
    const pathNames = op.parameters
      .filter((p: { in: string }) => p.in === "path")
      .flatMap((p: { name: string; description: string }) => [p.name, /^Sets `([^`]+)`/.exec(p.description)?.[1] ?? p.name]);
    const violations = body.details?.find((d: any) => d["@type"].endsWith("BadRequest"))?.fieldViolations ?? [];
    if (violations.some((v: { field: string }) => pathNames.includes(v.field))) problems.push(`${where}: path parameter refused`);
    return problems;
  }

  it("describes the token exchange, which refuses an Arbor token as the upstream token", async () => {
    const op = doc.paths["/sts/exchange"]!.get;
    expect(op.servers).toEqual([{ url: t.url }]);
    const { token } = await t.organization("exchange-org");
    const res = await t.fetch("/sts/exchange?aud=x", { token });
    expect(res.status).toBe(401);
    expect(validatorOf("google.rpc.Status")(await res.json())).toBe(true);
  });

  it("the transcoder's own 'no such route' fails the same checks", async () => {
    const res = await t.fetch("/iam/v2beta1/no-such-thing");
    const body = (await res.json()) as any;
    expect(res.status).toBe(404);
    expect(body.details.find((d: any) => d["@type"].endsWith("ResourceInfo")).resourceType).toBe("route");
  });

  it("validates real list and get bodies, and rejects drifted ones", async () => {
    const { org, token } = await t.organization("drift-org");
    const child = await t.fetch(`/iam/v2beta1/groups/${org.uid}`, {
      method: "POST",
      token,
      body: JSON.stringify({ name: "child", description: "x" }),
    });
    expect(child.status).toBe(200);
    const cases: Array<[string, string]> = [
      ["/iam/v2beta1/groups", "arbor.iam.v2beta1.ListGroupsResponse"],
      [`/iam/v2beta1/groups/${org.uid}`, "arbor.iam.v2beta1.Group"],
      ["/iam/v2beta1/roles", "arbor.iam.v2beta1.ListRolesResponse"],
      [`/iam/v2beta1/roleBindings?uidp.descendants_of=${org.uid}`, "arbor.iam.v2beta1.ListRoleBindingsResponse"],
      ["/ping/v2beta1/ping", "arbor.ping.v2beta1.PingResponse"],
    ];
    for (const [path, schema] of cases) {
      const res = await t.fetch(path, { token });
      const body = (await res.json()) as any;
      expect(res.status, path).toBe(200);
      const validate = validatorOf(schema);
      expect(validate(body), `${path}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
    const group = (await (await t.fetch(`/iam/v2beta1/groups/${org.uid}`, { token })).json()) as any;
    const validate = validatorOf("arbor.iam.v2beta1.Group");
    expect(validate({ ...group, extra: 1 })).toBe(false);
    expect(validate({ ...group, createTime: 5 })).toBe(false);
    const { verified: _, ...missing } = group;
    expect(validate(missing)).toBe(false);
  });
});
