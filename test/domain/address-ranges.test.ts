import { describe, expect, it } from "vitest";
import { normalizeAddress, parseAddressRanges } from "../../src/domain/address-ranges.js";

describe("address ranges (ARBOR_TRUSTED_PROXIES)", () => {
  it.each([
    ["192.0.2.7", "192.0.2.7"],
    [" 10.0.0.0/8 ", "10.0.0.0/8"],
    ["10.0.0.1/32", "10.0.0.1"],
    ["0.0.0.0/0", "0.0.0.0/0"],
    ["2001:DB8::/32", "2001:db8::/32"],
    ["fd00::1", "fd00::1"],
    ["::1/128", "::1"],
    ["::ffff:192.0.2.7", "192.0.2.7"],
    ["::FFFF:10.0.0.0/104", "10.0.0.0/8"],
    ["::ffff:10.1.2.3/128", "10.1.2.3"],
  ])("reads %s as %s", (entry, normalized) => {
    expect(parseAddressRanges([entry]).entries).toEqual([normalized]);
  });

  it.each([
    ["proxy.internal", "is not an IP address or a CIDR range"],
    ["10.0.0.0/33", "the prefix length must be from 0 to 32"],
    ["fd00::/129", "the prefix length must be from 0 to 128"],
    ["::ffff:10.0.0.0/8", "the prefix length must be from 96 to 128"],
    ["10.0.0.0/-1", "is not an IP address or a CIDR range"],
    ["10.0.0.0/8/8", "is not an IP address or a CIDR range"],
    ["10.0.0.0/", "is not an IP address or a CIDR range"],
    ["256.0.0.1", "is not an IP address or a CIDR range"],
    ["10.0.0.1:80", "is not an IP address or a CIDR range"],
  ])("refuses %s", (entry, message) => {
    expect(() => parseAddressRanges(["10.0.0.1", entry])).toThrow(`"${entry}`);
    expect(() => parseAddressRanges([entry])).toThrow(message);
  });

  it("matches IPv4, IPv6 and IPv4-mapped IPv6 addresses against either spelling", () => {
    const ranges = parseAddressRanges(["10.0.0.0/8", "192.0.2.7", "fd00::/8", "::ffff:198.51.100.0/120"]);
    const cases: [string, boolean][] = [
      ["10.255.0.1", true],
      ["11.0.0.1", false],
      ["::ffff:10.1.1.1", true],
      ["::FFFF:10.1.1.1", true],
      ["192.0.2.7", true],
      ["192.0.2.8", false],
      ["fd12:3456::1", true],
      ["fe80::1", false],
      ["198.51.100.42", true],
      ["::ffff:198.51.101.1", false],
      ["not an address", false],
      ["", false],
    ];
    for (const [address, expected] of cases) expect([address, ranges.has(address)]).toEqual([address, expected]);
  });

  it("an empty list holds nothing", () => {
    const none = parseAddressRanges([]);
    expect(none.entries).toEqual([]);
    expect(none.has("127.0.0.1")).toBe(false);
  });

  it("normalizes addresses and rejects what is not one", () => {
    expect(normalizeAddress("::ffff:127.0.0.1")).toBe("127.0.0.1");
    expect(normalizeAddress("2001:DB8::1")).toBe("2001:db8::1");
    expect(normalizeAddress("unknown")).toBeUndefined();
    expect(normalizeAddress("[::1]")).toBeUndefined();
  });
});
