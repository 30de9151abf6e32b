/**
 * U+0000 in any text of a request (docs/api.md, "Text"): PostgreSQL's text cannot hold it, so
 * every engine refuses it alike, before the store sees it, with INVALID_ARGUMENT naming the field.
 */
import { createClient, ConnectError, Code as ConnectCode } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GroupsService } from "../../src/gen/arbor/iam/v2beta1/groups_pb.js";
import { engines } from "../support/engines.js";
import { detailOf, restClient, violatedField, type JsonResponse, type RestClient } from "../support/rest.js";
import { startTestServer, type TestServer } from "../support/server.js";

const NUL = "\u0000";
const ISSUER = "https://issuer.example";

interface Case {
  name: string;
  call: (c: RestClient, ctx: Ctx) => Promise<JsonResponse>;
  field: string;
}

interface Ctx {
  org: string;
  group: string;
  identity: string;
}

const cases: Case[] = [
  {
    name: "a group's description on create",
    call: (c, x) => c.post(`/iam/v2beta1/groups/${x.org}`, { name: "g", description: `a${NUL}b` }),
    field: "description",
  },
  {
    name: "a group's description on update",
    call: (c, x) => c.patch(`/iam/v2beta1/groups/${x.group}`, { description: NUL }),
    field: "description",
  },
  {
    name: "an identity's claimMatch.subject",
    call: (c, x) => c.post(`/iam/v2beta1/identities/${x.org}`, { name: "ci", claimMatch: { issuer: ISSUER, subject: `repo:x${NUL}` } }),
    field: "claimMatch.subject",
  },
  {
    name: "an identity's claimMatch.subject on update",
    call: (c, x) => c.patch(`/iam/v2beta1/identities/${x.identity}?updateMask=claim_match.subject`, { claimMatch: { subject: NUL } }),
    field: "claimMatch.subject",
  },
  {
    name: "a value of claimMatch.claims",
    call: (c, x) =>
      c.post(`/iam/v2beta1/identities/${x.org}`, { name: "cj", claimMatch: { issuer: ISSUER, subject: "s", claims: { ref: NUL } } }),
    field: "claimMatch.claims",
  },
  { name: "the groups name filter", call: (c) => c.get("/iam/v2beta1/groups?name=a%00b"), field: "name" },
  { name: "the identities name filter", call: (c) => c.get("/iam/v2beta1/identities?name=%00"), field: "name" },
  { name: "the tags digest filter", call: (c) => c.get("/registry/v2beta1/tags?digest=sha256%3A%00"), field: "digest" },
  { name: "the advisories query", call: (c) => c.get("/vulnerabilities/v2beta1/advisories?query=log%00j"), field: "query" },
  {
    name: "the advisories package_name filter",
    call: (c) => c.get("/vulnerabilities/v2beta1/advisories?package_name=%00"),
    field: "package_name",
  },
  { name: "an order_by", call: (c) => c.get("/iam/v2beta1/groups?order_by=name%00"), field: "order_by" },
];

for (const engine of engines) {
  describe.skipIf(engine.skipReason !== undefined)(`U+0000 in input [${engine.name}]`, () => {
    let t: TestServer;
    let owner: RestClient;
    let token: string;
    const ctx = {} as Ctx;

    beforeAll(async () => {
      t = await startTestServer(engine);
      const o = await t.organization("nul");
      token = o.token;
      owner = restClient(t, token);
      ctx.org = o.org.uid;
      ctx.group = (await owner.post(`/iam/v2beta1/groups/${ctx.org}`, { name: "team" })).body.uid as string;
      ctx.identity = (await owner.post(`/iam/v2beta1/identities/${ctx.org}`, { name: "bot", claimMatch: { issuer: ISSUER, subject: "s" } }))
        .body.uid as string;
    });
    afterAll(() => t?.close());

    it.each(cases)("refuses $name with 400, code 3, naming $field", async ({ call, field }) => {
      const res = await call(owner, ctx);
      expect({ status: res.status, code: res.body.code, field: violatedField(res.body) }).toEqual({ status: 400, code: 3, field });
      expect(res.body.message).toBe(`Invalid argument: ${field}: must not contain U+0000 (NUL)`);
      expect(detailOf(res.body, "google.rpc.ErrorInfo")?.reason).toBe("INVALID_ARGUMENT");
    });

    it("changes nothing it refused", async () => {
      const groups = await owner.get(`/iam/v2beta1/groups?uidp.children_of=${ctx.org}`);
      expect(groups.body.groups.map((g: { name: string }) => g.name)).toEqual(["team"]);
      expect((await owner.get(`/iam/v2beta1/groups/${ctx.group}`)).body.description).toBe("");
    });

    it.each([
      ["the token exchange's identity", "GET", "/sts/exchange?aud=x&identity=a%00b", undefined, "identity"],
      ["a parameter of the exchange's form", "POST", "/sts/exchange", "aud=x&identity=%00", "identity"],
      ["the registry token's scope", "GET", "/registry/token?service=r&scope=repository%3Aa%00%3Apull", undefined, "scope"],
      ["a parameter of /oauth/token", "POST", "/oauth/token", "grant_type=refresh_token&refresh_token=%00", "refresh_token"],
    ])("refuses U+0000 in %s, outside the API's calls, with 400 and code 3 naming it", async (_name, method, path, form, field) => {
      const res = await fetch(`${t.url}${path}`, {
        method,
        headers: {
          authorization: "Bearer not-a-token",
          ...(form !== undefined && { "content-type": "application/x-www-form-urlencoded" }),
        },
        ...(form !== undefined && { body: form }),
      });
      const text = await res.text();
      expect(res.status, text).toBe(400);
      expect(text).toContain(`${field}: must not contain U+0000 (NUL)`);
    });

    it("refuses U+0000 in a login's organization with a 400 page, as the store never sees it", async () => {
      const res = await fetch(`${t.url}/oauth/login?org=a%00b&redirect_uri=${encodeURIComponent("http://127.0.0.1:9/cb")}`, {
        redirect: "manual",
      });
      const text = await res.text();
      expect(res.status, text).toBe(400);
      expect(res.headers.get("content-type")).toMatch(/^text\/html/);
      expect(text).toContain("org: must not contain U+0000 (NUL)");
    });

    it("refuses it over Connect too, naming the field", async () => {
      const client = createClient(GroupsService, createConnectTransport({ baseUrl: t.url, httpVersion: "1.1" }));
      const err = await client.listGroups({ name: `x${NUL}` }, { headers: { authorization: `Bearer ${token}` } }).then(
        () => undefined,
        (e: unknown) => ConnectError.from(e),
      );
      expect(err?.code).toBe(ConnectCode.InvalidArgument);
      expect(err?.rawMessage).toBe("Invalid argument: name: must not contain U+0000 (NUL)");
    });
  });
}
