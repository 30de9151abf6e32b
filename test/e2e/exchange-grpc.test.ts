/**
 * The token exchange over gRPC (arbor.iam.v2beta1.IdentitiesService/ExchangeToken), with
 * @grpc/grpc-js loading the .proto contract itself: a workload's exchange for its identity, a
 * person's without one, the HTTP endpoint's refusals as UNAUTHENTICATED with the same reasons,
 * the per-address limit of the endpoints that take credentials, shared with the HTTP one, and the
 * default throttle of refused credentials, whose budgets it shares with the HTTP one too.
 */
import * as grpc from "@grpc/grpc-js";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PERSON_NOT_TRUSTED } from "../../src/auth/person-exchange.js";
import { userIdentityUid } from "../../src/domain/identities.js";
import { engines } from "../support/engines.js";
import { callExchange, startExchangeSetup, type ExchangeSetup } from "../support/exchange.js";
import { call, failure, loadProtos, statusOf } from "../support/grpc.js";
import { login, startLoginWorld, type LoginWorld } from "../support/login.js";
import { startTestIssuer, type TestIssuer } from "../support/oidc-issuer.js";
import { restClient } from "../support/rest.js";

const pkg = loadProtos(["arbor/iam/v2beta1/identities.proto"]);
const engine = engines[0]!;
const MAIN = "repo:acme/app:ref:refs/heads/main";

/** The exchange RPC's client at a server's port. */
function exchangeClient(port: number): grpc.Client {
  return new pkg.arbor.iam.v2beta1.IdentitiesService(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
}

describe(`the token exchange over gRPC [${engine.name}]`, () => {
  let w: LoginWorld;
  let workloads: TestIssuer;
  let ci: string;
  let client: grpc.Client;

  const now = () => Math.floor(Date.now() / 1000);
  const reasonLogged = async () => {
    for (let i = 0; i < 50; i++) {
      const line = w.t.logs.findLast((l) => l.rpc === "arbor.iam.v2beta1.IdentitiesService/ExchangeToken");
      if (line !== undefined) return line.reason;
      await new Promise((r) => setTimeout(r, 10));
    }
    return undefined;
  };

  beforeAll(async () => {
    w = await startLoginWorld(engine);
    workloads = await startTestIssuer([w.t.url]);
    const team = (await w.admin.post(`/iam/v2beta1/groups/${w.org.uid}`, { name: "team" })).body.uid as string;
    ci = (await w.admin.post(`/iam/v2beta1/identities/${team}`, { name: "ci", claimMatch: { issuer: workloads.url, subject: MAIN } })).body
      .uid as string;
    await login(w, { sub: "carol", claims: { preferred_username: "carol" } });
    client = exchangeClient(w.t.server.port);
  });
  afterAll(async () => {
    client?.close();
    await workloads?.close();
    await w?.close();
  });

  it("exchanges a workload's token for its identity: a one-hour token and its expiry", async () => {
    const answer = await call(client, "exchangeToken", { token: await workloads.mint(MAIN, w.t.url), aud: w.t.url, identity: ci });
    const claims = decodeJwt(answer.token as string);
    expect(claims).toMatchObject({ iss: w.t.url, sub: ci, aud: w.t.url, act: { iss: workloads.url, sub: MAIN, aud: w.t.url } });
    expect(claims.exp! - claims.iat!).toBe(3600);
    expect(Number(answer.expiry.seconds)).toBe(claims.exp);
    expect((await restClient(w.t, answer.token as string).get(`/iam/v2beta1/identities/${ci}`)).status).toBe(403);
  });

  it("exchanges a person's token without an identity, for the person", async () => {
    const upstream = await w.issuer.sign({ iss: w.issuer.url, sub: "carol", aud: w.t.url, iat: now(), exp: now() + 600 });
    const answer = await call(client, "exchangeToken", { token: upstream, aud: w.t.url });
    const carol = userIdentityUid(w.issuer.url, "carol");
    expect(decodeJwt(answer.token as string)).toMatchObject({ sub: carol, act: { iss: w.issuer.url, sub: "carol" } });
    expect((await restClient(w.t, answer.token as string).get(`/iam/v2beta1/identities/${carol}`)).status).toBe(200);
  });

  it("refuses as the HTTP endpoint does: UNAUTHENTICATED with its reason, the failed check in the log", async () => {
    const token = await workloads.mint(MAIN, w.t.url);
    const cases: { request: object; message: string; logged?: string }[] = [
      { request: { aud: w.t.url, identity: ci }, message: "token is required: the upstream OIDC token" },
      { request: { token, identity: ci }, message: "aud is required" },
      { request: { token, aud: "https://elsewhere.example", identity: ci }, message: "the requested audience is not accepted" },
      {
        request: { token: "not-a-token", aud: w.t.url, identity: ci },
        message: "the token is malformed",
        logged: "token: the token is malformed",
      },
      {
        request: { token: await workloads.mint("repo:acme/other", w.t.url), aud: w.t.url, identity: ci },
        message: "the token's subject does not match the identity",
        logged: "subject: the token's subject does not match the identity",
      },
      {
        request: { token, aud: w.t.url },
        message: PERSON_NOT_TRUSTED,
        logged: "issuer: the token's issuer is no login provider of this server",
      },
    ];
    for (const c of cases) {
      const err = await failure(call(client, "exchangeToken", c.request));
      expect({ code: err.code, details: err.details }).toEqual({
        code: grpc.status.UNAUTHENTICATED,
        details: `Unauthenticated: ${c.message}`,
      });
      expect(statusOf(err).details.map((d) => d.typeUrl)).toEqual(["type.googleapis.com/google.rpc.ErrorInfo"]);
      if (c.logged !== undefined) expect(await reasonLogged()).toBe(c.logged);
    }
  });

  it("needs no Arbor token, and takes none for the upstream one", async () => {
    const err = await failure(call(client, "exchangeToken", { aud: w.t.url, identity: ci }, await workloads.mint(MAIN, w.t.url)));
    expect(err.details).toBe("Unauthenticated: token is required: the upstream OIDC token");
  });

  it("writes no part of the tokens to the log", async () => {
    const token = await workloads.mint(MAIN, w.t.url);
    await call(client, "exchangeToken", { token, aud: w.t.url, identity: ci });
    const log = JSON.stringify(w.t.logs);
    for (const part of token.split(".").filter((p) => p.length >= 16)) expect(log).not.toContain(part);
  });
});

describe(`the token exchange's rate limit over gRPC [${engine.name}]`, () => {
  let s: ExchangeSetup;
  let client: grpc.Client;

  beforeAll(async () => {
    s = await startExchangeSetup(engine, { exchangeRateLimit: { count: 3, periodMs: 3_600_000 } });
    client = exchangeClient(s.t.server.port);
  });
  afterAll(async () => {
    client?.close();
    await s?.close();
  });

  it("counts each call against the address's limit of the credential endpoints, shared with /sts/exchange", async () => {
    const token = await s.issuer.mint(MAIN, s.t.url);
    for (let i = 0; i < 2; i++)
      expect((await failure(call(client, "exchangeToken", { token, aud: s.t.url }))).code).toBe(grpc.status.UNAUTHENTICATED);
    expect((await callExchange(s, { token, aud: s.t.url })).status).toBe(401);
    const limited = await failure(call(client, "exchangeToken", { token, aud: s.t.url }));
    expect(limited.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(statusOf(limited).details.map((d) => d.typeUrl)).toContain("type.googleapis.com/google.rpc.RetryInfo");
    expect((await callExchange(s, { token, aud: s.t.url })).status).toBe(429);
  });
});

describe(`refused exchanges over gRPC, by default [${engine.name}]`, () => {
  let s: ExchangeSetup;
  let client: grpc.Client;

  beforeAll(async () => {
    // The defaults but a small budget of refusals, so that the test spends it quickly.
    s = await startExchangeSetup(engine, { authFailuresPerAddress: { count: 5, periodMs: 3_600_000 } });
    client = exchangeClient(s.t.server.port);
  });
  afterAll(async () => {
    client?.close();
    await s?.close();
  });

  it("are not limited when they succeed, and spend the address's budget of refusals with /sts/exchange when they fail", async () => {
    const made = await s.t.organization("refusals");
    const admin = restClient(s.t, made.token);
    const created = await admin.post(`/iam/v2beta1/identities/${made.org.uid}`, {
      name: "ci",
      claimMatch: { issuer: s.issuer.url, subject: MAIN },
    });
    expect(created.status).toBe(200);
    const identity = created.body.uid as string;
    const good = await s.issuer.mint(MAIN, s.t.url);
    // Successes spend nothing: more of them than the budget of refusals.
    for (let i = 0; i < 12; i++)
      expect(((await call(client, "exchangeToken", { token: good, aud: s.t.url, identity })) as { token: string }).token).not.toBe("");
    const stranger = await s.issuer.mint("repo:evil/app:ref:refs/heads/main", s.t.url);
    for (let i = 0; i < 4; i++)
      expect((await failure(call(client, "exchangeToken", { token: stranger, aud: s.t.url, identity }))).code).toBe(
        grpc.status.UNAUTHENTICATED,
      );
    expect((await callExchange(s, { token: stranger, aud: s.t.url, identity })).status).toBe(401);
    // The budget is spent: a good token from this address waits too, over gRPC and HTTP alike.
    const limited = await failure(call(client, "exchangeToken", { token: good, aud: s.t.url, identity }));
    expect(limited.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(statusOf(limited).details.map((d) => d.typeUrl)).toContain("type.googleapis.com/google.rpc.RetryInfo");
    expect((await callExchange(s, { token: good, aud: s.t.url, identity })).status).toBe(429);
  });
});
