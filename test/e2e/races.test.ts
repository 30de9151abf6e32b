/**
 * Races on every engine (docs/reliability.md): concurrent requests against a real server, where
 * the store's constraints and transactions, not checks that can interleave, decide who wins.
 * Each race is run many times; the store is then checked for orphans with SQL.
 */
import { expect, it } from "vitest";
import { userIdentityUid } from "../../src/domain/identities.js";
import { builtinRoleUid } from "../../src/domain/roles.js";
import { describeEachEngine, engines, type EngineContext } from "../support/engines.js";
import { ORPHAN_QUERIES } from "../support/orphans.js";
import { rawRows } from "../support/raw-sql.js";
import { restClient, type JsonResponse, type RestClient } from "../support/rest.js";
import { startTestServer, type TestServer, storeAt } from "../support/server.js";
import { printFigures } from "../support/figures.js";

const ROUNDS = Number(process.env.RACE_ROUNDS ?? 12);
const CONTENDERS = 6;
const ISSUER = "https://issuer.example";

/** A server on the file's store, an organization in it, and its owner's client. */
async function startOn(t: EngineContext, name: string): Promise<{ server: TestServer; org: string; owner: RestClient }> {
  const engine = engines.find((e) => e.name === t.engine);
  if (engine === undefined) throw new Error(`no engine ${t.engine}`);
  const o = t.options();
  const server = await startTestServer(engine, storeAt(o));
  const { org, token } = await server.organization(name);
  return { server, org: org.uid, owner: restClient(server, token) };
}

function ok(r: JsonResponse): Record<string, any> {
  if (r.status !== 200) throw new Error(`expected 200, got ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body;
}

/** The status and code of each response: what a race may end in. */
const outcomes = (rs: JsonResponse[]) => rs.map((r) => `${r.status}/${r.body.code ?? 0}`);

describeEachEngine("races", (t) => {
  it("lets exactly one of many concurrent creates of one name win; the others are ALREADY_EXISTS", async () => {
    const { server, org, owner } = await startOn(t, "race 1");
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const group = ok(await owner.post(`/iam/v2beta1/groups/${org}`, { name: `parent ${round}` })).uid as string;
        const kinds: [string, (i: number) => unknown][] = [
          ["groups", () => ({ name: "same" })],
          ["identities", (i) => ({ name: "same", claimMatch: { issuer: ISSUER, subject: `s${i}` } })],
          ["roles", () => ({ name: "same", capabilities: ["CAP_IAM_GROUPS_LIST"] })],
        ];
        for (const [kind, body] of kinds) {
          const rs = await Promise.all(Array.from({ length: CONTENDERS }, (_, i) => owner.post(`/iam/v2beta1/${kind}/${group}`, body(i))));
          expect(outcomes(rs).sort(), kind).toEqual(["200/0", ...Array<string>(CONTENDERS - 1).fill("409/6")]);
        }
      }
    } finally {
      await server.close();
    }
  });

  it("keeps every field of concurrent PATCHes with disjoint masks, and one of two PATCHes of one field", async () => {
    const { server, org, owner } = await startOn(t, "race 2");
    try {
      const role = ok(await owner.post(`/iam/v2beta1/roles/${org}`, { name: "other", capabilities: ["CAP_IAM_GROUPS_LIST"] }))
        .uid as string;
      for (let round = 0; round < ROUNDS; round++) {
        const group = ok(await owner.post(`/iam/v2beta1/groups/${org}`, { name: `g${round}`, description: "d0" })).uid as string;
        const [a, b] = await Promise.all([
          owner.patch(`/iam/v2beta1/groups/${group}?updateMask=name`, { name: `renamed ${round}` }),
          owner.patch(`/iam/v2beta1/groups/${group}?updateMask=description`, { description: "d1" }),
        ]);
        expect(outcomes([a as JsonResponse, b as JsonResponse])).toEqual(["200/0", "200/0"]);
        expect(ok(await owner.get(`/iam/v2beta1/groups/${group}`))).toMatchObject({ name: `renamed ${round}`, description: "d1" });

        await Promise.all([
          owner.patch(`/iam/v2beta1/groups/${group}`, { description: "x" }),
          owner.patch(`/iam/v2beta1/groups/${group}`, { description: "y" }),
        ]);
        expect(["x", "y"]).toContain(ok(await owner.get(`/iam/v2beta1/groups/${group}`)).description);

        // Member-level masks merge into the stored relationship: neither member may be lost.
        const identity = ok(
          await owner.post(`/iam/v2beta1/identities/${group}`, { name: "ci", claimMatch: { issuer: ISSUER, subject: "s0" } }),
        ).uid as string;
        await Promise.all([
          owner.patch(`/iam/v2beta1/identities/${identity}?updateMask=claim_match.subject`, {
            claimMatch: { issuer: ISSUER, subject: `s${round}` },
          }),
          owner.patch(`/iam/v2beta1/identities/${identity}?updateMask=claim_match.audience`, {
            claimMatch: { issuer: ISSUER, audience: "arbor-ci" },
          }),
          owner.patch(`/iam/v2beta1/identities/${identity}?updateMask=description`, { description: "described" }),
        ]).then((rs) => expect(outcomes(rs)).toEqual(["200/0", "200/0", "200/0"]));
        expect(ok(await owner.get(`/iam/v2beta1/identities/${identity}`))).toMatchObject({
          description: "described",
          claimMatch: { issuer: ISSUER, subject: `s${round}`, audience: "arbor-ci" },
        });

        // A binding's identity and role, changed at once by two callers, both stick.
        const person = userIdentityUid(ISSUER, `p${round}`);
        const binding = ok(
          await owner.post(`/iam/v2beta1/roleBindings/${group}`, { identityUid: identity, roleUid: builtinRoleUid("viewer") }),
        ).uid as string;
        const rs = await Promise.all([
          owner.patch(`/iam/v2beta1/roleBindings/${binding}?updateMask=identity_uid`, { identityUid: person }),
          owner.patch(`/iam/v2beta1/roleBindings/${binding}?updateMask=role_uid`, { roleUid: role }),
        ]);
        expect(outcomes(rs)).toEqual(["200/0", "200/0"]);
        const final = ok(await owner.get(`/iam/v2beta1/roleBindings/${binding}`));
        expect({ identity: final.identity.uid, role: final.role.uid }).toEqual({ identity: person, role });
      }
    } finally {
      await server.close();
    }
  });

  it("never leaves an orphan when a child is created while its parent is deleted", async () => {
    const { server, org, owner } = await startOn(t, "race 3");
    try {
      const tally: Record<string, number> = {};
      for (let round = 0; round < ROUNDS * 2; round++) {
        const parent = ok(await owner.post(`/iam/v2beta1/groups/${org}`, { name: `doomed ${round}` })).uid as string;
        const children: [string, unknown][] = [
          ["groups", { name: "child" }],
          ["identities", { name: "child", claimMatch: { issuer: ISSUER, subject: "child" } }],
          ["roleBindings", { identityUid: userIdentityUid(ISSUER, "someone"), roleUid: builtinRoleUid("viewer") }],
          ["roles", { name: "child", capabilities: ["CAP_IAM_GROUPS_LIST"] }],
        ];
        const [kind, body] = children[round % children.length] as [string, unknown];
        const [deleted, created] = await Promise.all([
          owner.del(`/iam/v2beta1/groups/${parent}`),
          owner.post(`/iam/v2beta1/${kind}/${parent}`, body),
        ]);
        const outcome = `${kind}: delete ${outcomes([deleted])[0]}, create ${outcomes([created])[0]}`;
        tally[outcome] = (tally[outcome] ?? 0) + 1;
        const blocks = kind === "groups" || kind === "identities";
        if (created.status === 200 && blocks) expect(deleted.body.code, outcome).toBe(9);
        if (deleted.status === 200 && blocks) expect([5, 9], outcome).toContain(created.body.code);
        if (deleted.status !== 200) expect(deleted.body.code, outcome).toBe(9);
        if (created.status !== 200) expect([5, 9], outcome).toContain(created.body.code);
        expect(deleted.status === 200 || created.status === 200, outcome).toBe(true);
      }
      expect(await orphans(t)).toEqual([]);
      printFigures(`parent/child races [${t.engine}]`, tally);
    } finally {
      await server.close();
    }
  });

  it("answers each request under a binding being deleted with success under it or a refusal, never a server error", async () => {
    const { server, org, owner } = await startOn(t, "race 4");
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const group = ok(await owner.post(`/iam/v2beta1/groups/${org}`, { name: `shared ${round}` })).uid as string;
        const person = userIdentityUid(ISSUER, `worker${round}`);
        const binding = ok(
          await owner.post(`/iam/v2beta1/roleBindings/${group}`, { identityUid: person, roleUid: builtinRoleUid("editor") }),
        ).uid as string;
        await server.register(person); // their first login
        const worker = restClient(server, (await server.server.tokens.issue(person, server.url)).token);
        const uses = Array.from({ length: 8 }, (_, i) =>
          i % 2 === 0 ? worker.get(`/iam/v2beta1/groups/${group}`) : worker.post(`/iam/v2beta1/groups/${group}`, { name: `made ${i}` }),
        );
        const [removed, ...answers] = await Promise.all([owner.del(`/iam/v2beta1/roleBindings/${binding}`), ...uses]);
        expect(removed?.status).toBe(200);
        for (const a of answers) expect([200, 403], JSON.stringify(a.body)).toContain(a.status);
        // Once the delete has answered, the binding grants nothing.
        expect((await worker.get(`/iam/v2beta1/groups/${group}`)).status).toBe(403);
      }
      expect(await orphans(t)).toEqual([]);
    } finally {
      await server.close();
    }
  });
});

/** Rows whose parent is gone: what the foreign keys and transactions must never allow. */
async function orphans(t: EngineContext): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for (const q of ORPHAN_QUERIES) out.push(...(await rawRows(t, q)));
  return out;
}
