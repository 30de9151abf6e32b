/**
 * Which network addresses Arbor may fetch an issuer's documents from. Whoever configures an
 * identity or an identity provider chooses the issuer, and Arbor fetches from it: without this
 * rule, from inside the operator's network (a database's HTTP port, a cloud metadata endpoint at
 * 169.254.169.254). Public addresses are always allowed; loopback with
 * ARBOR_ALLOW_HTTP_LOOPBACK_ISSUERS (tests, local development); private ranges (RFC 1918, CGNAT,
 * IPv6 unique local) with ARBOR_ALLOW_PRIVATE_ISSUERS; link-local, unspecified, multicast and
 * reserved ranges never: no issuer lives there, but metadata services do.
 */
import { BlockList, isIP } from "node:net";

/** What an operator allows besides public addresses. */
export interface AddressRules {
  allowLoopback: boolean;
  allowPrivate: boolean;
}

type Kind = "loopback" | "private" | "link-local" | "reserved";

function ranges(v4: string[], v6: string[]): BlockList {
  const list = new BlockList();
  for (const r of v4) list.addSubnet(r.split("/")[0] as string, Number(r.split("/")[1]), "ipv4");
  for (const r of v6) list.addSubnet(r.split("/")[0] as string, Number(r.split("/")[1]), "ipv6");
  return list;
}

const KINDS: [Kind, BlockList][] = [
  ["loopback", ranges(["127.0.0.0/8"], ["::1/128"])],
  ["private", ranges(["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10"], ["fc00::/7"])],
  ["link-local", ranges(["169.254.0.0/16"], ["fe80::/10"])],
  ["reserved", ranges(["0.0.0.0/8", "224.0.0.0/4", "240.0.0.0/4", "192.0.0.0/24"], ["::/128", "ff00::/8", "100::/64"])],
];

/** IPv6 prefixes that carry an IPv4 address, and where: mapped (::ffff:a.b.c.d), NAT64, 6to4. */
const EMBEDDING: { prefix: number[]; at: number }[] = [
  { prefix: [0, 0, 0, 0, 0, 0xffff], at: 6 },
  { prefix: [0x64, 0xff9b, 0, 0, 0, 0], at: 6 },
  { prefix: [0x2002], at: 1 },
];

/** Tells whether a URL's hostname (as URL.hostname gives it) is a loopback host: localhost, 127.0.0.0/8 or [::1]. */
export function isLoopbackHost(hostname: string): boolean {
  return hostname === "localhost" || hostname === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/** The kind of a literal IP address (no brackets), or undefined when it is public. */
export function addressKind(ip: string): Kind | undefined {
  const family = isIP(ip);
  if (family === 0) return "reserved";
  if (family === 6) {
    const words = ipv6Words(ip);
    for (const { prefix, at } of EMBEDDING) {
      if (prefix.every((w, i) => words[i] === w)) {
        const [hi, lo] = [words[at] as number, words[at + 1] as number];
        return addressKind(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`);
      }
    }
  }
  const type = family === 4 ? "ipv4" : "ipv6";
  return KINDS.find(([, list]) => list.check(ip, type))?.[0];
}

/** Why ip may not be fetched from under rules ("is a private address"), or undefined. */
export function addressProblem(ip: string, rules: AddressRules): string | undefined {
  const kind = addressKind(ip);
  if (kind === undefined) return undefined;
  if (kind === "loopback" && rules.allowLoopback) return undefined;
  if (kind === "private" && rules.allowPrivate) return undefined;
  return `is a ${kind} address`;
}

/** Like addressProblem for a URL's hostname when it is an IP literal (`[::1]` too); names are resolved later. */
export function hostProblem(hostname: string, rules: AddressRules): string | undefined {
  const bare = hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
  return isIP(bare) === 0 ? undefined : addressProblem(bare, rules);
}

/** The eight 16-bit words of a valid IPv6 address (a dotted IPv4 tail included). */
function ipv6Words(ip: string): number[] {
  let text = ip.split("%")[0] as string;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted !== null) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const parse = (s: string) => (s === "" ? [] : s.split(":").map((w) => parseInt(w, 16)));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}
