/**
 * The port over TLS: HTTP/1.1 and HTTP/2 chosen by ALPN, REST and gRPC alike.
 */
import https from "node:https";
import http2 from "node:http2";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engines } from "../support/engines.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { selfSignedCertificate, type TestCertificate } from "../support/tls.js";

const engine = engines[0]!;

describe(`TLS on the one port [${engine.name}]`, () => {
  let t: TestServer;
  let cert: TestCertificate;
  let token: string;

  beforeAll(async () => {
    cert = await selfSignedCertificate();
    t = await startTestServer(engine, { tlsCert: cert.certFile, tlsKey: cert.keyFile });
    ({ token } = await t.organization("tls-org"));
  });
  afterAll(async () => {
    await t?.close();
  });

  it("answers as https://localhost:<port>", () => {
    expect(t.url).toBe(`https://localhost:${t.server.port}`);
  });

  it("serves REST over HTTP/1.1 with TLS", async () => {
    const body = await new Promise<string>((resolve, reject) => {
      https
        .get(
          `${t.url}/iam/v2beta1/groups?uidp.in_root=true`,
          { ca: cert.certPem, headers: { authorization: `Bearer ${token}` } },
          (res) => {
            let text = "";
            expect(res.statusCode).toBe(200);
            res.on("data", (d: Buffer) => (text += d.toString()));
            res.on("end", () => resolve(text));
          },
        )
        .once("error", reject);
    });
    expect((JSON.parse(body) as { groups: { name: string }[] }).groups.map((g) => g.name)).toEqual(["tls-org"]);
  });

  it("serves REST over HTTP/2 with TLS", async () => {
    const session = http2.connect(t.url, { ca: cert.certPem });
    const status = await new Promise<number>((resolve, reject) => {
      const req = session.request({ ":path": "/ping/v2beta1/ping" });
      req.once("response", (h) => resolve(Number(h[":status"])));
      req.once("error", reject);
      req.end();
    });
    session.close();
    expect(status).toBe(200);
  });

  it("serves gRPC with TLS credentials", async () => {
    const def = protoLoader.loadSync("arbor/ping/v2beta1/ping.proto", { includeDirs: [join(import.meta.dirname, "../../proto")] });
    const pkg = grpc.loadPackageDefinition(def) as any;
    const client = new pkg.arbor.ping.v2beta1.PingService(
      `localhost:${t.server.port}`,
      grpc.credentials.createSsl(Buffer.from(cert.certPem)),
    );
    const res = await new Promise((resolve, reject) =>
      client.ping({}, (err: Error | null, r: unknown) => (err ? reject(err) : resolve(r))),
    );
    client.close();
    expect(res).toEqual({ response: "pong" });
  });
});
