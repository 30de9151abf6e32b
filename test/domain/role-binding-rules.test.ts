import { describe, expect, it } from "vitest";
import { Code, isApiError } from "../../src/domain/errors.js";
import { resolveUpdateMask } from "../../src/domain/field-mask.js";
import { parseOrderBy } from "../../src/domain/list.js";
import { bindingSortable, bindingUpdatable, checkIdentityPlacement } from "../../src/domain/role-binding-rules.js";
import { checkRoleUsableIn } from "../../src/domain/role-placement.js";
import { BUILTIN_ROLES } from "../../src/domain/roles.js";

const org = "0123456789abcdef0123456789abcdef01234567";
const other = "fedcba9876543210fedcba9876543210fedcba98";
const team = `${org}/0000000000000001`;
const sub = `${team}/0000000000000002`;
const sibling = `${org}/0000000000000003`;
const person = "1111111111111111111111111111111111111111";

function fieldOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    if (isApiError(e) && e.code === Code.INVALID_ARGUMENT) return e.details.fieldViolations?.[0]?.field;
    throw e;
  }
  return undefined;
}

describe("where an identity may be bound", () => {
  it.each([
    ["a person, in any organization", team, person, undefined],
    ["a person, at another organization's root", other, person, undefined],
    ["an identity of the organization, at its root", org, `${team}/00000000000000aa`, undefined],
    ["an identity of the organization, in a sibling group", sibling, `${team}/00000000000000aa`, undefined],
    ["an identity of another organization", team, `${other}/00000000000000aa`, "identityUid"],
    ["an identity of another organization, at its root", org, `${other}/00000000000000aa`, "identityUid"],
  ] as const)("%s", (_name, group, identity, want) => expect(fieldOf(() => checkIdentityPlacement(group, identity))).toBe(want));
});

describe("where a role may be bound", () => {
  const viewer = BUILTIN_ROLES.get("viewer")!.uid;
  it.each([
    ["a built-in role, anywhere", sub, viewer, undefined],
    ["a custom role, in its group", team, `${team}/00000000000000bb`, undefined],
    ["a custom role, below its group", sub, `${team}/00000000000000bb`, undefined],
    ["a custom role, above its group", org, `${team}/00000000000000bb`, "roleUid"],
    ["a custom role, in a sibling group", sibling, `${team}/00000000000000bb`, "roleUid"],
    ["a custom role, in another organization", other, `${team}/00000000000000bb`, "roleUid"],
  ] as const)("%s", (_name, group, role, want) => expect(fieldOf(() => checkRoleUsableIn(group, role, "roleUid"))).toBe(want));
});

describe("role binding lists and updates", () => {
  it("sort by create_time by default, uid last", () => {
    expect(parseOrderBy("", bindingSortable)).toEqual([
      { field: "create_time", desc: false },
      { field: "uid", desc: false },
    ]);
    expect(parseOrderBy("created_at desc", bindingSortable)).toEqual([
      { field: "create_time", desc: true },
      { field: "uid", desc: true },
    ]);
  });

  it.each([["name"], ["update_time"], ["role"]])("cannot sort by %s", (field) => {
    expect(fieldOf(() => parseOrderBy(field, bindingSortable))).toBe("order_by");
  });

  it.each([
    [["identityUid"], ["identity_uid"]],
    [["role_uid"], ["role_uid"]],
    [["*"], ["identity_uid", "role_uid"]],
  ] as const)("mask %j changes %j", (paths, want) => expect([...resolveUpdateMask(paths, bindingUpdatable, [])]).toEqual(want));

  it.each([["uid"], ["createTime"], ["identity"], ["group"], ["role"], ["group_uid"]])("refuses %s in a mask", (path) => {
    expect(fieldOf(() => resolveUpdateMask([path], bindingUpdatable, []))).toBe("update_mask");
  });
});
