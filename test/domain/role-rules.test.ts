import { describe, expect, it } from "vitest";
import { ALL_CAPABILITIES, Capability } from "../../src/domain/capabilities.js";
import { Code, isApiError } from "../../src/domain/errors.js";
import { resolveUpdateMask } from "../../src/domain/field-mask.js";
import { customRoleCapabilities, isBuiltinRole, roleCapabilities, roleUpdatable } from "../../src/domain/role-rules.js";
import { BUILTIN_ROLES } from "../../src/domain/roles.js";

const { CAP_IAM_GROUPS_LIST: LIST, CAP_IAM_GROUPS_CREATE: CREATE, CAP_REPO_LIST: REPO_LIST } = Capability;
const custom = "0123456789abcdef0123456789abcdef01234567/0123456789abcdef";

function fieldOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    if (isApiError(e) && e.code === Code.INVALID_ARGUMENT) return e.details.fieldViolations?.[0]?.field;
    throw e;
  }
  return undefined;
}

describe("custom role capabilities", () => {
  it.each([
    ["one", [LIST], ["groups.list"]],
    ["duplicates removed", [LIST, LIST, CREATE, LIST], ["groups.create", "groups.list"]],
    ["catalogue order", [REPO_LIST, CREATE], ["groups.create", "repo.list"]],
  ] as const)("%s", (_name, caps, want) => expect(customRoleCapabilities(caps)).toEqual(want));

  it.each([
    ["none", []],
    ["unspecified", [Capability.CAPABILITY_UNSPECIFIED]],
    ["an unknown number", [LIST, 9999]],
    ["a number between known ones", [202]],
    ["negative", [-1]],
  ] as const)("refuses %s, naming capabilities", (_name, caps) => {
    expect(fieldOf(() => customRoleCapabilities(caps))).toBe("capabilities");
  });
});

describe("what a role grants", () => {
  const viewer = BUILTIN_ROLES.get("viewer")!;

  it("a built-in role: its capabilities from code, whatever is stored", () => {
    expect(roleCapabilities(viewer.uid, ["groups.delete"])).toBe(viewer.capabilities);
    expect(isBuiltinRole(viewer.uid)).toBe(true);
  });

  it("a custom role: its stored names; names the catalogue no longer knows grant nothing", () => {
    expect([...roleCapabilities(custom, ["groups.list", "gone.away", "repo.list"])]).toEqual([LIST, REPO_LIST]);
    expect(roleCapabilities(custom, []).size).toBe(0);
    expect(isBuiltinRole(custom)).toBe(false);
  });

  it("every built-in role grants only catalogue capabilities", () => {
    for (const role of BUILTIN_ROLES.values()) for (const cap of role.capabilities) expect(ALL_CAPABILITIES).toContain(cap);
  });
});

describe("role update masks", () => {
  it.each([
    [["name"], [], ["name"]],
    [["capabilities"], [], ["capabilities"]],
    [["*"], [], ["name", "description", "capabilities"]],
    [undefined, ["description", "capabilities"], ["description", "capabilities"]],
  ] as const)("%j with populated %j changes %j", (paths, populated, want) => {
    expect([...resolveUpdateMask(paths, roleUpdatable, populated)]).toEqual(want);
  });

  it.each([["uid"], ["createTime"], ["update_time"], ["parent"]])("refuses %s in a mask", (path) => {
    expect(fieldOf(() => resolveUpdateMask([path], roleUpdatable, []))).toBe("update_mask");
  });
});
