import { describe, expect, test } from "vitest";
import { Code } from "../../../src/domain/errors.js";
import { decodeJson } from "./request.js";
import { violationOf } from "./violation.js";

const ORG = "0123456789abcdef0123456789abcdef01234567";
const CHILD = "0123456789abcdef";
const LIST = "/iam/v2beta1/groups";

describe("query parameters of ListGroups, in both spellings", () => {
  test.each([
    ["uidp.descendants_of", "uidp.descendantsOf", ORG, { uidp: { descendantsOf: ORG } }],
    ["uidp.children_of", "uidp.childrenOf", ORG, { uidp: { childrenOf: ORG } }],
    ["uidp.ancestors_of", "uidp.ancestorsOf", ORG, { uidp: { ancestorsOf: ORG } }],
    ["uidp.in_root", "uidp.inRoot", "true", { uidp: { inRoot: true } }],
    ["uidp.ids", "uidp.ids", ORG, { uidp: { ids: [ORG] } }],
    ["name", "name", "team a", { name: "team a" }],
    ["page_size", "pageSize", "25", { pageSize: 25 }],
    ["page_token", "pageToken", "abc-_", { pageToken: "abc-_" }],
    ["order_by", "orderBy", "name desc", { orderBy: "name desc" }],
    ["skip", "skip", "10", { skip: 10 }],
  ])("%s / %s", (proto, json, value, expected) => {
    const v = encodeURIComponent(value);
    expect(decodeJson("GET", `${LIST}?${proto}=${v}`)).toEqual(expected);
    expect(decodeJson("GET", `${LIST}?${json}=${v}`)).toEqual(expected);
  });

  test("everything at once, on the v1 list too", () => {
    expect(decodeJson("GET", `${LIST}?uidp.descendants_of=${ORG}&name=a&page_size=5&skip=2&order_by=created_at%20desc`)).toEqual({
      uidp: { descendantsOf: ORG },
      name: "a",
      pageSize: 5,
      orderBy: "created_at desc",
      skip: 2,
    });
    expect(decodeJson("GET", `/iam/v1/groups?id=${ORG}&uidp.children_of=${ORG}&name=a`)).toEqual({
      id: ORG,
      uidp: { childrenOf: ORG },
      name: "a",
    });
  });

  test("uidp.ids repeats, in either spelling, in order", () => {
    expect(decodeJson("GET", `${LIST}?uidp.ids=${ORG}&uidp.ids=${ORG}%2F${CHILD}`)).toEqual({
      uidp: { ids: [ORG, `${ORG}/${CHILD}`] },
    });
  });

  test.each([
    ["name=a+b", { name: "a b" }],
    ["name=a%2Bb", { name: "a+b" }],
    ["order_by=name+desc", { orderBy: "name desc" }],
    ["name=caf%C3%A9", { name: "café" }],
    ["name=", {}],
    // Cache-busters: a name starting with _ is no field, and is ignored.
    ["_=1700000000&name=x", { name: "x" }],
    ["name=x&_cb=1&__t", { name: "x" }],
    ["&&name=x&", { name: "x" }],
    ["page_size=-3", { pageSize: -3 }],
    ["page_size=007", { pageSize: 7 }],
    ["page_size=2147483647", { pageSize: 2147483647 }],
    ["uidp.in_root=1", { uidp: { inRoot: true } }],
    // Setting a nested field creates its message, even with the zero value.
    ["uidp.in_root=false", { uidp: {} }],
    ["uidp.in_root=0", { uidp: {} }],
  ])("%s", (query, expected) => {
    expect(decodeJson("GET", `${LIST}?${query}`)).toEqual(expected);
  });

  test.each([
    // Integers: decimal and in range, nothing else.
    ["page_size=abc", "page_size"],
    ["pageSize=1.5", "pageSize"],
    ["page_size=1e2", "page_size"],
    ["page_size=+5", "page_size"],
    ["page_size=", "page_size"],
    ["page_size=%205", "page_size"],
    ["page_size=0x10", "page_size"],
    ["page_size=2147483648", "page_size"],
    ["skip=-2147483649", "skip"],
    ["skip=99999999999999999999", "skip"],
    // Booleans: true, false, 1, 0.
    ["uidp.in_root=yes", "uidp.in_root"],
    ["uidp.inRoot=TRUE", "uidp.inRoot"],
    ["uidp.in_root", "uidp.in_root"],
    // Unknown names, also near misses, are refused.
    ["foo=1", "foo"],
    ["page-size=1", "page-size"],
    ["PageSize=1", "PageSize"],
    ["uidp.foo=1", "uidp.foo"],
    // Only a name that starts with _ is a cache-buster; a nested or trailing one is a typo.
    ["uidp._x=1", "uidp._x"],
    ["name_=1", "name_"],
    ["uidp.ids.x=1", "uidp.ids.x"],
    ["name.x=1", "name.x"],
    ["uidp.descendants_of.x=1", "uidp.descendants_of.x"],
    // A message is not a value.
    ["uidp=x", "uidp"],
    // Twice, also under its two spellings.
    ["page_size=1&page_size=2", "page_size"],
    ["page_size=1&pageSize=1", "pageSize"],
    ["name=a&name=b", "name"],
    ["uidp.in_root=true&uidp.inRoot=true", "uidp.inRoot"],
    // Malformed escapes name the parameter (or the raw name when the name is malformed).
    ["name=%zz", "name"],
    ["name=%C3%28", "name"],
    ["%zz=1", "%zz"],
    ["=1", "query"],
  ])("%s is INVALID_ARGUMENT naming %s", (query, field) => {
    expect(violationOf(() => decodeJson("GET", `${LIST}?${query}`))).toEqual({ code: Code.INVALID_ARGUMENT, field });
  });
});

describe("query parameters and the fields the path and body bind", () => {
  test.each([
    ["GET", `${LIST}/${ORG}?uid=${ORG}`, "uid"],
    ["DELETE", `${LIST}/${ORG}?uid=x`, "uid"],
    ["POST", `${LIST}/${ORG}?parent=${ORG}`, "parent"],
    ["POST", `${LIST}?group.name=a`, "group.name"],
    ["POST", `${LIST}?group=a`, "group"],
    ["PATCH", `${LIST}/${ORG}?group.description=a`, "group.description"],
    ["PATCH", `${LIST}/${ORG}?group.uid=${ORG}`, "group.uid"],
    ["PUT", "/v1/items/x?parent=p", "parent"],
  ])("%s %s is INVALID_ARGUMENT naming %s", (method, url, field) => {
    const body = method === "GET" || method === "DELETE" ? undefined : "{}";
    expect(violationOf(() => decodeJson(method, url, body))).toEqual({ code: Code.INVALID_ARGUMENT, field });
  });

  test("a field outside the body is still free", () => {
    expect(decodeJson("PATCH", `${LIST}/${ORG}?update_mask=description`, "{}")).toEqual({
      group: { uid: ORG },
      updateMask: "description",
    });
  });
});

describe("query parameter types (fixture)", () => {
  const Q = "/v1/items";
  test.each([
    ["n32=-2147483648", { n32: -2147483648 }],
    ["n64=9223372036854775807", { n64: "9223372036854775807" }],
    ["n64=-9223372036854775808", { n64: "-9223372036854775808" }],
    ["u64=18446744073709551615", { u64: "18446744073709551615" }],
    ["u32=4294967295", { u32: 4294967295 }],
    ["flag=true", { flag: true }],
    ["color=RED", { color: "RED" }],
    ["color=2", { color: "BLUE" }],
    ["colors=RED&colors=2&colors=RED", { colors: ["RED", "BLUE", "RED"] }],
    ["sizes=1&sizes=-2", { sizes: ["1", "-2"] }],
    ["since=2026-03-27T13:55:00.423Z", { since: "2026-03-27T13:55:00.423Z" }],
    ["since=2026-03-27T15:55:00%2B02:00", { since: "2026-03-27T13:55:00Z" }],
    ["ratio=1.5", { ratio: 1.5 }],
    ["ratio=-2e-3", { ratio: -0.002 }],
    ["ratio=NaN", { ratio: "NaN" }],
    ["f32=0.5", { f32: 0.5 }],
    ["wrapped=7", { wrapped: 7 }],
    ["wrapped=0", { wrapped: 0 }],
    ["blob=aGk%3D", { blob: "aGk=" }],
    ["update_mask=name,createTime,%20inner.issuer", { updateMask: "name,createTime,inner.issuer" }],
    ["updateMask=", { updateMask: "" }],
    // A repeated mask is one list, as gateways read it; in either spelling.
    ["update_mask=name&updateMask=createTime,inner.issuer", { updateMask: "name,createTime,inner.issuer" }],
    [
      "inner.issuer=https%3A%2F%2Fi&inner.seenTime=2026-01-01T00:00:00Z",
      { inner: { issuer: "https://i", seenTime: "2026-01-01T00:00:00Z" } },
    ],
    ["item.inner.subject=s&item.tags=a&item.tags=b", { item: { inner: { subject: "s" }, tags: ["a", "b"] } }],
    ["item.picked.issuer=i", { item: { picked: { issuer: "i" } } }],
  ])("%s", (query, expected) => {
    expect(decodeJson("GET", `${Q}?${query}`)).toEqual(expected);
  });

  test.each([
    ["n32=2147483648", "n32"],
    ["n64=9223372036854775808", "n64"],
    ["n64=1.0", "n64"],
    ["u64=-1", "u64"],
    ["u32=4294967296", "u32"],
    ["color=GREEN", "color"],
    ["color=red", "color"],
    ["color=7", "color"],
    ["colors=RED&colors=PINK", "colors"],
    ["since=yesterday", "since"],
    ["since=2026-13-01T00:00:00Z", "since"],
    ["ratio=abc", "ratio"],
    ["ratio=1.5.2", "ratio"],
    ["f32=1e39", "f32"],
    ["wrapped=x", "wrapped"],
    ["blob=%21%21", "blob"],
    ["labels=x", "labels"],
    ["labels.k=x", "labels.k"],
    ["item.inners.issuer=x", "item.inners.issuer"],
    ["item.attrs=x", "item.attrs"],
    ["since.seconds=1", "since.seconds"],
    ["item.label=a&item.picked.issuer=i", "item.picked.issuer"],
  ])("%s is INVALID_ARGUMENT naming %s", (query, field) => {
    expect(violationOf(() => decodeJson("GET", `${Q}?${query}`))).toEqual({ code: Code.INVALID_ARGUMENT, field });
  });
});
