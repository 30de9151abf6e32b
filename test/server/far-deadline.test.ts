import { describe, expect, it } from "vitest";
import { dropFarDeadline } from "../../src/server/connect/far-deadline.js";

describe("far deadlines", () => {
  it.each([
    ["grpc-timeout", "99999999H", false],
    ["grpc-timeout", "597H", false],
    ["grpc-timeout", "596H", true],
    ["grpc-timeout", "35791M", true],
    ["grpc-timeout", "35792M", false],
    ["grpc-timeout", "2147483S", true],
    ["grpc-timeout", "2147484S", false],
    ["grpc-timeout", "99999999n", true],
    ["grpc-timeout", "1S", true],
    ["grpc-timeout", "bogus", true],
    ["grpc-timeout", "123456789S", true],
    ["connect-timeout-ms", "2147483647", true],
    ["connect-timeout-ms", "2147483648", false],
    ["connect-timeout-ms", "9999999999", false],
    ["connect-timeout-ms", "-5", true],
  ])("%s: %s is kept: %s", (name, value, kept) => {
    const headers: Record<string, string> = { [name]: value, "content-type": "application/grpc" };
    dropFarDeadline(headers);
    expect(headers[name]).toBe(kept ? value : undefined);
    expect(headers["content-type"]).toBe("application/grpc");
  });
});
