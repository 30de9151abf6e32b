/**
 * Uids as tables show them. A child uid is its parent's uid and one segment (domain/uid.ts), so
 * a table of a group's identities repeats the same 57-character prefix on every row. Tables
 * show `…/` and the last segment (unique among siblings, and random, so unique across a table
 * in practice); a root uid shows its first 12 hex characters, as git shortens commits. Where two
 * rows would look the same, the column shows every uid in full instead. `-o wide`, JSON, YAML
 * and `-o id` always print uids in full.
 */

/** The first characters of a root uid a table shows. */
const ROOT_PREFIX = 12;

/** The uids as a table shows them: all shortened, or all in full when shortening would make two look alike. */
export function shortenUids(uids: readonly string[]): string[] {
  const short = uids.map(shortUid);
  const seen = new Map<string, string>();
  for (let i = 0; i < uids.length; i++) {
    const other = seen.get(short[i] as string);
    if (other !== undefined && other !== uids[i]) return [...uids];
    seen.set(short[i] as string, uids[i] as string);
  }
  return short;
}

/** One uid shortened: `…/0123456789abcdef` for a child, `0123456789ab…` for a root; other text unchanged. */
export function shortUid(uid: string): string {
  const slash = uid.lastIndexOf("/");
  if (slash >= 0) return `…${uid.slice(slash)}`;
  return /^[0-9a-f]{40}$/.test(uid) ? `${uid.slice(0, ROOT_PREFIX)}…` : uid;
}
