import { describe, expect, it } from "vitest";
import { Capability } from "../../src/domain/capabilities.js";
import { Permissions } from "../../src/domain/permissions.js";
import { BUILTIN_ROLES, builtinRoleUid } from "../../src/domain/roles.js";

const org = "0123456789abcdef0123456789abcdef01234567";
const team = `${org}/0123456789abcdef`;
const sub = `${team}/1111111111111111`;
const other = "fedcba9876543210fedcba9876543210fedcba98";
const viewer = BUILTIN_ROLES.get("viewer")!;
const owner = BUILTIN_ROLES.get("owner")!;
const { CAP_IAM_GROUPS_LIST: LIST, CAP_IAM_GROUPS_CREATE: CREATE } = Capability;

describe("permissions", () => {
  const perms = new Permissions([
    { groupUid: team, capabilities: owner.capabilities },
    { groupUid: other, capabilities: viewer.capabilities },
  ]);

  it.each([
    [[LIST], team, true],
    [[LIST], sub, true],
    [[LIST], org, false],
    [[CREATE], sub, true],
    [[LIST], other, true],
    [[CREATE], other, false],
    [[LIST, CREATE], other, false],
    [[LIST], `${other}/0123456789abcdef`, true],
    [[CREATE], "", false],
  ] as const)("%j at %s: %s", (caps, scope, want) => expect(perms.allows(caps, scope)).toBe(want));

  it("lists the top-most scopes holding every capability", () => {
    const nested = new Permissions([
      { groupUid: sub, capabilities: viewer.capabilities },
      { groupUid: team, capabilities: viewer.capabilities },
      { groupUid: other, capabilities: owner.capabilities },
    ]);
    expect(nested.scopes([LIST])).toEqual([team, other].sort());
    expect(nested.scopes([CREATE])).toEqual([other]);
  });

  it("grants at the root only what it is given there", () => {
    expect(new Permissions([], new Set([CREATE])).allows([CREATE], "")).toBe(true);
    expect(new Permissions([], new Set([CREATE])).allows([LIST], "")).toBe(false);
  });
});

describe("built-in roles", () => {
  it("have stable uids and the spec's viewer description", () => {
    expect(viewer.uid).toBe(builtinRoleUid("viewer"));
    expect(viewer.uid).toMatch(/^[0-9a-f]{40}$/);
    expect(viewer.description).toBe("Viewer Role (built-in)");
    expect(new Set([...BUILTIN_ROLES.values()].map((r) => r.uid)).size).toBe(BUILTIN_ROLES.size);
  });

  it("viewer only reads", () => {
    expect(viewer.capabilities.has(LIST)).toBe(true);
    expect(viewer.capabilities.has(CREATE)).toBe(false);
  });
});
