/**
 * The identities service's calls around the exchange, over REST: LookupIdentity (any
 * authenticated caller; the derived uid of a person) and ExplainExchange (identity.update on the
 * identity; every check's outcome, nothing issued).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { userIdentityUid } from "../../src/domain/identities.js";
import { engines } from "../support/engines.js";
import { ELSEWHERE, REGISTRY_HOST, startExchangeSetup, type ExchangeSetup } from "../support/exchange.js";
import { restClient, violatedField, type RestClient } from "../support/rest.js";

const MAIN = "repo:acme/app:ref:refs/heads/main";
const engine = engines[0]!;

describe("LookupIdentity and ExplainExchange over REST", () => {
  let s: ExchangeSetup;
  let admin: RestClient;
  let ci: string;
  const explain = (uid: string, body: Record<string, unknown>, as = admin) =>
    as.post(`/iam/v2beta1/identities/${uid}:explainExchange`, body);

  beforeAll(async () => {
    s = await startExchangeSetup(engine);
    const made = await s.t.organization("explain");
    admin = restClient(s.t, made.token);
    ci = (
      await admin.post(`/iam/v2beta1/identities/${made.org.uid}`, {
        name: "ci",
        claimMatch: { issuer: s.issuer.url, subject: MAIN, claims: { repository_owner: "acme" } },
      })
    ).body.uid;
  });
  afterAll(() => s?.close());

  it("looks up the uid a person gets from issuer and subject, for any authenticated caller", async () => {
    const stranger = restClient(s.t, await s.t.strangerToken());
    const issuer = "https://accounts.example.com";
    const res = await stranger.get(`/iam/v2beta1/identities:lookupIdentity?issuer=${encodeURIComponent(issuer)}&subject=ada`);
    expect(res).toEqual({ status: 200, body: { uid: userIdentityUid(issuer, "ada") } });
  });

  it("refuses a lookup without a URL issuer or a subject, and without a token", async () => {
    const noUrl = await admin.get("/iam/v2beta1/identities:lookupIdentity?issuer=accounts&subject=ada");
    expect({ status: noUrl.status, field: violatedField(noUrl.body) }).toEqual({ status: 400, field: "issuer" });
    const noSubject = await admin.get(`/iam/v2beta1/identities:lookupIdentity?issuer=${encodeURIComponent("https://a.example")}`);
    expect({ status: noSubject.status, field: violatedField(noSubject.body) }).toEqual({ status: 400, field: "subject" });
    const anonymous = await s.t.fetch("/iam/v2beta1/identities:lookupIdentity?issuer=https%3A%2F%2Fa.example&subject=ada");
    expect(anonymous.status).toBe(401);
  });

  it("explains a token that would be exchanged, and issues nothing", async () => {
    const token = await s.issuer.mint(MAIN, s.t.url, { repository_owner: "acme" });
    const res = await explain(ci, { token, audience: REGISTRY_HOST });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      checks: ["requestedAudience", "token", "identity", "issuer", "signature", "subject", "audience", "claims.repository_owner"].map(
        (check) => ({
          check,
          passed: true,
          reason: "",
        }),
      ),
      wouldIssue: true,
    });
    const identity = await admin.get(`/iam/v2beta1/identities/${ci}`);
    expect(identity.body.lastSeenTime).toBeUndefined();
  });

  it("shows the checks up to the first that failed, with its reason; the audience defaults to the base URL", async () => {
    const failedAt = async (token: string) => {
      const res = await explain(ci, { token });
      expect(res.status).toBe(200);
      expect(res.body.wouldIssue).toBe(false);
      const checks = res.body.checks as { check: string; passed: boolean; reason: string }[];
      expect(checks.slice(0, -1).every((c) => c.passed)).toBe(true);
      return checks.at(-1);
    };
    // Every check after a failed one is left out: the audience and claims of this token are wrong too.
    expect(await failedAt(await s.issuer.mint("repo:acme/other", ELSEWHERE, { repository_owner: "evil" }))).toEqual({
      check: "subject",
      passed: false,
      reason: "the token's subject does not match the identity",
    });
    expect(await failedAt(await s.issuer.mint(MAIN, ELSEWHERE, { repository_owner: "evil" }))).toEqual({
      check: "audience",
      passed: false,
      reason: "the token's audience is not accepted",
    });
    expect(await failedAt(await s.issuer.mint(MAIN, s.t.url, { repository_owner: "evil" }))).toEqual({
      check: "claims.repository_owner",
      passed: false,
      reason: 'the token\'s claim "repository_owner" does not match the identity',
    });
    const wrongAudience = await explain(ci, {
      token: await s.issuer.mint(MAIN, s.t.url, { repository_owner: "acme" }),
      audience: ELSEWHERE,
    });
    expect(wrongAudience.body.checks[0]).toEqual({
      check: "requestedAudience",
      passed: false,
      reason: "the requested audience is not accepted",
    });
    expect(wrongAudience.body.wouldIssue).toBe(false);
  });

  it("stops at a failed signature check", async () => {
    const forged = await s.issuer.sign(
      { iss: s.issuer.url, sub: MAIN, aud: s.t.url, exp: Math.floor(s.clock.now() / 1000) + 600 },
      { kid: "nope" },
    );
    const res = await explain(ci, { token: forged });
    expect((res.body.checks as { check: string }[]).map((c) => c.check)).toEqual([
      "requestedAudience",
      "token",
      "identity",
      "issuer",
      "signature",
    ]);
    expect(res.body.checks[4].reason).toBe("the token's signing key is unknown to its issuer");
  });

  it("needs identity.update on the identity: a stranger gets 403, a missing identity 404", async () => {
    const stranger = restClient(s.t, await s.t.strangerToken());
    const token = await s.issuer.mint(MAIN, s.t.url);
    expect((await explain(ci, { token }, stranger)).status).toBe(403);
    const missing = await explain(`${ci.slice(0, 40)}/0000000000000000`, { token });
    expect({ status: missing.status, code: missing.body.code }).toEqual({ status: 404, code: 5 });
    const noToken = await explain(ci, {});
    expect({ status: noToken.status, field: violatedField(noToken.body) }).toEqual({ status: 400, field: "token" });
  });
});
