/**
 * The log scanner every test server's log passes through: it must catch each kind of credential
 * (or the suite-wide check would pass vacuously), and let ordinary lines through.
 */
import { describe, expect, it } from "vitest";
import { assertNoSecrets } from "../support/secret-scan.js";

describe("log secret scan", () => {
  it.each([
    ["a JWT", { msg: "x", token: "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhYmMifQ.MEUCIQDx3k9aZ1r2s3t4u5v6w7x8y9z0" }],
    ["an invite code", "redeeming arbinv_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefg"],
    ["a login code", { code: "arbcode_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefg" }],
    ["a refresh token", "arbrt_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefg"],
    ["a bearer credential", { headers: { authorization: "Bearer abcdefghijklmnopqrstuvwxyz" } }],
    ["a basic credential", "Basic X3Rva2VuOnNlY3JldHNlY3JldA=="],
  ])("catches %s", (kind, line) => {
    expect(() => assertNoSecrets([line], "a log")).toThrow(`a log logged ${kind}`);
  });

  it("lets ordinary lines through", () => {
    expect(() =>
      assertNoSecrets(
        [
          {
            msg: "request",
            rpc: "arbor.iam.v2beta1.GroupsService/GetGroup",
            caller: "0123456789abcdef0123456789abcdef01234567/0123456789abcdef",
            code: 0,
          },
        ],
        "a log",
      ),
    ).not.toThrow();
  });
});
