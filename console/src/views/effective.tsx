/**
 * The effective access of one identity (`/effective-access?uid=<identity uid>`): the role bindings
 * it holds (ListRoleBindings filtered by identity, a page at a time), grouped by the group where
 * each applies (that group and everything below it), each role with its capabilities; and, per
 * group, the union of what the identity may do there, counting the bindings above it.
 */
import { useEffect, useState } from "preact/hooks";
import type { Capability } from "../../../src/client/index.js";
import { api, type Role, type RoleBinding } from "../api.js";
import { CapabilityList } from "../capabilities.js";
import { PAGE, PAGE_SIZE, Pager, When, usePage } from "../lists.js";
import { atOrBelow, listRoles } from "../powers.js";
import { Empty, Link, Loading, ProblemBox } from "../ui.js";

/** The bindings of a page by group, the groups in uid order (a group before those below it). */
function byGroup(bindings: readonly RoleBinding[]): { uid: string; name: string; bindings: RoleBinding[] }[] {
  const groups = new Map<string, { uid: string; name: string; bindings: RoleBinding[] }>();
  for (const b of bindings) {
    const uid = b.group?.uid ?? "";
    const entry = groups.get(uid) ?? { uid, name: b.group?.name ?? uid, bindings: [] };
    entry.bindings.push(b);
    groups.set(uid, entry);
  }
  return [...groups.values()].sort((a, b) => (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0));
}

export function EffectiveAccessView({ query }: { query: URLSearchParams }) {
  const uid = query.get("uid") ?? "";
  const path = "/effective-access";
  const [name, setName] = useState<string>();
  const [roles, setRoles] = useState<Map<string, Role>>();
  useEffect(() => {
    setName(undefined);
    api.iam.v2beta1.identities
      .getIdentity({ uid })
      .then((i) => setName(i.name))
      .catch(() => setName(undefined));
    listRoles()
      .then((all) => setRoles(new Map(all.map((r) => [r.uid, r]))))
      .catch(() => setRoles(new Map()));
  }, [uid]);
  const page = usePage<RoleBinding>(
    `${uid}?${query.get(PAGE) ?? ""}`,
    async (pageToken) => {
      const r = await api.iam.v2beta1.roleBindings.listRoleBindings({ identity: uid, pageSize: PAGE_SIZE, pageToken, orderBy: "uid" });
      return { items: r.roleBindings, next: r.nextPageToken, total: r.totalCount };
    },
    query.get(PAGE) ?? "",
  );
  const capsOf = (b: RoleBinding): Capability[] | undefined => roles?.get(b.role?.uid ?? "")?.capabilities;
  const groups = byGroup(page.items ?? []);
  const who = name ?? uid;
  return (
    <section aria-labelledby="effective-title">
      <h1 id="effective-title">Effective access of {who}</h1>
      <p class="muted">
        The role bindings <Link to={`/identity?uid=${encodeURIComponent(uid)}`}>{who}</Link> holds. A binding grants its role's capabilities
        at its group and everything below it, so what the identity may do at a group is the union of its bindings there and above.
      </p>
      {uid === "" && (
        <ProblemBox problem={{ message: "No identity given: the address needs ?uid=<identity uid>.", violations: [], code: "3" }} />
      )}
      <ProblemBox problem={page.problem} />
      {uid !== "" && page.items === undefined && <Loading what="role bindings" />}
      {page.items?.length === 0 && page.problem === undefined && <Empty>{who} holds no role binding that you may see.</Empty>}
      {groups.map((g, i) => {
        // What applies at g: its own bindings and those at the groups above it on this page.
        const above = groups.slice(0, i).filter((a) => atOrBelow(g.uid, a.uid));
        const union = new Set<Capability>();
        let unknown = false;
        for (const b of [...above.flatMap((a) => a.bindings), ...g.bindings]) {
          const caps = capsOf(b);
          if (caps === undefined) unknown = true;
          for (const c of caps ?? []) union.add(c);
        }
        const titleId = `effective-group-${i}`;
        return (
          <section key={g.uid} class="panel" aria-labelledby={titleId} data-testid="effective-group">
            <h2 id={titleId}>
              At <Link to={`/access/${g.uid}`}>{g.name}</Link> and below
            </h2>
            <p class="muted small">
              <code>{g.uid}</code>
            </p>
            <table aria-label={`Role bindings at ${g.name}`}>
              <thead>
                <tr>
                  <th scope="col">Role</th>
                  <th scope="col">Capabilities</th>
                  <th scope="col">Bound</th>
                </tr>
              </thead>
              <tbody>
                {g.bindings.map((b) => {
                  const caps = capsOf(b);
                  return (
                    <tr key={b.uid}>
                      <td>
                        <strong>{b.role?.name}</strong>
                        {b.role?.uid.includes("/") ? <div class="muted small">custom role</div> : <div class="muted small">built-in</div>}
                      </td>
                      <td>
                        {roles === undefined ? (
                          <span class="muted">loading…</span>
                        ) : caps === undefined ? (
                          <span class="muted">not visible to you (roles.list)</span>
                        ) : (
                          <CapabilityList caps={caps} label={`Capabilities of ${b.role?.name ?? "the role"}`} />
                        )}
                      </td>
                      <td>
                        <When time={b.createTime} />
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
            <h3>All it may do at {g.name}</h3>
            {above.length > 0 && <p class="muted small">Counting the bindings above it: {above.map((a) => a.name).join(", ")}.</p>}
            <CapabilityList caps={union} label={`Effective capabilities at ${g.name}`} />
            {unknown && <p class="muted small">Some roles' capabilities are not visible to you, so there may be more.</p>}
          </section>
        );
      })}
      {page.items !== undefined && page.next !== undefined && (
        <p class="muted small">More bindings are on the next page; the unions above count this page's only.</p>
      )}
      {page.items !== undefined && <Pager path={path} query={query} next={page.next} total={page.total} shown={page.items.length} />}
    </section>
  );
}
