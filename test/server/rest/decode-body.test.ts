import { describe, expect, test } from "vitest";
import { Code } from "../../../src/domain/errors.js";
import { findDuplicateKey } from "../../../src/server/rest/duplicate-keys.js";
import { HttpStatusError } from "../../../src/server/errors-to-wire.js";
import { decodeJson } from "./request.js";
import { violationOf } from "./violation.js";

const ORG = "0123456789abcdef0123456789abcdef01234567";
const CHILD = "0123456789abcdef";
const GROUPS = "/iam/v2beta1/groups";
const T = "2026-03-27T13:55:00.423Z";

/** A JSON object nested `levels` deep: `{"a":{"a":...{}}}`. */
function nested(levels: number): string {
  return '{"a":'.repeat(levels - 1) + "{}" + "}".repeat(levels - 1);
}

describe("bodies of CreateGroup (body: group)", () => {
  test("the body is the group; the parent comes from the path", () => {
    expect(decodeJson("POST", `${GROUPS}/${ORG}`, '{"name":"team","description":"d"}')).toEqual({
      parent: ORG,
      group: { name: "team", description: "d" },
    });
  });

  test("a root create has no parent", () => {
    expect(decodeJson("POST", GROUPS, '{"name":"acme"}')).toEqual({ group: { name: "acme" } });
  });

  test.each([undefined, "", "  \r\n\t"])("a blank body (%j) leaves the group unset", (body) => {
    expect(decodeJson("POST", GROUPS, body)).toEqual({});
  });

  test("proto names are accepted as well as JSON names", () => {
    expect(decodeJson("POST", GROUPS, '{"name":"a","resource_limits":{"repos":1}}')).toEqual({
      group: { name: "a", resourceLimits: { repos: 1 } },
    });
  });

  test("a byte-order mark and multi-byte UTF-8 are fine", () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode('{"description":"café ☕"}')]);
    expect(decodeJson("POST", GROUPS, bytes)).toEqual({ group: { description: "café ☕" } });
  });

  test.each([
    // Not JSON, not UTF-8, not an object: the body as a whole.
    ['{"name":', "body"],
    ['{"name":"a",}', "body"],
    ["{name:'a'}", "body"],
    ['{"name":"a"} x', "body"],
    ["[]", "body"],
    ['"team"', "body"],
    ["null", "body"],
    ["42", "body"],
    [new Uint8Array([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]), "body"],
    [new Uint8Array([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d]), "body"],
    // Too deep, whatever the keys: checked before the fields.
    [nested(33), "body"],
    [`{"name":"a","resourceLimits":${nested(32)}}`, "body"],
    // At 32 levels the depth is fine, and the unknown key is what is wrong.
    [nested(32), "a"],
    // Unknown keys, named relative to the body (the body is the group).
    ['{"foo":1}', "foo"],
    ['{"group":{"name":"a"}}', "group"],
    ['{"Name":"a"}', "Name"],
    ['{"__proto__":{"name":"a"}}', "__proto__"],
    // Wrong value types name the field.
    ['{"name":5}', "name"],
    ['{"name":["a"]}', "name"],
    ['{"name":{}}', "name"],
    ['{"verified":"false"}', "verified"],
    ['{"resourceLimits":[]}', "resourceLimits"],
    ['{"resourceLimits":{"repos":"many"}}', 'resourceLimits["repos"]'],
    ['{"resourceLimits":{"repos":1.5}}', 'resourceLimits["repos"]'],
    ['{"resourceLimits":{"repos":null}}', 'resourceLimits["repos"]'],
    ['{"createTime":"yesterday"}', "createTime"],
    ['{"create_time":5}', "createTime"],
    // One field under both its names.
    ['{"resourceLimits":{},"resource_limits":{}}', "resourceLimits"],
    // One key twice: JSON.parse would keep the last and validate that one; refused, at any depth.
    ['{"name":"BAD NAME","name":"ok"}', "name"],
    ['{"name":"ok","description":"d","name":"ok"}', "name"],
    ['{"n\\u0061me":"BAD NAME","name":"ok"}', "name"],
    ['{"resourceLimits":{"repos":1,"repos":2}}', "resourceLimits.repos"],
    ['{"description":"a,\\"name\\":{","resourceLimits":{"a b":1,"a b":2}}', 'resourceLimits["a b"]'],
  ])("%s is INVALID_ARGUMENT naming %s", (body, field) => {
    expect(violationOf(() => decodeJson("POST", GROUPS, body))).toEqual({ code: Code.INVALID_ARGUMENT, field });
  });
});

describe("bodies of methods without one", () => {
  test.each([
    ["GET", `${GROUPS}/${ORG}`],
    ["DELETE", `${GROUPS}/${ORG}`],
    ["GET", GROUPS],
    ["GET", "/ping/v2beta1/ping"],
  ])("%s %s takes a blank body or an empty JSON object, and refuses any other", (method, url) => {
    expect(() => decodeJson(method, url, " \n")).not.toThrow();
    expect(() => decodeJson(method, url, "{}")).not.toThrow();
    expect(() => decodeJson(method, url, " {\r\n} \n")).not.toThrow();
    for (const body of ['{"uid":"x"}', "[]", "null", "x", "{}{}", "{"]) {
      expect(violationOf(() => decodeJson(method, url, body))).toEqual({ code: Code.INVALID_ARGUMENT, field: "body" });
    }
  });
});

describe("the media type of a body", () => {
  test.each([
    "application/json",
    "application/json; charset=utf-8",
    "Application/JSON;charset=UTF-8",
    ' application/json ; charset="utf-8"',
  ])("%j is JSON", (type) => {
    expect(decodeJson("POST", GROUPS, '{"name":"a"}', type)).toEqual({ group: { name: "a" } });
    expect(() => decodeJson("DELETE", `${GROUPS}/${ORG}`, "{}", type)).not.toThrow();
  });

  test.each([
    ["text/plain;charset=UTF-8", "as text/plain"],
    ["application/x-www-form-urlencoded", "as application/x-www-form-urlencoded"],
    ["application/merge-patch+json", "as application/merge-patch+json"],
    ["application/jsonx", "as application/jsonx"],
    ["", "without a Content-Type"],
    ["application/json, text/plain", "as application/json, text/plain"],
  ])("a body declared %j is refused as 415, code 3, naming content-type", (type, sent) => {
    for (const [method, url, body] of [
      ["POST", GROUPS, '{"name":"a"}'],
      ["DELETE", `${GROUPS}/${ORG}`, "{}"],
    ] as const) {
      let error: unknown;
      try {
        decodeJson(method, url, body, type);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(HttpStatusError);
      expect(error).toMatchObject({
        httpStatus: 415,
        code: Code.INVALID_ARGUMENT,
        message: `Invalid argument: content-type: a request body must be sent as application/json, not ${sent}`,
      });
    }
  });

  test("a charset other than UTF-8 is refused as 415", () => {
    expect(() => decodeJson("POST", GROUPS, '{"name":"a"}', "application/json; charset=latin1")).toThrow(
      expect.objectContaining({
        httpStatus: 415,
        message: "Invalid argument: content-type: a JSON body is UTF-8; charset latin1 is not accepted",
      }),
    );
  });

  test.each(["", "text/plain", "application/x-www-form-urlencoded"])("a blank body needs no media type (%j)", (type) => {
    expect(decodeJson("POST", GROUPS, "", type)).toEqual({});
    expect(() => decodeJson("DELETE", `${GROUPS}/${ORG}`, undefined, type)).not.toThrow();
  });
});

describe("UpdateGroup: path over body, and the implied update mask", () => {
  const url = `${GROUPS}/${ORG}/${CHILD}`;

  test("the path's uid wins over the body's", () => {
    expect(decodeJson("PATCH", url, `{"uid":"${ORG}","name":"n"}`)).toMatchObject({
      group: { uid: `${ORG}/${CHILD}`, name: "n" },
    });
  });

  test.each([
    ['{"name":"n"}', "name"],
    ['{"description":"d","name":"n"}', "description,name"],
    ['{"description":""}', "description"],
    ['{"description":null}', "description"],
    // Fields the server sets (OUTPUT_ONLY, IDENTIFIER) are ignored in input (AIP-203), so a
    // client can PATCH back the group it read.
    ['{"resource_limits":{"repos":1}}', ""],
    ['{"resourceLimits":{}}', ""],
    ['{"uid":"x"}', ""],
    ['{"name":"n","createTime":"2026-01-01T00:00:00Z","verified":true}', "name"],
    ["{}", ""],
  ])("without a mask, %s changes %j", (body, mask) => {
    expect(decodeJson("PATCH", url, body)).toMatchObject({ updateMask: mask });
  });

  test.each([
    ["updateMask=description", "description"],
    ["update_mask=description", "description"],
    ["updateMask=createTime,name", "createTime,name"],
    ["update_mask=create_time", "createTime"],
    ["updateMask=*", "*"],
  ])("a mask in the query (%s) is kept as given", (query, mask) => {
    expect(decodeJson("PATCH", `${url}?${query}`, '{"name":"n","description":"d"}')).toMatchObject({ updateMask: mask });
  });

  test("an empty mask in the query is no mask", () => {
    expect(decodeJson("PATCH", `${url}?updateMask=`, '{"name":"n"}')).toMatchObject({ updateMask: "name" });
  });

  test("no body, no implied mask", () => {
    expect(decodeJson("PATCH", url)).toEqual({ group: { uid: `${ORG}/${CHILD}` } });
  });

  test.each([
    ['{"name":5}', "name"],
    ['{"group":{}}', "group"],
    ['{"updateMask":"name"}', "updateMask"],
  ])("%s is INVALID_ARGUMENT naming %s", (body, field) => {
    expect(violationOf(() => decodeJson("PATCH", url, body))).toEqual({ code: Code.INVALID_ARGUMENT, field });
  });
});

describe("nested bodies (fixture, PATCH /v1/items/{item.uid=**} with body: item)", () => {
  const url = "/v1/items/a/b";

  test("the implied mask descends into messages, not into maps, lists or well-known types", () => {
    const body = JSON.stringify({
      inner: { issuer: "i", seen_time: T },
      limits: { a: 1 },
      attrs: { k: [1, { x: null }] },
      createTime: T,
      tags: ["a"],
      note: null,
      picked: {},
      child: { child: { name: "deep" } },
      time_map: { k: T },
    });
    expect(decodeJson("PATCH", url, body)).toMatchObject({
      item: { uid: "a/b", inner: { issuer: "i", seenTime: T }, picked: {}, child: { child: { name: "deep" } } },
      updateMask: "inner.issuer,inner.seenTime,limits,attrs,createTime,tags,note,picked,child.child.name,timeMap",
    });
  });

  test.each([
    ['{"inner":{"foo":1}}', "inner.foo"],
    ['{"inner":{"issuer":5}}', "inner.issuer"],
    ['{"inner":{"seenTime":"now"}}', "inner.seenTime"],
    ['{"inner":[]}', "inner"],
    ['{"tags":"x"}', "tags"],
    ['{"tags":["a",5]}', "tags[1]"],
    ['{"tags":[null]}', "tags[0]"],
    ['{"inners":[{"issuer":"a"},{"bogus":1}]}', "inners[1].bogus"],
    ['{"inners":[{},null]}', "inners[1]"],
    ['{"times":["2026-01-01T00:00:00Z","soon"]}', "times[1]"],
    ['{"limits":{"a":"x"}}', 'limits["a"]'],
    ['{"timeMap":{"a":"x"}}', 'timeMap["a"]'],
    ['{"byNumber":{"x":"s"}}', 'byNumber["x"]'],
    ['{"byNumber":{"1":2}}', 'byNumber["1"]'],
    ['{"size":"12x"}', "size"],
    ['{"size":"9223372036854775808"}', "size"],
    ['{"size":1.5}', "size"],
    ['{"size":true}', "size"],
    ['{"enabled":"yes"}', "enabled"],
    ['{"color":"GREEN"}', "color"],
    ['{"color":1.5}', "color"],
    ['{"label":"a","picked":{}}', "picked"],
    ['{"createTime":"2026-01-01T00:00:00Z","create_time":"2026-01-01T00:00:00Z"}', "createTime"],
    ['{"child":{"child":{"name":5}}}', "child.child.name"],
    ['{"attrs":[]}', "attrs"],
  ])("%s is INVALID_ARGUMENT naming %s", (body, field) => {
    expect(violationOf(() => decodeJson("PATCH", url, body))).toEqual({ code: Code.INVALID_ARGUMENT, field });
  });

  test("values in the forms protobuf JSON allows are taken", () => {
    const body = '{"size":"12","color":2,"label":null,"picked":{"issuer":"i"},"byNumber":{"7":"x"},"note":""}';
    expect(decodeJson("PATCH", url, body)).toMatchObject({
      item: { size: "12", color: "BLUE", picked: { issuer: "i" }, byNumber: { 7: "x" }, note: "" },
    });
  });
});

describe("duplicate keys in nested bodies (fixture)", () => {
  test("name the key by its path through objects and arrays", () => {
    const body = '{"labels":[{"k":1},{"k":1,"k":2}]}';
    expect(violationOf(() => decodeJson("PATCH", "/v1/items/abc", body))).toEqual({ code: Code.INVALID_ARGUMENT, field: "labels[1].k" });
  });

  test.each(['{"name":"a","inner":{"name":"a"}}', '[{"k":1},{"k":1}]', '{"a":"\\"a\\":","b":["a","a"],"c":{"a":{"a":1}}}'])(
    "equal keys in different objects are fine: %s",
    (text) => {
      expect(findDuplicateKey(text)).toBeUndefined();
    },
  );
});

describe('body: "*" (fixture)', () => {
  test("the whole request comes from the body, and the path overrides it", () => {
    expect(decodeJson("PUT", "/v1/items/p", '{"item":{"uid":"x","name":"n"},"n32":3}')).toEqual({
      item: { uid: "p", name: "n" },
      n32: 3,
    });
  });

  test("no update mask is implied", () => {
    expect(decodeJson("POST", "/iam/v2beta1/groups:lookupGroup", '{"item":{"name":"n"}}')).toEqual({ item: { name: "n" } });
  });

  test.each([
    ['{"bogus":1}', "bogus"],
    ['{"item":{"bogus":1}}', "item.bogus"],
    ['{"n32":2147483648}', "n32"],
    ['{"u64":-1}', "u64"],
    ['{"updateMask":"a_b"}', "updateMask"],
    ['{"wrapped":"x"}', "wrapped"],
    ['{"since":{}}', "since"],
  ])("%s is INVALID_ARGUMENT naming %s", (body, field) => {
    expect(violationOf(() => decodeJson("POST", "/iam/v2beta1/groups:lookupGroup", body))).toEqual({
      code: Code.INVALID_ARGUMENT,
      field,
    });
  });
});

describe("path variables of other types (fixture, GET /v1/sized/{n32})", () => {
  test("are parsed like query parameters", () => {
    expect(decodeJson("GET", "/v1/sized/-12")).toEqual({ n32: -12 });
  });

  test.each(["abc", "1.5", "2147483648", "%2B1"])("%s is INVALID_ARGUMENT naming n32", (text) => {
    expect(violationOf(() => decodeJson("GET", `/v1/sized/${text}`))).toEqual({ code: Code.INVALID_ARGUMENT, field: "n32" });
  });
});

describe("error messages", () => {
  test.each([
    ["POST", GROUPS, '{"name":5}'],
    ["POST", GROUPS, '{"createTime":"x"}'],
    ["POST", GROUPS, '{"resourceLimits":{"a":"b"}}'],
    ["POST", GROUPS, '{"name":'],
    ["PATCH", "/v1/items/a", '{"color":"GREEN"}'],
    ["PATCH", "/v1/items/a", '{"attrs":[]}'],
    ["PATCH", "/v1/items/a", '{"label":"a","picked":{}}'],
    ["POST", "/iam/v2beta1/groups:lookupGroup", '{"updateMask":"a_b"}'],
    ["POST", "/iam/v2beta1/groups:lookupGroup", '{"since":{}}'],
  ])("%s %s %s: the house form, naming no internal type", (method, url, body) => {
    let message = "";
    try {
      decodeJson(method, url, body);
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/^Invalid argument: [^:]+: \S/);
    expect(message).not.toMatch(/cannot decode|arbor\.|test\.rest|google\.|Error/);
  });
});
