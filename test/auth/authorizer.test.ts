import { describe, expect, it } from "vitest";
import { Capability } from "../../src/domain/capabilities.js";
import { BUILTIN_ROLES } from "../../src/domain/roles.js";
import { Authorizer } from "../../src/auth/authorizer.js";
import type { Grant } from "../../src/domain/role-bindings.js";

const org = "0123456789abcdef0123456789abcdef01234567";
const team = `${org}/0000000000000001`;
const other = `${org}/0000000000000002`;
const person = "1111111111111111111111111111111111111111";
const workload = `${org}/00000000000000aa`;
const customRole = `${team}/00000000000000bb`;
const viewer = BUILTIN_ROLES.get("viewer")!.uid;
const { CAP_IAM_GROUPS_LIST: LIST, CAP_IAM_GROUPS_CREATE: CREATE, CAP_REPO_LIST: REPO_LIST, CAP_IAM_ROLES_LIST: ROLES_LIST } = Capability;

/**
 * An authorizer over fixed grants, counting the store queries it makes; generation.value is the
 * store's global generation, generation.own each identity's, existing the identities' rows.
 */
function authorizerOver(grants: Grant[], allowOrgCreation = true, cacheSize?: number) {
  const calls: string[] = [];
  const existing = new Set([person, workload]);
  const rowReads: string[] = [];
  const identities = {
    get(uid: string) {
      rowReads.push(uid);
      return Promise.resolve(existing.has(uid) ? ({ uid } as never) : undefined);
    },
  };
  const generation = { value: 7, own: new Map<string, number>(), reads: 0 };
  const store = {
    grantsOf(uid: string) {
      calls.push(uid);
      return Promise.resolve(grants);
    },
    authzGeneration(uid: string) {
      generation.reads++;
      return Promise.resolve(`${generation.value}.${generation.own.get(uid) ?? 0}`);
    },
  };
  const authorizer = new Authorizer(store, identities, { allowOrgCreation, ...(cacheSize !== undefined && { cacheSize }) });
  return { authorizer, calls, generation, existing, rowReads };
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

  it("remembers a caller's permissions while the generation holds, and reads them again once it moves", async () => {
    const { authorizer, calls, generation } = authorizerOver([{ groupUid: team, roleUid: viewer, capabilities: [] }]);
    const first = await authorizer.permissionsOf(person);
    expect(await authorizer.permissionsOf(person)).toBe(first);
    expect(calls).toEqual([person]);
    expect(generation.reads).toBe(2);
    generation.value++;
    const second = await authorizer.permissionsOf(person);
    expect(second).not.toBe(first);
    expect(calls).toEqual([person, person]);
    expect(await authorizer.permissionsOf(person)).toBe(second);
    expect(calls).toHaveLength(2);
  });

  it("reads a caller's permissions again when its own generation moves, and only that caller's", async () => {
    const { authorizer, calls, generation } = authorizerOver([{ groupUid: team, roleUid: viewer, capabilities: [] }]);
    const mine = await authorizer.permissionsOf(person);
    const theirs = await authorizer.permissionsOf(workload);
    generation.own.set(workload, 1);
    expect(await authorizer.permissionsOf(person)).toBe(mine);
    expect(await authorizer.permissionsOf(workload)).not.toBe(theirs);
    expect(calls).toEqual([person, workload, workload]);
  });

  it("keeps each caller apart, and forgets the least recently used past its size", async () => {
    const { authorizer, calls } = authorizerOver([], true, 2);
    for (const uid of [person, workload, person, team]) await authorizer.permissionsOf(uid);
    expect(calls).toEqual([person, workload, team]);
    await authorizer.permissionsOf(person);
    await authorizer.permissionsOf(workload);
    expect(calls).toEqual([person, workload, team, workload]);
  });

  it("gives a caller's permissions only while their identity exists, reading its row once per generation", async () => {
    const { authorizer, generation, existing, rowReads } = authorizerOver([{ groupUid: team, roleUid: viewer, capabilities: [] }]);
    expect(await authorizer.callerPermissions(person)).toBeDefined();
    expect(await authorizer.callerPermissions(person)).toBeDefined();
    expect(rowReads).toEqual([person]);
    // A delete moves the generation (migration 0012): the next call reads the row again.
    existing.delete(person);
    generation.value++;
    expect(await authorizer.callerPermissions(person)).toBeUndefined();
    // Absence is not remembered: registered again, the identity works at the same generation.
    existing.add(person);
    expect(await authorizer.callerPermissions(person)).toBeDefined();
    expect(await authorizer.callerPermissions("f".repeat(40))).toBeUndefined();
    expect(rowReads).toEqual([person, person, person, "f".repeat(40)]);
  });
});
