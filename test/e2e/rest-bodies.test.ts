/**
 * What REST takes as a body and answers to HEAD: a body must be declared application/json (415,
 * code 3 otherwise), a method without a body takes `{}` too, and HEAD is GET without the body,
 * over HTTP/1.1 and HTTP/2 alike.
 */
import http2 from "node:http2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engines } from "../support/engines.js";
import { startTestServer, type TestServer } from "../support/server.js";

const engine = engines[0]!;

describe(`REST bodies and HEAD [${engine.name}]`, () => {
  let t: TestServer;
  let org: string;
  let token: string;

  beforeAll(async () => {
    t = await startTestServer(engine);
    const made = await t.organization("bodies");
    org = made.org.uid;
    token = made.token;
  });
  afterAll(() => t?.close());

  const send = (method: string, path: string, body: string | undefined, type: string | undefined) => {
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (type !== undefined) headers["content-type"] = type;
    // A Blob without a type makes fetch send no Content-Type at all.
    const payload = body === undefined ? undefined : type === undefined ? new Blob([body]) : body;
    return fetch(`${t.url}${path}`, { method, headers, ...(payload !== undefined && { body: payload }) });
  };
  const create = async (name: string) => {
    const res = await send("POST", `/iam/v2beta1/groups/${org}`, JSON.stringify({ name }), "application/json");
    expect(res.status).toBe(200);
    return ((await res.json()) as { uid: string }).uid;
  };

  describe("media types", () => {
    it.each([
      ["text/plain;charset=UTF-8", "as text/plain"],
      ["application/x-www-form-urlencoded", "as application/x-www-form-urlencoded"],
      [undefined, "without a Content-Type"],
    ])("refuses a JSON body sent as %s with 415 and code 3, changing nothing", async (type, sent) => {
      const res = await send("POST", `/iam/v2beta1/groups/${org}`, '{"name": "plain"}', type);
      expect(res.status).toBe(415);
      const body = (await res.json()) as { code: number; message: string; details: Record<string, any>[] };
      expect(body.code).toBe(3);
      expect(body.message).toBe(`Invalid argument: content-type: a request body must be sent as application/json, not ${sent}`);
      expect(body.details[0]).toMatchObject({ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "INVALID_ARGUMENT" });
      expect(body.details[1]).toMatchObject({ fieldViolations: [{ field: "content-type" }] });
      const list = (await (await send("GET", `/iam/v2beta1/groups?uidp.children_of=${org}&name=plain`, undefined, undefined)).json()) as {
        totalCount: string;
      };
      expect(list.totalCount).toBe("0");
    });

    it("takes application/json with a charset", async () => {
      const res = await send("POST", `/iam/v2beta1/groups/${org}`, '{"name": "charset"}', "application/json; charset=utf-8");
      expect(res.status).toBe(200);
    });

    it("keeps the form endpoints' own types: the token exchange still takes a form", async () => {
      const res = await fetch(`${t.url}/sts/exchange`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", authorization: "Bearer x" },
        body: "aud=x&identity=y",
      });
      expect(res.status).toBe(401);
    });
  });

  describe("DELETE", () => {
    it("takes an empty JSON object as no body", async () => {
      const uid = await create("empty-object");
      const res = await send("DELETE", `/iam/v2beta1/groups/${uid}`, "{}", "application/json");
      expect([res.status, await res.json()]).toEqual([200, {}]);
      expect((await send("GET", `/iam/v2beta1/groups/${uid}`, undefined, undefined)).status).toBe(404);
    });

    it("takes a blank body whatever its declared type", async () => {
      const uid = await create("blank-body");
      expect((await send("DELETE", `/iam/v2beta1/groups/${uid}`, "", "text/plain")).status).toBe(200);
    });

    it("refuses a body with members", async () => {
      const uid = await create("members");
      const res = await send("DELETE", `/iam/v2beta1/groups/${uid}`, `{"uid": "${uid}"}`, "application/json");
      expect(res.status).toBe(400);
      expect(((await res.json()) as { message: string }).message).toBe(
        "Invalid argument: body: this method takes no request body (an empty JSON object at most)",
      );
    });
  });

  describe("HEAD", () => {
    const headersOf = (res: Response) => {
      const h = Object.fromEntries(res.headers);
      // fetch (undici) closes the connection after a HEAD, whatever the server offers.
      for (const name of ["date", "connection", "keep-alive"]) delete h[name];
      return h;
    };

    it.each([
      ["a Get", () => `/iam/v2beta1/groups/${org}`, 200],
      ["a List", () => `/iam/v2beta1/groups?uidp.in_root=true`, 200],
      ["a missing group", () => `/iam/v2beta1/groups/${org}/0000000000000000`, 404],
      ["a bad parameter", () => `/iam/v2beta1/groups?page_size=x`, 400],
    ])("answers %s as GET does, without the body", async (_, path, status) => {
      const get = await send("GET", path(), undefined, undefined);
      const getBody = await get.arrayBuffer();
      const head = await send("HEAD", path(), undefined, undefined);
      expect(head.status).toBe(status);
      expect(get.status).toBe(status);
      expect(headersOf(head)).toEqual(headersOf(get));
      expect(head.headers.get("content-length")).toBe(String(getBody.byteLength));
      expect((await head.arrayBuffer()).byteLength).toBe(0);
    });

    it("is 401 without a token, as GET", async () => {
      const res = await fetch(`${t.url}/iam/v2beta1/groups`, { method: "HEAD" });
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe('Bearer realm="arbor"');
    });

    it("is 405 where GET is not served, and GET's 405 lists HEAD", async () => {
      const head = await send("HEAD", `/registry/v1/repos/${org}`, undefined, undefined);
      expect([head.status, head.headers.get("allow")]).toEqual([405, "POST, PUT, DELETE"]);
      const put = await send("PUT", `/iam/v2beta1/groups/${org}`, "{}", "application/json");
      expect([put.status, put.headers.get("allow")]).toEqual([405, "GET, HEAD, POST, PATCH, DELETE"]);
    });

    it("answers over HTTP/2 with GET's headers and no body", async () => {
      const session = http2.connect(t.url);
      try {
        const request = (method: string) =>
          new Promise<{ headers: http2.IncomingHttpHeaders; bytes: number }>((resolve, reject) => {
            const stream = session.request({ ":method": method, ":path": `/iam/v2beta1/groups/${org}`, authorization: `Bearer ${token}` });
            let bytes = 0;
            let headers: http2.IncomingHttpHeaders = {};
            stream.on("response", (h) => (headers = h));
            stream.on("data", (chunk: Buffer) => (bytes += chunk.length));
            stream.on("end", () => resolve({ headers, bytes }));
            stream.on("error", reject);
            stream.end();
          });
        const get = await request("GET");
        const head = await request("HEAD");
        expect(head.headers[":status"]).toBe(200);
        expect(head.headers["content-length"]).toBe(String(get.bytes));
        expect(head.headers["content-type"]).toBe("application/json");
        expect(head.bytes).toBe(0);
      } finally {
        session.close();
      }
    });
  });
});
