import { describe, expect, it } from "vitest";
import { fixedRouteTable, readOnly, type FixedHandler } from "../../src/server/http/fixed-routes.js";

const handler: FixedHandler = async () => {};

describe("the table of fixed endpoints", () => {
  it("joins the families' paths and keeps each path's methods", () => {
    const table = fixedRouteTable(new Map([["/healthz", readOnly(handler)]]), new Map([["/oauth/token", { POST: handler }]]));
    expect([...table.keys()]).toEqual(["/healthz", "/oauth/token"]);
    expect(Object.keys(table.get("/healthz") ?? {})).toEqual(["GET", "HEAD"]);
  });

  it("refuses a path two families claim, so a wiring mistake shows at start and not as a shadowed endpoint", () => {
    expect(() => fixedRouteTable(new Map([["/x", { GET: handler }]]), new Map([["/x", { POST: handler }]]))).toThrow(
      "two endpoints claim /x",
    );
  });
});
