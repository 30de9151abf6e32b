import { describe, expect, test } from "vitest";
import { Code } from "../../../src/domain/errors.js";
import { parsePathTemplate, splitPath } from "../../../src/server/rest/path-template.js";
import { violationOf } from "./violation.js";

const ORG = "0123456789abcdef0123456789abcdef01234567";
const CHILD = "0123456789abcdef";

function match(template: string, path: string): Record<string, string> | undefined {
  const segments = splitPath(path);
  return segments === undefined ? undefined : parsePathTemplate(template).match(segments);
}

describe("parsePathTemplate", () => {
  test.each([
    ["/iam/v2beta1/groups", "/iam/v2beta1/groups", [], undefined],
    ["/iam/v2beta1/groups/{uid}", "/iam/v2beta1/groups/*", ["uid"], undefined],
    ["/iam/v2beta1/groups/{uid=*}", "/iam/v2beta1/groups/*", ["uid"], undefined],
    ["/iam/v2beta1/groups/{uid=**}", "/iam/v2beta1/groups/**", ["uid"], undefined],
    ["/iam/v2beta1/groups:lookupGroup", "/iam/v2beta1/groups:lookupGroup", [], "lookupGroup"],
    ["/v1/{name=projects/*/items/*}:run", "/v1/projects/*/items/*:run", ["name"], "run"],
    ["/v1/*/x/**", "/v1/*/x/**", [], undefined],
    ["/v1/{a}/{b.c=**}", "/v1/*/**", ["a", "b.c"], undefined],
  ])("%s", (source, shape, variables, verb) => {
    const t = parsePathTemplate(source);
    expect(t.shape).toBe(shape);
    expect(t.variables.map((v) => v.fieldPath)).toEqual(variables);
    expect(t.verb).toBe(verb);
  });

  test.each(["iam/groups", "/", "/a//b", "/a/{uid", "/a/{uid}}", "/a/{x={y}}", "/a/{1x}", "/a/{x}/{x}", "/a/**/b/**", "/a/b:", "/a/b*"])(
    "rejects %s",
    (source) => {
      expect(() => parsePathTemplate(source)).toThrow(/path template/);
    },
  );
});

describe("splitPath", () => {
  test.each([
    ["/a/b", ["a", "b"]],
    ["/a:verb", ["a:verb"]],
    ["/a%2Fb", ["a%2Fb"]],
    ["/a//b", undefined],
    ["/a/b/", undefined],
    ["/", undefined],
    ["a/b", undefined],
  ])("%s", (path, segments) => {
    expect(splitPath(path)).toEqual(segments);
  });
});

describe("match", () => {
  test.each([
    // Literal-only templates match exactly.
    ["/iam/v2beta1/groups", "/iam/v2beta1/groups", {}],
    ["/iam/v2beta1/groups", "/iam/v2beta1/groups/x", undefined],
    ["/iam/v2beta1/groups", "/iam/v2beta1/Groups", undefined],
    // `**` takes one or more segments, never none.
    ["/iam/v2beta1/groups/{uid=**}", `/iam/v2beta1/groups/${ORG}`, { uid: ORG }],
    [
      "/iam/v2beta1/groups/{uid=**}",
      `/iam/v2beta1/groups/${ORG}/${CHILD}/${CHILD}/${CHILD}/${CHILD}/${CHILD}`,
      { uid: `${ORG}/${CHILD}/${CHILD}/${CHILD}/${CHILD}/${CHILD}` },
    ],
    ["/iam/v2beta1/groups/{uid=**}", "/iam/v2beta1/groups", undefined],
    ["/iam/v2beta1/groups/{uid=**}", "/iam/v2beta1/groups/", undefined],
    ["/iam/v2beta1/groups/{uid=**}", `/iam/v2beta1/groups/${ORG}//${CHILD}`, undefined],
    // `*` takes exactly one.
    ["/v1/items/{uid}", "/v1/items/a", { uid: "a" }],
    ["/v1/items/{uid}", "/v1/items/a/b", undefined],
    // Custom verbs.
    ["/iam/v2beta1/groups:lookupGroup", "/iam/v2beta1/groups:lookupGroup", {}],
    ["/iam/v2beta1/groups:lookupGroup", "/iam/v2beta1/groups", undefined],
    ["/iam/v2beta1/groups:lookupGroup", "/iam/v2beta1/groups:other", undefined],
    ["/iam/v2beta1/groups", "/iam/v2beta1/groups:lookupGroup", undefined],
    ["/g/{uid=**}:children", `/g/${ORG}/${CHILD}:children`, { uid: `${ORG}/${CHILD}` }],
    ["/g/{uid=**}:children", "/g/:children", undefined],
    ["/g/{uid=**}:children", `/g/${ORG}`, undefined],
    // A template without a verb keeps a colon as part of the segment.
    ["/g/{uid=**}", "/g/a:b", { uid: "a:b" }],
    // Nested patterns, `**` in the middle, wildcards outside variables.
    ["/v1/{name=projects/*/items/*}/detail", "/v1/projects/p1/items/i1/detail", { name: "projects/p1/items/i1" }],
    ["/v1/{name=projects/*/items/*}/detail", "/v1/projects/p1/other/i1/detail", undefined],
    ["/v1/{name=**}/detail", "/v1/a/b/c/detail", { name: "a/b/c" }],
    ["/v1/{name=**}/detail", "/v1/detail", undefined],
    ["/v1/*/wild/{p}", "/v1/anything/wild/x", { p: "x" }],
    ["/v1/**/end", "/v1/a/b/end", {}],
    ["/v1/{a}/{b=**}", "/v1/x/y/z", { a: "x", b: "y/z" }],
  ])("%s against %s", (template, path, params) => {
    expect(match(template, path)).toEqual(params);
  });

  test.each([
    // Single-segment variables decode fully, %2F included.
    ["/v1/items/{uid}", "/v1/items/a%2Fb", "a/b"],
    ["/v1/items/{uid}", "/v1/items/caf%C3%A9%20x", "café x"],
    ["/v1/items/{uid}", "/v1/items/a+b", "a+b"],
    // Multi-segment variables keep %2F and %2f as written, and decode the rest.
    ["/v1/items/{uid=**}", "/v1/items/abc%2Fdef", "abc%2Fdef"],
    ["/v1/items/{uid=**}", "/v1/items/abc%2fdef/x%20y", "abc%2fdef/x y"],
    ["/v1/{uid=projects/*}", "/v1/projects/a%2Fb", "projects/a%2Fb"],
    // The verb is cut before decoding.
    ["/g/{uid=**}:children", "/g/a%3Ab:children", "a:b"],
  ])("%s decodes %s", (template, path, value) => {
    const params = match(template, path);
    expect(Object.values(params ?? {})).toEqual([value]);
  });

  test.each([
    ["/v1/items/{uid}", "/v1/items/%zz", "uid"],
    ["/v1/items/{uid}", "/v1/items/%", "uid"],
    ["/v1/items/{uid}", "/v1/items/%C3%28", "uid"],
    ["/v1/items/{uid}", "/v1/items/%ED%A0%80", "uid"],
    ["/v1/items/{item.uid=**}", "/v1/items/ok/%E2%82", "item.uid"],
    ["/v1/items/{item.uid=**}", "/v1/items/%E2%2F%82", "item.uid"],
  ])("%s refuses %s", (template, path, field) => {
    expect(violationOf(() => match(template, path))).toEqual({ code: Code.INVALID_ARGUMENT, field });
  });

  test("fits checks the shape without decoding", () => {
    const t = parsePathTemplate("/v1/items/{uid}");
    expect(t.fits(["v1", "items", "%zz"])).toBe(true);
    expect(t.fits(["v1", "items"])).toBe(false);
  });
});
