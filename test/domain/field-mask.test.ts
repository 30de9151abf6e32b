import { describe, expect, it } from "vitest";
import { Code, isApiError } from "../../src/domain/errors.js";
import { resolveUpdateMask, toSnake } from "../../src/domain/field-mask.js";
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

  it.each([
    ["createTime", "create_time"],
    ["claimMatch.subjectPattern", "claim_match.subject_pattern"],
    ["create_time", "create_time"],
    ["*", "*"],
    ["Description", "Description"],
    ["claim_Match.Issuer", "claim_Match.Issuer"],
  ])("toSnake(%s) is %s: only lowerCamelCase segments change", (path, want) => {
    expect(toSnake(path)).toBe(want);
  });

  it("names a path that is no field as sent", () => {
    try {
      resolveUpdateMask(["Description"], groupUpdatable, []);
      expect.unreachable();
    } catch (e) {
      expect(isApiError(e) && e.message).toBe('Invalid argument: update_mask: unknown field "Description"');
    }
  });
});
