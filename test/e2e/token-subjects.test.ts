/**
 * A signed token is not enough: its subject must still be an identity in the store, on every
 * authenticated call (unscoped ones included), and its iat and lifetime must be what this server
 * issues. REST and gRPC, on every engine (the generation trigger of identity deletes is per engine).
 */
import * as grpc from "@grpc/grpc-js";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KeyRing } from "../../src/auth/key-ring.js";
import { adminIdentityUid, userIdentityUid } from "../../src/domain/identities.js";
import { engines } from "../support/engines.js";
import { call, failure, loadProtos } from "../support/grpc.js";
import { restClient, type RestClient } from "../support/rest.js";
import { startTestServer, type TestServer } from "../support/server.js";

const pkg = loadProtos(["arbor/iam/v2beta1/identities.proto", "arbor/iam/v2beta1/roles.proto"]);
const LOOKUP = "/iam/v2beta1/identities:lookupIdentity?issuer=https%3A%2F%2Fissuer.example&subject=someone";
const GONE = "Unauthenticated: the token's identity does not exist (deleted, or never registered)";

describe.each(engines)("token subjects and claims [$name]", (engine) => {
  let t: TestServer;
  let owner: RestClient;
  let org: string;
  let identities: grpc.Client;
  let roles: grpc.Client;

  beforeAll(async () => {
    t = await startTestServer(engine);
    const o = await t.organization("subjects");
    org = o.org.uid;
    owner = restClient(t, o.token);
    const address = `127.0.0.1:${t.server.port}`;
    identities = new pkg.arbor.iam.v2beta1.IdentitiesService(address, grpc.credentials.createInsecure());
    roles = new pkg.arbor.iam.v2beta1.RolesService(address, grpc.credentials.createInsecure());
  });
  afterAll(async () => {
    identities?.close();
    roles?.close();
    await t?.close();
  });

  /** What the unscoped calls answer a token with, over REST and gRPC: HTTP status / gRPC code, and the messages. */
  async function unscoped(token: string) {
    const as = restClient(t, token);
    const [list, lookup] = [await as.get("/iam/v2beta1/roles"), await as.get(LOOKUP)];
    const grpcList = await call(roles, "listRoles", {}, token).then(
      () => 0,
      (e: grpc.ServiceError) => e.code,
    );
    const grpcLookup = await call(identities, "lookupIdentity", { issuer: "https://issuer.example", subject: "someone" }, token).then(
      () => 0,
      (e: grpc.ServiceError) => e.code,
    );
    return { rest: [list.status, lookup.status], messages: [list.body.message, lookup.body.message], grpc: [grpcList, grpcLookup] };
  }

  const works = { rest: [200, 200], messages: [undefined, undefined], grpc: [0, 0] };
  const refused = { rest: [401, 401], messages: [GONE, GONE], grpc: [16, 16] };

  it("refuses a deleted workload identity's token on unscoped calls, on the next request", async () => {
    const made = await owner.post(`/iam/v2beta1/identities/${org}`, {
      name: "robot",
      claimMatch: { issuer: "https://ci.example", subject: "robot" },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const token = (await t.server.tokens.issue(made.body.uid, t.url)).token;
    // Twice: the second answer comes from what the server remembers.
    expect(await unscoped(token)).toEqual(works);
    expect(await unscoped(token)).toEqual(works);
    expect((await owner.del(`/iam/v2beta1/identities/${made.body.uid}`)).status).toBe(200);
    expect(await unscoped(token)).toEqual(refused);
    const err = await failure(call(roles, "listRoles", {}, token));
    expect(err.details).toBe(GONE);
  });

  it("refuses a deleted person's token, and one of a person who never registered", async () => {
    const person = userIdentityUid("https://login.example", "leaver");
    await t.register(person);
    const token = (await t.server.tokens.issue(person, t.url)).token;
    expect(await unscoped(token)).toEqual(works);
    expect(await t.server.store.identities.delete(person)).toBe(true);
    expect(await unscoped(token)).toEqual(refused);
    const never = (await t.server.tokens.issue(userIdentityUid("https://login.example", "never"), t.url)).token;
    expect(await unscoped(never)).toEqual(refused);
  });

  describe("tokens signed with the server's own key", () => {
    /** A token of the organization's administrator (who exists) with the given iat and exp, in seconds. */
    async function forge(iat: number, exp: number): Promise<string> {
      const ring = new KeyRing(t.server.store.keys, { now: () => Date.now() }, { rotationMs: 30 * 86_400_000 });
      const { kid, key } = await ring.signingKey();
      return new SignJWT({})
        .setProtectedHeader({ alg: "ES256", kid, typ: "JWT" })
        .setIssuer(t.url)
        .setSubject(adminIdentityUid(org))
        .setAudience(t.url)
        .setIssuedAt(iat)
        .setExpirationTime(exp)
        .setJti("forged")
        .sign(key);
    }
    const now = () => Math.floor(Date.now() / 1000);
    const answer = async (token: string) => {
      const res = await restClient(t, token).get("/iam/v2beta1/roles");
      const grpcCode = await call(roles, "listRoles", {}, token).then(
        () => 0,
        (e: grpc.ServiceError) => e.code,
      );
      return { status: res.status, code: res.body.code, message: res.body.message, grpc: grpcCode };
    };

    it("accepts one as issue() makes it (the control)", async () => {
      expect((await answer(await forge(now(), now() + 3600))).status).toBe(200);
    });

    it("refuses an iat in the future", async () => {
      expect(await answer(await forge(now() + 600, now() + 1200))).toEqual({
        status: 401,
        code: 16,
        message: "Unauthenticated: the token's iat claim is in the future",
        grpc: 16,
      });
    });

    it("refuses a lifetime longer than the server issues", async () => {
      expect(await answer(await forge(now(), now() + 30 * 86_400))).toEqual({
        status: 401,
        code: 16,
        message: "Unauthenticated: the token's lifetime (exp - iat) is longer than this server issues",
        grpc: 16,
      });
    });
  });
});
