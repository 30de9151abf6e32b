/**
 * Sets of IP addresses written as addresses and CIDR ranges (`10.0.0.0/8`, `2001:db8::/32`,
 * `192.0.2.7`): the reverse proxies whose X-Forwarded-For is believed. An IPv4 address written as
 * IPv6 (`::ffff:192.0.2.7`, as a dual-stack socket reports IPv4 peers) is the IPv4 address, in
 * the list and in what is checked against it, so one entry covers both spellings.
 */
import { BlockList, isIP } from "node:net";

/** A set of addresses to test membership of. */
export interface AddressRanges {
  /** The entries as given, normalized (`::ffff:10.0.0.1` becomes `10.0.0.1`). */
  readonly entries: readonly string[];
  has(address: string): boolean;
}

const MAPPED = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/** The address itself, with an IPv4-mapped IPv6 address as its IPv4 address; undefined when it is not an IP address. */
export function normalizeAddress(address: string): string | undefined {
  const text = address.trim();
  const mapped = MAPPED.exec(text);
  if (mapped !== null && isIP(mapped[1] as string) === 4) return mapped[1];
  const kind = isIP(text);
  if (kind === 4) return text;
  if (kind === 6) return text.toLowerCase();
  return undefined;
}

/**
 * Parses entries such as `10.0.0.0/8`, `fd00::/8`, `192.0.2.7`; throws an Error naming the
 * first entry that is none of these (a host name, a prefix out of range).
 */
export function parseAddressRanges(entries: readonly string[]): AddressRanges {
  const list = new BlockList();
  const normalized: string[] = [];
  for (const raw of entries) {
    const entry = raw.trim();
    const [baseText = "", prefixText, ...rest] = entry.split("/");
    const base = normalizeAddress(baseText);
    if (base === undefined || rest.length > 0 || (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText))) {
      throw new Error(`"${entry}" is not an IP address or a CIDR range such as 10.0.0.0/8 or fd00::/8`);
    }
    const v4 = isIP(base) === 4;
    // `::ffff:10.0.0.0/104` is the IPv4 range 10.0.0.0/8: its prefix counts the 96 mapping bits.
    const written = { min: MAPPED.test(baseText) ? 96 : 0, max: v4 && !MAPPED.test(baseText) ? 32 : 128 };
    const given = prefixText === undefined ? written.max : Number(prefixText);
    if (given < written.min || given > written.max)
      throw new Error(`"${entry}": the prefix length must be from ${written.min} to ${written.max}`);
    const prefix = v4 ? given - (written.max - 32) : given;
    list.addSubnet(base, prefix, v4 ? "ipv4" : "ipv6");
    normalized.push(prefix === (v4 ? 32 : 128) ? base : `${base}/${prefix}`);
  }
  return {
    entries: normalized,
    has(address) {
      const ip = normalizeAddress(address);
      if (ip === undefined) return false;
      return list.check(ip, isIP(ip) === 4 ? "ipv4" : "ipv6");
    },
  };
}
