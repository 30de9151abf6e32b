import { describe, expect, it } from "vitest";
import { pathPrefixesOf, stripPathPrefix } from "../../src/server/http/path-prefix.js";

describe("the path of the base URL or issuer, taken off a request", () => {
  const prefixes = pathPrefixesOf(["https://example.com/arbor", "https://example.com/arbor/auth/"]);

  it("knows each configured path once, longest first, and none for a URL at the host's root", () => {
    expect(prefixes).toEqual(["/arbor/auth", "/arbor"]);
    expect(pathPrefixesOf(["http://localhost:8080", "http://localhost:8080/"])).toEqual([]);
    expect(pathPrefixesOf(["https://a.example/x/", "https://b.example/x"])).toEqual(["/x"]);
  });

  it("takes the longest matching prefix off, query kept", () => {
    expect(stripPathPrefix("/arbor/iam/v2beta1/groups?page_size=5", prefixes)).toBe("/iam/v2beta1/groups?page_size=5");
    expect(stripPathPrefix("/arbor/auth/oauth/token", prefixes)).toBe("/oauth/token");
    expect(stripPathPrefix("/arbor/auth", prefixes)).toBe("/");
    expect(stripPathPrefix("/arbor", prefixes)).toBe("/");
    expect(stripPathPrefix("/arbor/", prefixes)).toBe("/");
    expect(stripPathPrefix("/arbor?x=1", prefixes)).toBe("/?x=1");
  });

  it("matches whole segments only, and leaves a path without the prefix as it is", () => {
    expect(stripPathPrefix("/arborx/healthz", prefixes)).toBe("/arborx/healthz");
    expect(stripPathPrefix("/arbor/authx/y", prefixes)).toBe("/authx/y");
    expect(stripPathPrefix("/iam/v2beta1/groups", prefixes)).toBe("/iam/v2beta1/groups");
    expect(stripPathPrefix("/healthz", [])).toBe("/healthz");
  });

  it("takes a prefix off once: a path that repeats it keeps the rest", () => {
    expect(stripPathPrefix("/arbor/arbor/healthz", prefixes)).toBe("/arbor/healthz");
  });
});
