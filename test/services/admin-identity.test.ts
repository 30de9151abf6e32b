/**
 * The local administrator of an organization has an identity row wherever its owner binding is
 * made: when the organization is created for it, and when `arbor admin token` ensures the binding
 * on an organization made before rows existed.
 */
import { expect, it } from "vitest";
import { adminIdentityUid, userIdentityUid } from "../../src/domain/identities.js";
import { OWNER_ROLE } from "../../src/domain/roles.js";
import type { ServiceDeps } from "../../src/services/deps.js";
import { createOrganization, ensureOwner } from "../../src/services/iam/groups-store-ops.js";
import { describeEachEngine } from "../support/engines.js";
import { rootUid } from "../support/groups.js";

describeEachEngine("the local administrator's identity", (t) => {
  let n = 0;
  const deps = (): ServiceDeps =>
    ({
      store: t.store(),
      clock: { now: () => 1_700_000_000_000 },
      ids: { hex: (bytes: number) => (++n).toString(16).padStart(bytes * 2, "0") },
      settings: { allowHttpLoopbackIssuers: false },
    }) as unknown as ServiceDeps;

  it("is created with an organization owned by its administrator", async () => {
    const org = await createOrganization(deps(), { name: "acme", description: "" }, adminIdentityUid);
    expect(await t.store().identities.get(adminIdentityUid(org.uid))).toEqual({
      uid: adminIdentityUid(org.uid),
      parentUid: null,
      name: "admin",
      description: "local administrator of acme",
      relationship: { kind: "user", issuer: "arbor:admin", subject: org.uid },
      lastSeenTime: null,
      createTime: 1_700_000_000_000,
      updateTime: 1_700_000_000_000,
    });
  });

  it("is not created for an organization owned by a person", async () => {
    const org = await createOrganization(deps(), { name: "people", description: "" }, () => userIdentityUid("https://i", "p"));
    expect(await t.store().identities.get(adminIdentityUid(org.uid))).toBeUndefined();
  });

  it("is added, once, when its owner binding is ensured", async () => {
    const store = t.store();
    const org = rootUid(0xabc);
    await store.groups.insert({ uid: org, parentUid: null, name: "older", description: "", createTime: 1, updateTime: 1 });
    const admin = adminIdentityUid(org);
    await ensureOwner(deps(), org, admin);
    await ensureOwner(deps(), org, admin);
    expect(await store.identities.get(admin)).toMatchObject({ name: "admin", description: "local administrator of older" });
    expect((await store.bindings.forIdentity(admin)).map((b) => [b.groupUid, b.roleUid])).toEqual([[org, OWNER_ROLE.uid]]);
    await ensureOwner(deps(), org, userIdentityUid("https://i", "q"));
    expect(await store.identities.get(userIdentityUid("https://i", "q"))).toBeUndefined();
  });
});
