/**
 * `arbor auth status`: who the cached login is, until when, and the role bindings that identity
 * holds (those the caller may list).
 */
import { decodeJwt } from "jose";
import type { ClientConfig } from "./client-config.js";
import { getWithToken } from "./http.js";
import { validToken } from "./tokens.js";

/** What status reports. */
export interface Status {
  identity: string;
  /** The upstream identity the login came from (the token's act claim), if any. */
  upstream?: { issuer: string; subject: string };
  /** RFC 3339. */
  expiry: string;
  roleBindings: { uid: string; group: { uid: string; name: string }; role: { uid: string; name: string } }[];
}

/** A hydrated role binding as the API answers it. */
interface RoleBindingJson {
  uid: string;
  group?: { uid?: string; name?: string };
  role?: { uid?: string; name?: string };
}

/** The status of the login to config.api. */
export async function authStatus(config: ClientConfig): Promise<Status> {
  const { token, expiry } = await validToken(config);
  const claims = decodeJwt(token) as { sub?: string; act?: { iss?: string; sub?: string } };
  const identity = String(claims.sub);
  const roleBindings: Status["roleBindings"] = [];
  let pageToken = "";
  do {
    const query = new URLSearchParams({ identity, page_size: "200", ...(pageToken !== "" && { page_token: pageToken }) });
    const page = await getWithToken(`${config.api}/iam/v2beta1/roleBindings?${query}`, token);
    for (const b of (page.roleBindings ?? []) as RoleBindingJson[]) {
      roleBindings.push({
        uid: b.uid,
        group: { uid: b.group?.uid ?? "", name: b.group?.name ?? "" },
        role: { uid: b.role?.uid ?? "", name: b.role?.name ?? "" },
      });
    }
    pageToken = typeof page.nextPageToken === "string" ? page.nextPageToken : "";
  } while (pageToken !== "");
  const act = claims.act;
  return {
    identity,
    ...(act?.iss !== undefined && act.sub !== undefined && { upstream: { issuer: act.iss, subject: act.sub } }),
    expiry,
    roleBindings,
  };
}

/** The status as text for a terminal. */
export function statusText(s: Status, api: string): string {
  const lines = [`API:        ${api}`, `Identity:   ${s.identity}`];
  if (s.upstream !== undefined) lines.push(`Logged in:  as ${s.upstream.subject} at ${s.upstream.issuer}`);
  lines.push(`Token:      valid until ${s.expiry}`, "");
  if (s.roleBindings.length === 0) {
    lines.push("Role bindings: none visible (a binding shows here where this identity may list role bindings)");
  } else {
    lines.push("Role bindings:");
    const width = Math.max(4, ...s.roleBindings.map((b) => b.role.name.length));
    lines.push(`  ${"ROLE".padEnd(width)}  GROUP`);
    for (const b of s.roleBindings) lines.push(`  ${b.role.name.padEnd(width)}  ${b.group.name} (${b.group.uid})`);
  }
  return `${lines.join("\n")}\n`;
}
