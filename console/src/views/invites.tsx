/**
 * A group's invites: create one (its code and link shown once, to copy), list them a page at a
 * time, and revoke. The link, `{base}/console/invite?code=...`, signs the person in with the invite.
 */
import { useEffect, useState } from "preact/hooks";
import { api, problemOf, type Problem, type Role } from "../api.js";
import { currentSession } from "../auth.js";
import { BASE_URL } from "../config.js";
import { listRoles, powersAt, rolesAt, whyNotBind, type Powers } from "../powers.js";
import { Empty, Link, Loading, ProblemBox } from "../ui.js";

const PAGE_SIZE = 50;

type Invite = Awaited<ReturnType<typeof api.iam.v2beta1.groupInvites.getGroupInvite>>;

export function InvitesView({ group }: { group: string }) {
  const [invites, setInvites] = useState<Invite[]>();
  const [next, setNext] = useState<string>();
  const [roles, setRoles] = useState<Role[]>([]);
  const [powers, setPowers] = useState<Powers>();
  const [problem, setProblem] = useState<Problem>();
  const [role, setRole] = useState("");
  const [email, setEmail] = useState("");
  const [hours, setHours] = useState("72");
  const [singleUse, setSingleUse] = useState(true);
  const [created, setCreated] = useState<{ code: string; link: string }>();
  const [copied, setCopied] = useState<string>();

  const load = (token?: string) =>
    api.iam.v2beta1.groupInvites
      .listGroupInvites({ uidp: { childrenOf: group }, pageSize: PAGE_SIZE, pageToken: token ?? "" })
      .then((r) => {
        setInvites((before) => [...(token ? (before ?? []) : []), ...r.groupInvites]);
        setNext(r.nextPageToken || undefined);
      })
      .catch((e: unknown) => setProblem(problemOf(e)));
  useEffect(() => {
    void load();
    listRoles()
      .then(async (all) => {
        setRoles(rolesAt(all, group));
        setPowers(await powersAt(currentSession()?.identity ?? "", group, all));
      })
      .catch((e: unknown) => setProblem(problemOf(e)));
  }, [group]);

  const copy = (what: string, text: string) =>
    void navigator.clipboard.writeText(text).then(
      () => setCopied(what),
      () => setCopied(undefined),
    );

  return (
    <section aria-labelledby="invites-title">
      <h1 id="invites-title">Invites</h1>
      <p class="muted">
        To <Link to={`/groups/${group}`}>{group}</Link>
      </p>
      <ProblemBox problem={problem} />
      {created && (
        <div class="panel" role="status" aria-labelledby="created-title">
          <h2 id="created-title">Invite created</h2>
          <p>Copy the link or the code now: Arbor keeps only its hash and cannot show it again.</p>
          <label for="invite-link">Link</label>
          <input id="invite-link" readOnly value={created.link} data-testid="invite-link" />
          <button type="button" onClick={() => copy("link", created.link)}>
            Copy link
          </button>{" "}
          <label for="invite-code">Code</label>
          <input id="invite-code" readOnly value={created.code} />
          <button type="button" onClick={() => copy("code", created.code)}>
            Copy code
          </button>
          {copied && <p class="notice">Copied the {copied}.</p>}
        </div>
      )}
      {invites === undefined && problem === undefined && <Loading what="invites" />}
      {invites?.length === 0 && <Empty>No invite to this group.</Empty>}
      {invites !== undefined && invites.length > 0 && (
        <table>
          <caption class="visually-hidden">Invites</caption>
          <thead>
            <tr>
              <th scope="col">Role</th>
              <th scope="col">For</th>
              <th scope="col">Expires</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {invites.map((i) => (
              <tr key={i.uid}>
                <td>{i.role?.name}</td>
                <td>{i.email || "anyone with the link"}</td>
                <td>{i.expirationTime ? new Date(Number(i.expirationTime.seconds) * 1000).toISOString() : ""}</td>
                <td>
                  <button
                    type="button"
                    onClick={() =>
                      void api.iam.v2beta1.groupInvites
                        .deleteGroupInvite({ uid: i.uid })
                        .then(() => load())
                        .catch((e: unknown) => setProblem(problemOf(e)))
                    }
                  >
                    Revoke invite for {i.role?.name}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {next && (
        <button type="button" onClick={() => void load(next)}>
          Load more
        </button>
      )}
      <form
        class="panel"
        aria-labelledby="new-invite-title"
        onSubmit={(e) => {
          e.preventDefault();
          setProblem(undefined);
          setCreated(undefined);
          setCopied(undefined);
          api.iam.v2beta1.groupInvites
            .createGroupInvite({
              parent: group,
              groupInvite: { roleUid: role, email: email.trim(), singleUse, ttl: { seconds: BigInt(Math.round(Number(hours) * 3600)) } },
            })
            .then((invite) => {
              const code = invite.code ?? "";
              setCreated({ code, link: `${BASE_URL}/console/invite?code=${encodeURIComponent(code)}` });
              return load();
            })
            .catch((err: unknown) => setProblem(problemOf(err)));
        }}
      >
        <h2 id="new-invite-title">New invite</h2>
        <label for="invite-role">Role</label>
        <select id="invite-role" value={role} onChange={(e) => setRole(e.currentTarget.value)} required>
          <option value="">(choose)</option>
          {roles.map((r) => {
            const why = powers === undefined ? undefined : whyNotBind(powers, r);
            return (
              <option key={r.uid} value={r.uid} disabled={why !== undefined}>
                {r.name}
                {why ? ` (not available: ${why})` : ""}
              </option>
            );
          })}
        </select>
        <label for="invite-email">Email (optional: only this verified address may redeem it)</label>
        <input id="invite-email" type="email" value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        <label for="invite-hours">Valid for (hours)</label>
        <input id="invite-hours" type="number" min="1" value={hours} onInput={(e) => setHours(e.currentTarget.value)} />
        <div class="choice">
          <input id="invite-single" type="checkbox" checked={singleUse} onChange={(e) => setSingleUse(e.currentTarget.checked)} />
          <label for="invite-single">Single use</label>
        </div>
        <button type="submit" class="primary">
          Create invite
        </button>
      </form>
    </section>
  );
}
