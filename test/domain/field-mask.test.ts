import { describe, expect, it } from "vitest";
import { Code, isApiError } from "../../src/domain/errors.js";
import { resolveUpdateMask } from "../../src/domain/field-mask.js";
import { groupUpdatable } from "../../src/domain/groups.js";

describe("update masks", () => {
  it.each([
    [undefined, ["name"], ["name"]],
    [[], ["name", "description"], ["name", "description"]],
    [["description"], ["name"], ["description"]],
    [["name", "description"], [], ["name", "description"]],
    [["*"], [], ["name", "description"]],
    [[" description "], [], ["description"]],
  ])("mask %j with populated %j changes %j", (paths, populated, want) => {
    expect([...resolveUpdateMask(paths, groupUpdatable, populated)].sort()).toEqual([...want].sort());
  });

  it.each([["uid"], ["createTime"], ["create_time"], ["update_time"], ["verified"], ["resourceLimits"], ["nope"], ["name.first"]])(
    "%s in a mask is INVALID_ARGUMENT naming update_mask",
    (path) => {
      try {
        resolveUpdateMask([path], groupUpdatable, []);
        expect.unreachable();
      } catch (e) {
        expect(isApiError(e) && e.code).toBe(Code.INVALID_ARGUMENT);
        expect(isApiError(e) && e.details.fieldViolations?.[0]?.field).toBe("update_mask");
      }
    },
  );
});
