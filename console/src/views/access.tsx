/**
 * Who can do what where: the role bindings at a group and below (a page at a time), binding an
 * identity with the roles the signed-in person may grant (the others disabled, with the reason),
 * and unbinding.
 */
import { useEffect, useState } from "preact/hooks";
import { api, problemOf, type Identity, type Problem, type Role, type RoleBinding } from "../api.js";
import { currentSession } from "../auth.js";
import { listRoles, powersAt, rolesAt, whyNotBind, whyNotUnbind, type Powers } from "../powers.js";
import { Empty, Link, Loading, ProblemBox } from "../ui.js";

const PAGE_SIZE = 50;

export function AccessView({ group }: { group: string }) {
  const [bindings, setBindings] = useState<RoleBinding[]>();
  const [next, setNext] = useState<string>();
  const [roles, setRoles] = useState<Role[]>();
  const [powers, setPowers] = useState<Powers>();
  const [identities, setIdentities] = useState<Identity[]>([]);
  const [problem, setProblem] = useState<Problem>();
  const [notice, setNotice] = useState<string>();
  const [identity, setIdentity] = useState("");
  const [otherUid, setOtherUid] = useState("");
  const [role, setRole] = useState("");

  const load = (token?: string) =>
    api.iam.v2beta1.roleBindings
      .listRoleBindings({ uidp: { descendantsOf: group }, pageSize: PAGE_SIZE, pageToken: token ?? "" })
      .then((r) => {
        setBindings((before) => [...(token ? (before ?? []) : []), ...r.roleBindings]);
        setNext(r.nextPageToken || undefined);
      })
      .catch((e: unknown) => setProblem(problemOf(e)));

  useEffect(() => {
    void load();
    const me = currentSession()?.identity ?? "";
    listRoles()
      .then(async (all) => {
        const here = rolesAt(all, group);
        setRoles(here);
        setPowers(await powersAt(me, group, all));
      })
      .catch((e: unknown) => setProblem(problemOf(e)));
    api.iam.v2beta1.identities
      .listIdentities({ uidp: { childrenOf: group }, pageSize: 200 })
      .then((r) => setIdentities(r.identities))
      .catch(() => setIdentities([]));
  }, [group]);

  const act = (what: () => Promise<string>) => {
    setProblem(undefined);
    setNotice(undefined);
    what()
      .then((done) => {
        setNotice(done);
        return load();
      })
      .catch((e: unknown) => setProblem(problemOf(e)));
  };
  const unbindRefusal = powers === undefined ? "checking what you may do…" : whyNotUnbind(powers);
  const choices = (roles ?? []).map((r) => ({ role: r, why: powers === undefined ? "checking what you may do…" : whyNotBind(powers, r) }));
  const chosen = choices.find((c) => c.role.uid === role);
  const bindable = choices.some((c) => c.why === undefined);

  return (
    <section aria-labelledby="access-title">
      <h1 id="access-title">Access</h1>
      <p class="muted">
        Role bindings at <Link to={`/groups/${group}`}>{group}</Link> and below; the <Link to={`/roles/${group}`}>roles</Link> that can be
        bound here
      </p>
      <ProblemBox problem={problem} />
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      {bindings === undefined && problem === undefined && <Loading what="role bindings" />}
      {bindings?.length === 0 && <Empty>No role binding here yet.</Empty>}
      {bindings !== undefined && bindings.length > 0 && (
        <table>
          <caption class="visually-hidden">Role bindings</caption>
          <thead>
            <tr>
              <th scope="col">Who</th>
              <th scope="col">Role</th>
              <th scope="col">Where</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {bindings.map((b) => (
              <tr key={b.uid}>
                <td>
                  <Link to={`/identity?uid=${encodeURIComponent(b.identity?.uid ?? "")}`}>{b.identity?.name ?? b.identity?.uid}</Link>{" "}
                  <span class="small">
                    (
                    <Link to={`/effective-access?uid=${encodeURIComponent(b.identity?.uid ?? "")}`}>
                      effective access<span class="visually-hidden"> of {b.identity?.name ?? b.identity?.uid}</span>
                    </Link>
                    )
                  </span>
                </td>
                <td>{b.role?.name}</td>
                <td>{b.group?.name}</td>
                <td>
                  <button
                    type="button"
                    disabled={unbindRefusal !== undefined}
                    title={unbindRefusal}
                    aria-describedby={unbindRefusal ? "unbind-why" : undefined}
                    onClick={() =>
                      act(async () => {
                        await api.iam.v2beta1.roleBindings.deleteRoleBinding({ uid: b.uid });
                        return `Removed ${b.role?.name ?? "the role"} from ${b.identity?.name ?? "the identity"}.`;
                      })
                    }
                  >
                    Unbind {b.identity?.name} ({b.role?.name})
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {unbindRefusal && bindings !== undefined && bindings.length > 0 && (
        <p id="unbind-why" class="muted small">
          Unbinding is disabled: {unbindRefusal}.
        </p>
      )}
      {next && (
        <button type="button" onClick={() => void load(next)}>
          Load more
        </button>
      )}
      <form
        class="panel"
        aria-labelledby="bind-title"
        onSubmit={(e) => {
          e.preventDefault();
          const who = otherUid.trim() || identity;
          act(async () => {
            const created = await api.iam.v2beta1.roleBindings.createRoleBinding({
              parent: group,
              roleBinding: { identityUid: who, roleUid: role },
            });
            return `Bound ${created.identity?.name ?? who} as ${created.role?.name ?? role}.`;
          });
        }}
      >
        <h2 id="bind-title">Bind a role</h2>
        {powers !== undefined && !bindable && (
          <p class="problem-text" id="bind-why">
            You cannot bind roles here: {choices[0]?.why ?? "no role is available"}.
          </p>
        )}
        <label for="bind-identity">Identity in this group</label>
        <select id="bind-identity" value={identity} onChange={(e) => setIdentity(e.currentTarget.value)} disabled={!bindable}>
          <option value="">(choose)</option>
          {identities.map((i) => (
            <option key={i.uid} value={i.uid}>
              {i.name}
            </option>
          ))}
        </select>
        <label for="bind-uid">or any identity's uid</label>
        <input id="bind-uid" value={otherUid} onInput={(e) => setOtherUid(e.currentTarget.value)} disabled={!bindable} />
        <fieldset disabled={!bindable} aria-describedby={!bindable ? "bind-why" : undefined}>
          <legend>Role</legend>
          {choices.map(({ role: r, why }) => (
            <div key={r.uid} class="choice">
              <input
                type="radio"
                name="role"
                id={`role-${r.uid}`}
                value={r.uid}
                checked={role === r.uid}
                disabled={why !== undefined}
                aria-describedby={why ? `role-why-${r.uid}` : undefined}
                onChange={() => setRole(r.uid)}
              />
              <label for={`role-${r.uid}`}>{r.name}</label>
              {why && (
                <span id={`role-why-${r.uid}`} class="muted small" data-testid={`why-${r.name}`}>
                  Not available: {why}
                </span>
              )}
            </div>
          ))}
        </fieldset>
        <button type="submit" class="primary" disabled={!bindable || chosen === undefined || chosen.why !== undefined}>
          Bind
        </button>
      </form>
    </section>
  );
}
