/**
 * Account associations (`/account-associations/<group uid>`): the cloud accounts a group stands
 * for (an AWS account, a Google Cloud project, an Azure tenant and its client ids, GitHub App
 * installations). A group has at most one, whose uid is the group's: the view shows the group's
 * own, to create or edit (each provider filled in or left empty, which removes it) or delete, and
 * lists those of the groups below it a page at a time.
 */
import { useEffect, useState } from "preact/hooks";
import { Code } from "../../../src/client/index.js";
import { api, problemOf, type Problem } from "../api.js";
import { PAGE, PAGE_SIZE, Pager, When, usePage } from "../lists.js";
import { Empty, Link, Loading, ProblemBox } from "../ui.js";

type Association = Awaited<ReturnType<typeof api.iam.v2beta1.accountAssociations.getAccountAssociation>>;

/** What the form holds: each provider's fields as text. */
interface Fields {
  name: string;
  description: string;
  amazonAccount: string;
  googleProjectId: string;
  googleProjectNumber: string;
  azureTenantId: string;
  /** `purpose=client id`, one per line. */
  azureClientIds: string;
  /** `installation id name`, one per line. */
  githubInstallations: string;
}

function fieldsOf(a: Association | undefined, groupName: string): Fields {
  return {
    name: a?.name ?? groupName,
    description: a?.description ?? "",
    amazonAccount: a?.amazon?.account ?? "",
    googleProjectId: a?.google?.projectId ?? "",
    googleProjectNumber: a?.google?.projectNumber ?? "",
    azureTenantId: a?.azure?.tenantId ?? "",
    azureClientIds: Object.entries(a?.azure?.clientIds ?? {})
      .map(([k, v]) => `${k}=${v}`)
      .join("\n"),
    githubInstallations: (a?.github?.installations ?? []).map((i) => `${i.installationId}${i.name ? ` ${i.name}` : ""}`).join("\n"),
  };
}

function lines(text: string): string[] {
  return text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "");
}

/** The association the form describes; a provider left empty is not sent (and so removed on an update). */
function associationOf(f: Fields, uid?: string) {
  const installations = lines(f.githubInstallations).map((l) => {
    const [id = "", ...name] = l.split(/\s+/);
    if (!/^\d+$/.test(id)) throw new Error(`GitHub installations: "${l}" does not start with an installation id (digits)`);
    return { installationId: BigInt(id), name: name.join(" ") };
  });
  const clientIds = Object.fromEntries(
    lines(f.azureClientIds).map((l) => {
      const at = l.indexOf("=");
      if (at <= 0) throw new Error(`Azure client ids: "${l}" is not purpose=client id`);
      return [l.slice(0, at).trim(), l.slice(at + 1).trim()];
    }),
  );
  return {
    ...(uid !== undefined && { uid }),
    name: f.name,
    description: f.description,
    ...(f.amazonAccount !== "" && { amazon: { account: f.amazonAccount } }),
    ...((f.googleProjectId !== "" || f.googleProjectNumber !== "") && {
      google: { projectId: f.googleProjectId, projectNumber: f.googleProjectNumber },
    }),
    ...((f.azureTenantId !== "" || Object.keys(clientIds).length > 0) && { azure: { tenantId: f.azureTenantId, clientIds } }),
    ...(installations.length > 0 && { github: { installations } }),
  };
}

function Summary({ a }: { a: Association }) {
  const parts: string[] = [];
  if (a.amazon) parts.push(`AWS ${a.amazon.account}`);
  if (a.google) parts.push(`Google Cloud ${a.google.projectId || a.google.projectNumber}`);
  if (a.azure) parts.push(`Azure ${a.azure.tenantId}`);
  if (a.github) parts.push(`GitHub ${a.github.installations.map((i) => i.name || String(i.installationId)).join(", ")}`);
  return <span>{parts.join(" · ") || <span class="muted">no accounts</span>}</span>;
}

export function AssociationsView({ group, query }: { group: string; query: URLSearchParams }) {
  const path = `/account-associations/${group}`;
  const [groupName, setGroupName] = useState<string>();
  const [own, setOwn] = useState<Association | null>();
  const [problem, setProblem] = useState<Problem>();
  const [notice, setNotice] = useState<string>();
  const load = () => {
    api.iam.v2beta1.accountAssociations
      .getAccountAssociation({ uid: group })
      .then(setOwn)
      .catch((e: unknown) => {
        const p = problemOf(e);
        if (p.code === String(Code.NotFound)) setOwn(null);
        else setProblem(p);
      });
  };
  useEffect(() => {
    api.iam.v2beta1.groups
      .getGroup({ uid: group })
      .then((g) => setGroupName(g.name))
      .catch((e: unknown) => setProblem(problemOf(e)));
    load();
  }, [group]);
  const below = usePage<Association>(
    `${group}?${query.get(PAGE) ?? ""}`,
    async (pageToken) => {
      const r = await api.iam.v2beta1.accountAssociations.listAccountAssociations({
        uidp: { descendantsOf: group },
        pageSize: PAGE_SIZE,
        pageToken,
        orderBy: "name",
      });
      return { items: r.accountAssociations, next: r.nextPageToken, total: r.totalCount };
    },
    query.get(PAGE) ?? "",
  );
  return (
    <section aria-labelledby="associations-title">
      <h1 id="associations-title">Account associations{groupName !== undefined && <span class="muted"> of {groupName}</span>}</h1>
      <p class="muted">The cloud accounts a group stands for: at most one association per group.</p>
      <ProblemBox problem={problem} />
      {(own === undefined || groupName === undefined) && problem === undefined && <Loading what="the group's association" />}
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      {own !== undefined && groupName !== undefined && (
        <AssociationForm
          key={own?.updateTime?.seconds.toString() ?? "new"}
          group={group}
          groupName={groupName}
          association={own ?? undefined}
          onChanging={() => setNotice(undefined)}
          onChanged={(message) => {
            setNotice(message);
            load();
            below.reload();
          }}
        />
      )}
      <h2>Below {groupName ?? "this group"}</h2>
      <ProblemBox problem={below.problem} />
      {below.items === undefined && <Loading what="account associations" />}
      {below.items?.length === 0 && below.problem === undefined && <Empty>No group below has an account association.</Empty>}
      {below.items !== undefined && below.items.length > 0 && (
        <table aria-label="Account associations below">
          <thead>
            <tr>
              <th scope="col">Association (its group's)</th>
              <th scope="col">Accounts</th>
              <th scope="col">Updated</th>
            </tr>
          </thead>
          <tbody>
            {below.items.map((a) => (
              <tr key={a.uid}>
                <td>
                  <Link to={`/account-associations/${a.uid}`}>{a.name}</Link>
                  {a.description && <div class="muted small">{a.description}</div>}
                </td>
                <td>
                  <Summary a={a} />
                </td>
                <td>
                  <When time={a.updateTime} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {below.items !== undefined && <Pager path={path} query={query} next={below.next} total={below.total} shown={below.items.length} />}
      {group.includes("/") && (
        <p>
          <Link to={`/account-associations/${group.slice(0, group.lastIndexOf("/"))}`}>Up to the parent group</Link>
        </p>
      )}
    </section>
  );
}

function AssociationForm(props: {
  group: string;
  groupName: string;
  association: Association | undefined;
  onChanging: () => void;
  onChanged: (message: string) => void;
}) {
  const { association } = props;
  const [fields, setFields] = useState<Fields>(() => fieldsOf(association, props.groupName));
  const [problem, setProblem] = useState<Problem>();
  const [confirming, setConfirming] = useState(false);
  const set = (key: keyof Fields) => (e: { currentTarget: HTMLInputElement | HTMLTextAreaElement }) => {
    const value = e.currentTarget.value;
    setFields((f) => ({ ...f, [key]: value }));
  };
  const act = (what: () => Promise<string>) => {
    setProblem(undefined);
    props.onChanging();
    what()
      .then(props.onChanged)
      .catch((e: unknown) => setProblem(problemOf(e)));
  };
  const field = (key: keyof Fields, label: string, hint?: string, multiline = false) => {
    const id = `association-${key}`;
    return (
      <>
        <label for={id}>{label}</label>
        {multiline ? (
          <textarea id={id} rows={3} value={fields[key]} onInput={set(key)} aria-describedby={hint ? `${id}-hint` : undefined} />
        ) : (
          <input id={id} value={fields[key]} onInput={set(key)} aria-describedby={hint ? `${id}-hint` : undefined} />
        )}
        {hint && (
          <small id={`${id}-hint`} class="muted">
            {hint}
          </small>
        )}
      </>
    );
  };
  const title = association ? `Association of ${props.groupName}` : `New association for ${props.groupName}`;
  return (
    <div>
      <form
        class="panel-form"
        aria-label={title}
        onSubmit={(e) => {
          e.preventDefault();
          act(async () => {
            if (association === undefined) {
              const created = await api.iam.v2beta1.accountAssociations.createAccountAssociation({
                parent: props.group,
                accountAssociation: associationOf(fields),
              });
              return `Created ${created.name}.`;
            }
            const updated = await api.iam.v2beta1.accountAssociations.updateAccountAssociation({
              accountAssociation: associationOf(fields, association.uid),
              // Every provider as a whole: one left empty is removed.
              updateMask: { paths: ["name", "description", "amazon", "google", "azure", "github"] },
            });
            return `Saved ${updated.name}.`;
          });
        }}
      >
        <h2>{title}</h2>
        <ProblemBox problem={problem} />
        {field("name", "Name")}
        {field("description", "Description")}
        <fieldset>
          <legend>AWS</legend>
          {field("amazonAccount", "AWS account", "12 digits; empty for none.")}
        </fieldset>
        <fieldset>
          <legend>Google Cloud</legend>
          {field("googleProjectNumber", "Project number", "Digits; empty for none.")}
          {field("googleProjectId", "Project id")}
        </fieldset>
        <fieldset>
          <legend>Azure</legend>
          {field("azureTenantId", "Tenant id", "A UUID; empty for none.")}
          {field("azureClientIds", "Client ids", "One per line: purpose=client id.", true)}
        </fieldset>
        <fieldset>
          <legend>GitHub</legend>
          {field("githubInstallations", "App installations", "One per line: the installation id, then a name.", true)}
        </fieldset>
        <button type="submit" class="primary">
          {association ? "Save" : "Create association"}
        </button>
      </form>
      {association && (
        <div class="danger">
          {!confirming ? (
            <button type="button" onClick={() => setConfirming(true)}>
              Delete the association of {props.groupName}…
            </button>
          ) : (
            <p>
              Delete the association of {props.groupName}?{" "}
              <button
                type="button"
                class="destructive"
                onClick={() => {
                  setConfirming(false);
                  act(async () => {
                    await api.iam.v2beta1.accountAssociations.deleteAccountAssociation({ uid: association.uid });
                    return `Deleted the association of ${props.groupName}.`;
                  });
                }}
              >
                Delete
              </button>{" "}
              <button type="button" onClick={() => setConfirming(false)}>
                Cancel
              </button>
            </p>
          )}
        </div>
      )}
    </div>
  );
}
