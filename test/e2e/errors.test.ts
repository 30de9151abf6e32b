/**
 * Every bad input over REST: a structured google.rpc.Status with the right code, HTTP status and
 * field, never a stack trace or driver text.
 */
import { generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KeyRing } from "../../src/auth/key-ring.js";
import { Tokens } from "../../src/auth/tokens.js";
import { engines } from "../support/engines.js";
import { startTestServer, type TestServer } from "../support/server.js";

const engine = engines[0]!;

interface Case {
  name: string;
  method?: string;
  path: (ctx: Ctx) => string;
  body?: string | ((ctx: Ctx) => string);
  token?: (ctx: Ctx) => string | undefined;
  status: number;
  code: number;
  field?: string;
  /** The Allow header of a 405. */
  allow?: string;
}

interface Ctx {
  org: string;
  child: string;
  token: string;
  otherOrg: string;
  pageToken: string;
}

const cases: Case[] = [
  {
    name: "malformed JSON",
    method: "POST",
    path: (c) => `/iam/v2beta1/groups/${c.org}`,
    body: '{"name": ',
    status: 400,
    code: 3,
    field: "body",
  },
  {
    name: "a JSON array body",
    method: "POST",
    path: (c) => `/iam/v2beta1/groups/${c.org}`,
    body: "[]",
    status: 400,
    code: 3,
    field: "body",
  },
  {
    name: "a wrong type",
    method: "POST",
    path: (c) => `/iam/v2beta1/groups/${c.org}`,
    body: '{"name": 42}',
    status: 400,
    code: 3,
    field: "name",
  },
  {
    name: "a key given twice",
    method: "POST",
    path: (c) => `/iam/v2beta1/groups/${c.org}`,
    body: '{"name": "BAD NAME", "name": "ok"}',
    status: 400,
    code: 3,
    field: "name",
  },
  {
    name: "an unknown field",
    method: "POST",
    path: (c) => `/iam/v2beta1/groups/${c.org}`,
    body: '{"name": "x", "colour": "red"}',
    status: 400,
    code: 3,
    field: "colour",
  },
  {
    name: "an oversized body",
    method: "POST",
    path: (c) => `/iam/v2beta1/groups/${c.org}`,
    body: `{"name": "x", "description": "${"a".repeat(2 * 1024 * 1024)}"}`,
    status: 400,
    code: 3,
    field: "body",
  },
  {
    name: "a description over 512 characters",
    method: "POST",
    path: (c) => `/iam/v2beta1/groups/${c.org}`,
    body: `{"name": "x", "description": "${"a".repeat(513)}"}`,
    status: 400,
    code: 3,
    field: "description",
  },
  { name: "a malformed uid", path: () => "/iam/v2beta1/groups/not-a-uid", status: 400, code: 3, field: "uid" },
  // An encoded slash between a uid's segments is a separator (generic OpenAPI clients send it so): the group is just missing.
  { name: "an encoded slash in a uid", path: (c) => `/iam/v2beta1/groups/${c.org}%2F0123456789abcdef`, status: 404, code: 5 },
  {
    name: "a double-encoded slash in a uid",
    path: (c) => `/iam/v2beta1/groups/${c.org}%252F0123456789abcdef`,
    status: 400,
    code: 3,
    field: "uid",
  },
  {
    name: "an encoded dot-segment in a uid",
    path: (c) => `/iam/v2beta1/groups/${c.org}%2F..%2F${c.otherOrg}`,
    status: 400,
    code: 3,
    field: "uid",
  },
  {
    name: "an encoded slash outside a uid's segments",
    method: "DELETE",
    path: (c) => `/iam/v2beta1/groups/${c.org}%2F%2F0123456789abcdef`,
    status: 400,
    code: 3,
    field: "uid",
  },
  {
    name: "a malformed parent",
    method: "POST",
    path: () => "/iam/v2beta1/groups/XYZ",
    body: '{"name": "x"}',
    status: 400,
    code: 3,
    field: "parent",
  },
  { name: "a negative page_size", path: () => "/iam/v2beta1/groups?page_size=-1", status: 400, code: 3, field: "page_size" },
  { name: "a non-numeric page_size", path: () => "/iam/v2beta1/groups?page_size=ten", status: 400, code: 3, field: "page_size" },
  { name: "a negative skip", path: () => "/iam/v2beta1/groups?skip=-5", status: 400, code: 3, field: "skip" },
  { name: "an unknown order_by field", path: () => "/iam/v2beta1/groups?order_by=colour", status: 400, code: 3, field: "order_by" },
  {
    name: "an unknown query parameter",
    path: () => "/iam/v2beta1/groups?uidp.descendant_of=x",
    status: 400,
    code: 3,
    field: "uidp.descendant_of",
  },
  {
    name: "a malformed uidp filter",
    path: () => "/iam/v2beta1/groups?uidp.descendants_of=zzz",
    status: 400,
    code: 3,
    field: "uidp.descendants_of",
  },
  {
    name: "a forged page token",
    path: () => "/iam/v2beta1/groups?page_token=eyJ2IjoxfQ.AAAAAAAAAAAAAAAAAAAAAA",
    status: 400,
    code: 3,
    field: "page_token",
  },
  {
    name: "a page token reused with another filter",
    path: (c) => `/iam/v2beta1/groups?name=other&page_size=1&page_token=${c.pageToken}`,
    status: 400,
    code: 3,
    field: "page_token",
  },
  {
    name: "an output-only field in the mask",
    method: "PATCH",
    path: (c) => `/iam/v2beta1/groups/${c.child}?updateMask=createTime`,
    body: "{}",
    status: 400,
    code: 3,
    field: "update_mask",
  },
  {
    name: "an unknown field in the mask",
    method: "PATCH",
    path: (c) => `/iam/v2beta1/groups/${c.child}?updateMask=colour`,
    body: "{}",
    status: 400,
    code: 3,
    field: "update_mask",
  },
  {
    name: "an invalid name in a PATCH",
    method: "PATCH",
    path: (c) => `/iam/v2beta1/groups/${c.child}`,
    body: '{"name": "UPPER"}',
    status: 400,
    code: 3,
    field: "name",
  },
  { name: "no token", path: () => "/iam/v2beta1/groups", token: () => undefined, status: 401, code: 16 },
  { name: "a Basic scheme", path: () => "/iam/v2beta1/groups", token: () => "", status: 401, code: 16 },
  { name: "a garbage token", path: () => "/iam/v2beta1/groups", token: () => "garbage", status: 401, code: 16 },
  { name: "another organization's group", path: (c) => `/iam/v2beta1/groups/${c.otherOrg}`, status: 403, code: 7 },
  {
    name: "a missing group in another organization",
    path: (c) => `/iam/v2beta1/groups/${c.otherOrg}/0000000000000000`,
    status: 403,
    code: 7,
  },
  {
    name: "a missing group in the caller's organization",
    path: (c) => `/iam/v2beta1/groups/${c.org}/0000000000000000`,
    status: 404,
    code: 5,
  },
  { name: "a missing organization", path: () => `/iam/v2beta1/groups/${"0".repeat(40)}`, status: 403, code: 7 },
  { name: "an unknown route", path: () => "/iam/v2beta1/widgets", status: 404, code: 5 },
  { name: "a wrong method", method: "PUT", path: (c) => `/iam/v2beta1/groups/${c.org}`, body: "{}", status: 405, code: 12 },
  // Fixed endpoints answer a method they do not take as REST routes do, with what they allow.
  { name: "a probe posted to", method: "POST", path: () => "/healthz", body: "{}", status: 405, code: 12, allow: "GET, HEAD" },
  { name: "a GET of the token endpoint", path: () => "/oauth/token", status: 405, code: 12, allow: "POST" },
  { name: "a DELETE of the exchange", method: "DELETE", path: () => "/sts/exchange", status: 405, code: 12, allow: "GET, POST" },
];

describe(`errors over REST [${engine.name}]`, () => {
  let t: TestServer;
  const ctx = {} as Ctx;

  beforeAll(async () => {
    t = await startTestServer(engine);
    const mine = await t.organization("mine");
    ctx.org = mine.org.uid;
    ctx.token = mine.token;
    ctx.otherOrg = (await t.organization("theirs")).org.uid;
    const child = await t.fetch(`/iam/v2beta1/groups/${ctx.org}`, { method: "POST", token: ctx.token, body: '{"name": "child"}' });
    ctx.child = ((await child.json()) as { uid: string }).uid;
    await t.fetch(`/iam/v2beta1/groups/${ctx.org}`, { method: "POST", token: ctx.token, body: '{"name": "child2"}' });
    const page = await t.fetch("/iam/v2beta1/groups?page_size=1", { token: ctx.token });
    ctx.pageToken = ((await page.json()) as { nextPageToken: string }).nextPageToken;
  });
  afterAll(() => t?.close());

  it.each(cases)("$name: $status / code $code", async (c) => {
    const token = c.token ? c.token(ctx) : ctx.token;
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (token !== undefined) headers.authorization = token === "" ? "Basic dXNlcjpwYXNz" : `Bearer ${token}`;
    const body = typeof c.body === "function" ? c.body(ctx) : c.body;
    const res = await fetch(`${t.url}${c.path(ctx)}`, { method: c.method ?? "GET", headers, ...(body !== undefined && { body }) });
    const status = (await res.json()) as { code: number; message: string; details: Record<string, any>[] };
    expect(res.status).toBe(c.status);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(status.code).toBe(c.code);
    expect(status.details.filter((d) => d["@type"] === "type.googleapis.com/google.rpc.ErrorInfo")).toHaveLength(1);
    expect(status.details[0]).toMatchObject({ "@type": "type.googleapis.com/google.rpc.ErrorInfo", domain: "iam.localhost" });
    if (c.field !== undefined) {
      const bad = status.details.find((d) => d["@type"] === "type.googleapis.com/google.rpc.BadRequest");
      expect(bad?.fieldViolations?.[0]?.field).toBe(c.field);
      expect(status.message.startsWith(`Invalid argument: ${c.field}: `)).toBe(true);
    }
    expect(status.message).not.toMatch(/\bat .*\.(ts|js):\d+|SQL|sqlite|postgres|TypeError|undefined/i);
    if (c.status === 401) expect(res.headers.get("www-authenticate")).toMatch(/^Bearer realm="arbor"/);
    if (c.allow !== undefined) expect(res.headers.get("allow")).toBe(c.allow);
  });

  describe("tokens", () => {
    const refused = async (token: string) => {
      const res = await t.fetch("/iam/v2beta1/groups", { token });
      expect(res.status).toBe(401);
      return ((await res.json()) as { message: string }).message;
    };

    it("challenges a 401 as RFC 6750 asks: bare without credentials, invalid_token with a bad one", async () => {
      const challenge = async (authorization?: string) =>
        (await fetch(`${t.url}/iam/v2beta1/groups`, { headers: authorization === undefined ? {} : { authorization } })).headers.get(
          "www-authenticate",
        );
      expect(await challenge()).toBe('Bearer realm="arbor"');
      expect(await challenge("Bearer garbage")).toBe(
        'Bearer realm="arbor", error="invalid_token", error_description="the token is malformed"',
      );
      expect(await challenge("Basic dXNlcjpwYXNz")).toMatch(
        /^Bearer realm="arbor", error="invalid_token", error_description="the Authorization header must be/,
      );
      const ok = await t.fetch("/iam/v2beta1/groups", { token: ctx.token });
      expect(ok.headers.get("www-authenticate")).toBeNull();
    });

    it(
      "reads the Authorization header as every other endpoint does: " + "any case of the scheme, spaces or tabs, nothing after the token",
      async () => {
        const status = async (authorization: string) => (await fetch(`${t.url}/iam/v2beta1/groups`, { headers: { authorization } })).status;
        expect(await status(`bearer ${ctx.token}`)).toBe(200);
        expect(await status(`Bearer\t${ctx.token}\t`)).toBe(200);
        expect(await status(`Bearer  ${ctx.token} `)).toBe(200);
        expect(await status(`Bearer ${ctx.token} extra`)).toBe(401);
      },
    );

    it("refuses an expired token", async () => {
      const past = { now: () => Date.now() - 2 * 3600_000 };
      const ring = new KeyRing(t.server.store.keys, past, { rotationMs: 30 * 86_400_000 });
      const old = await new Tokens(ring, past, () => t.url).issue("0".repeat(40), t.url);
      expect(await refused(old.token)).toBe("Unauthenticated: the token has expired");
    });

    it("refuses a token for another audience or issuer", async () => {
      const other = await t.server.tokens.issue("0".repeat(40), "https://registry.example");
      expect(await refused(other.token)).toBe("Unauthenticated: the token is not meant for this API (audience)");
      const ring = new KeyRing(t.server.store.keys, { now: () => Date.now() }, { rotationMs: 30 * 86_400_000 });
      const evil = await new Tokens(ring, { now: () => Date.now() }, () => "https://evil.example").issue("0".repeat(40), t.url);
      expect(await refused(evil.token)).toBe(
        `Unauthenticated: the token was not issued by this server: its issuer is "https://evil.example", this server's is ${t.url}`,
      );
    });

    it("refuses a token signed by a key this server never had", async () => {
      const { privateKey } = await generateKeyPair("ES256");
      const forged = await new SignJWT({})
        .setProtectedHeader({ alg: "ES256", kid: "forged" })
        .setIssuer(t.url)
        .setSubject("0".repeat(40))
        .setAudience(t.url)
        .setIssuedAt()
        .setExpirationTime("1h")
        .sign(privateKey);
      expect(await refused(forged)).toBe("Unauthenticated: the token was not signed by a key of this issuer");
    });

    it("sees a new organization's owner binding on the next request", async () => {
      const stranger = await t.strangerToken();
      const created = await t.fetch("/iam/v2beta1/groups", { method: "POST", token: stranger, body: '{"name": "strangers own"}' });
      expect(created.status).toBe(200);
      const uid = ((await created.json()) as { uid: string }).uid;
      expect((await t.fetch(`/iam/v2beta1/groups/${uid}`, { token: stranger })).status).toBe(200);
    });
  });
});
