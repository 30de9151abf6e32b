import { describe, expect, it } from "vitest";
import { canonicalEmail, sameEmailAddress } from "../../src/domain/email-address.js";

describe("the same mailbox", () => {
  it.each([
    ["ivy@example.com", "ivy@example.com"],
    ["Ivy@Example.COM", "ivy@example.com"],
    ["ivy@EXAMPLE.com", "IVY@example.com"],
    // The domain as mail routes it: an IDN and its punycode are one domain.
    ["ivy@bücher.example", "ivy@xn--bcher-kva.example"],
    ["ivy@BÜCHER.example", "ivy@bücher.example"],
    // A non-ASCII local part matches itself exactly.
    ["jörg@example.com", "jörg@example.com"],
  ])("%s is %s", (a, b) => {
    expect(sameEmailAddress(a, b)).toBe(true);
  });

  it.each([
    ["\u212Aate@example.com", "kate@example.com", "the Kelvin sign is not k"],
    ["\u0131vy@example.com", "ivy@example.com", "a dotless i is not i"],
    ["ﬁ@example.com", "fi@example.com", "a ligature is not its letters"],
    ["jörg@example.com", "JÖRG@example.com", "only A to Z fold in a local part"],
    ["ivy@example.com", "ivy@example.org", "another domain"],
    ["ivy", "ivy", "no address at all"],
    ["@example.com", "@example.com", "no local part"],
  ])("%s is not %s (%s)", (a, b) => {
    expect(sameEmailAddress(a, b)).toBe(false);
  });

  it("writes the domain in its IDNA ASCII form", () => {
    expect(canonicalEmail("Ivy@Bücher.Example")).toBe("ivy@xn--bcher-kva.example");
  });
});
