import { describe, expect, it } from "vitest";
import { Capability } from "../../src/domain/capabilities.js";
import { BUILTIN_ROLES } from "../../src/domain/roles.js";
import { Authorizer } from "../../src/services/authorizer.js";
import type { Grant } from "../../src/store/types.js";

const org = "0123456789abcdef0123456789abcdef01234567";
const team = `${org}/0000000000000001`;
const other = `${org}/0000000000000002`;
const person = "1111111111111111111111111111111111111111";
const workload = `${org}/00000000000000aa`;
const customRole = `${team}/00000000000000bb`;
const viewer = BUILTIN_ROLES.get("viewer")!.uid;
const { CAP_IAM_GROUPS_LIST: LIST, CAP_IAM_GROUPS_CREATE: CREATE, CAP_REPO_LIST: REPO_LIST, CAP_IAM_ROLES_LIST: ROLES_LIST } = Capability;

/** An authorizer over fixed grants, counting the store queries it makes. */
function authorizerOver(grants: Grant[], allowOrgCreation = true) {
  const calls: string[] = [];
  const store = {
    grantsOf(uid: string) {
      calls.push(uid);
      return Promise.resolve(grants);
    },
  };
  return { authorizer: new Authorizer(store, { allowOrgCreation }), calls };
}

describe("authorizer", () => {
  it("grants built-in roles' capabilities from code, ignoring anything stored with them", async () => {
    const { authorizer, calls } = authorizerOver([{ groupUid: team, roleUid: viewer, capabilities: ["groups.create"] }]);
    const perms = await authorizer.permissionsOf(person);
    expect(calls).toEqual([person]);
    expect(perms.allows([LIST, ROLES_LIST], `${team}/0000000000000009`)).toBe(true);
    expect(perms.allows([CREATE], team)).toBe(false);
    expect(perms.allows([LIST], other)).toBe(false);
  });

  it("grants custom roles exactly their stored capabilities, at their group and below", async () => {
    const { authorizer } = authorizerOver([{ groupUid: team, roleUid: customRole, capabilities: ["repo.list", "no.such.capability"] }]);
    const perms = await authorizer.permissionsOf(workload);
    expect.soft(perms.allows([REPO_LIST], team)).toBe(true);
    expect.soft(perms.allows([REPO_LIST], `${team}/0000000000000009`)).toBe(true);
    expect.soft(perms.allows([REPO_LIST], org)).toBe(false);
    expect.soft(perms.allows([LIST], team)).toBe(false);
    expect.soft(perms.scopes([REPO_LIST])).toEqual([team]);
  });

  it.each([
    ["a person, creation allowed", person, true, true],
    ["a person, creation not allowed", person, false, false],
    ["a workload identity", workload, true, false],
  ] as const)("creating organizations: %s", async (_name, uid, allow, want) => {
    const { authorizer } = authorizerOver([], allow);
    expect((await authorizer.permissionsOf(uid)).allows([CREATE], "")).toBe(want);
  });
});
