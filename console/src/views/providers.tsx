/**
 * Identity providers of a group (`/identity-providers/<group uid>`): the OIDC providers people
 * of the organization log in through, a page at a time; a new one; and one edited
 * (`?edit=<provider uid>`). The client secret is write-only, as the API has it: never shown, an
 * empty field keeps it (the update mask leaves oidc.client_secret out), a new value replaces it,
 * and removing it (a public client) is a choice of its own.
 */
import { useEffect, useState } from "preact/hooks";
import { api, problemOf, type Problem } from "../api.js";
import { PAGE, PAGE_SIZE, Pager, When, usePage, withQuery } from "../lists.js";
import { navigate } from "../router.js";
import { Empty, Link, Loading, ProblemBox } from "../ui.js";

type Provider = Awaited<ReturnType<typeof api.iam.v2beta1.identityProviders.getIdentityProvider>>;
type Role = Awaited<ReturnType<typeof api.iam.v2beta1.roles.getRole>>;

/** The roles a provider may grant, by uid: built-in ones and the custom ones the person may list. */
function useRoles(): Map<string, Role> {
  const [roles, setRoles] = useState(new Map<string, Role>());
  useEffect(() => {
    api.iam.v2beta1.roles
      .listRoles({ pageSize: 200, orderBy: "name" })
      .then((r) => setRoles(new Map(r.roles.map((role) => [role.uid, role]))))
      .catch(() => setRoles(new Map()));
  }, []);
  return roles;
}

function oidcOf(p: Provider) {
  return p.configuration.case === "oidc" ? p.configuration.value : undefined;
}

export function ProvidersView({ group, query }: { group: string; query: URLSearchParams }) {
  const path = `/identity-providers/${group}`;
  const roles = useRoles();
  const editing = query.get("edit") ?? "";
  const page = usePage<Provider>(
    `${group}?${query.get(PAGE) ?? ""}`,
    async (pageToken) => {
      const r = await api.iam.v2beta1.identityProviders.listIdentityProviders({
        uidp: { childrenOf: group },
        pageSize: PAGE_SIZE,
        pageToken,
        orderBy: "name",
      });
      return { items: r.identityProviders, next: r.nextPageToken, total: r.totalCount };
    },
    query.get(PAGE) ?? "",
  );
  const listQuery = new URLSearchParams(query);
  listQuery.delete("edit");
  const back = withQuery(path, listQuery);
  return (
    <section aria-labelledby="providers-title">
      <h1 id="providers-title">Identity providers</h1>
      <p class="muted">
        The OpenID Connect providers people of <code>{group}</code> log in through. A person's first login grants them the provider's
        default role in the organization.
      </p>
      <ProblemBox problem={page.problem} />
      {page.items === undefined && <Loading what="identity providers" />}
      {page.items?.length === 0 && page.problem === undefined && <Empty>No identity providers in this group.</Empty>}
      {page.items !== undefined && page.items.length > 0 && (
        <table aria-label="Identity providers">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Issuer</th>
              <th scope="col">Client id</th>
              <th scope="col">Default role</th>
              <th scope="col">Updated</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {page.items.map((p) => {
              const oidc = oidcOf(p);
              return (
                <tr key={p.uid} aria-current={p.uid === editing ? "true" : undefined}>
                  <td>
                    <strong>{p.name}</strong>
                    {p.description && <div class="muted small">{p.description}</div>}
                  </td>
                  <td>
                    <code>{oidc?.issuer}</code>
                    {oidc && oidc.additionalScopes.length > 0 && <div class="muted small">scopes: {oidc.additionalScopes.join(" ")}</div>}
                    {oidc?.groupsClaim && <div class="muted small">groups claim: {oidc.groupsClaim}</div>}
                  </td>
                  <td>
                    <code>{oidc?.clientId}</code>
                  </td>
                  <td>{roles.get(p.defaultRole)?.name ?? <code>{p.defaultRole}</code>}</td>
                  <td>
                    <When time={p.updateTime} />
                  </td>
                  <td>
                    <Link to={withQuery(path, { ...Object.fromEntries(listQuery), edit: p.uid })}>Edit {p.name}</Link>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {page.items !== undefined && <Pager path={path} query={listQuery} next={page.next} total={page.total} shown={page.items.length} />}
      {editing ? (
        <EditProvider key={editing} uid={editing} roles={roles} back={back} onChanged={page.reload} />
      ) : (
        <ProviderForm
          key="new"
          roles={roles}
          title="New identity provider"
          submit="Create identity provider"
          onSubmit={async (fields) => {
            const created = await api.iam.v2beta1.identityProviders.createIdentityProvider({
              parent: group,
              identityProvider: providerOf(fields),
            });
            page.reload();
            return `Created ${created.name}.`;
          }}
        />
      )}
    </section>
  );
}

/** What the provider form holds. */
interface Fields {
  name: string;
  description: string;
  issuer: string;
  clientId: string;
  /** The secret typed; "" keeps the current one (on an edit). */
  clientSecret: string;
  removeSecret: boolean;
  scopes: string;
  groupsClaim: string;
  defaultRole: string;
}

function providerOf(f: Fields, uid?: string) {
  return {
    ...(uid !== undefined && { uid }),
    name: f.name,
    description: f.description,
    defaultRole: f.defaultRole,
    configuration: {
      case: "oidc" as const,
      value: {
        issuer: f.issuer,
        clientId: f.clientId,
        ...(f.clientSecret !== "" && { clientSecret: f.clientSecret }),
        additionalScopes: f.scopes.split(/[\s,]+/).filter((s) => s !== ""),
        groupsClaim: f.groupsClaim,
      },
    },
  };
}

function EditProvider(props: { uid: string; roles: Map<string, Role>; back: string; onChanged: () => void }) {
  const [provider, setProvider] = useState<Provider>();
  const [problem, setProblem] = useState<Problem>();
  const [confirming, setConfirming] = useState(false);
  useEffect(() => {
    api.iam.v2beta1.identityProviders
      .getIdentityProvider({ uid: props.uid })
      .then(setProvider)
      .catch((e: unknown) => setProblem(problemOf(e)));
  }, [props.uid]);
  if (provider === undefined) return problem ? <ProblemBox problem={problem} /> : <Loading what="the identity provider" />;
  const oidc = oidcOf(provider);
  return (
    <div>
      <ProviderForm
        roles={props.roles}
        title={`Edit ${provider.name}`}
        submit="Save"
        editing
        initial={{
          name: provider.name,
          description: provider.description,
          issuer: oidc?.issuer ?? "",
          clientId: oidc?.clientId ?? "",
          clientSecret: "",
          removeSecret: false,
          scopes: oidc?.additionalScopes.join(" ") ?? "",
          groupsClaim: oidc?.groupsClaim ?? "",
          defaultRole: provider.defaultRole,
        }}
        onSubmit={async (fields) => {
          const paths = [
            "name",
            "description",
            "default_role",
            "oidc.issuer",
            "oidc.client_id",
            "oidc.additional_scopes",
            "oidc.groups_claim",
          ];
          // The secret changes only when one is typed, or when removing it is asked for.
          if (fields.clientSecret !== "" || fields.removeSecret) paths.push("oidc.client_secret");
          const updated = await api.iam.v2beta1.identityProviders.updateIdentityProvider({
            identityProvider: providerOf(fields.removeSecret ? { ...fields, clientSecret: "" } : fields, provider.uid),
            updateMask: { paths },
          });
          setProvider(updated);
          props.onChanged();
          return `Saved ${updated.name}.`;
        }}
      />
      <p>
        <Link to={props.back}>Done editing</Link>
      </p>
      <div class="danger">
        <ProblemBox problem={problem} />
        {!confirming ? (
          <button type="button" onClick={() => setConfirming(true)}>
            Delete {provider.name}…
          </button>
        ) : (
          <p>
            Delete {provider.name}? People who log in through it will no longer be able to.{" "}
            <button
              type="button"
              class="destructive"
              onClick={() => {
                setConfirming(false);
                api.iam.v2beta1.identityProviders
                  .deleteIdentityProvider({ uid: provider.uid })
                  .then(() => {
                    props.onChanged();
                    navigate(props.back);
                  })
                  .catch((e: unknown) => setProblem(problemOf(e)));
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
    </div>
  );
}

const EMPTY: Fields = {
  name: "",
  description: "",
  issuer: "",
  clientId: "",
  clientSecret: "",
  removeSecret: false,
  scopes: "",
  groupsClaim: "",
  defaultRole: "",
};

function ProviderForm(props: {
  roles: Map<string, Role>;
  title: string;
  submit: string;
  editing?: boolean;
  initial?: Fields;
  onSubmit: (fields: Fields) => Promise<string>;
}) {
  const [fields, setFields] = useState<Fields>(props.initial ?? EMPTY);
  const [problem, setProblem] = useState<Problem>();
  const [notice, setNotice] = useState<string>();
  const [busy, setBusy] = useState(false);
  const set = (key: keyof Fields) => (e: { currentTarget: HTMLInputElement | HTMLSelectElement }) => {
    const target = e.currentTarget;
    setFields((f) => ({ ...f, [key]: target instanceof HTMLInputElement && target.type === "checkbox" ? target.checked : target.value }));
  };
  const roles = [...props.roles.values()];
  const defaultRole = fields.defaultRole || roles.find((r) => r.name === "viewer")?.uid || "";
  const id = (name: string) => `provider-${props.editing ? "edit" : "new"}-${name}`;
  return (
    <form
      class="panel-form"
      aria-labelledby={id("title")}
      onSubmit={(e) => {
        e.preventDefault();
        setBusy(true);
        setProblem(undefined);
        setNotice(undefined);
        props
          .onSubmit({ ...fields, defaultRole })
          .then((message) => {
            setNotice(message);
            // The secret typed is not kept in the page once sent.
            setFields((f) => (props.editing ? { ...f, clientSecret: "", removeSecret: false } : EMPTY));
          })
          .catch((err: unknown) => setProblem(problemOf(err)))
          .finally(() => setBusy(false));
      }}
    >
      <h2 id={id("title")}>{props.title}</h2>
      <ProblemBox problem={problem} />
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      <label for={id("name")}>Name</label>
      <input id={id("name")} value={fields.name} onInput={set("name")} required />
      <label for={id("description")}>Description</label>
      <input id={id("description")} value={fields.description} onInput={set("description")} />
      <label for={id("issuer")}>Issuer URL</label>
      <input id={id("issuer")} type="url" value={fields.issuer} onInput={set("issuer")} placeholder="https://login.example.com" required />
      <label for={id("client-id")}>Client id</label>
      <input id={id("client-id")} value={fields.clientId} onInput={set("clientId")} required />
      <label for={id("client-secret")}>Client secret</label>
      <input
        id={id("client-secret")}
        type="password"
        autocomplete="new-password"
        value={fields.clientSecret}
        onInput={set("clientSecret")}
        disabled={fields.removeSecret}
        aria-describedby={id("client-secret-hint")}
      />
      <small id={id("client-secret-hint")} class="muted">
        {props.editing
          ? "Write-only: the current secret is never shown. Leave this empty to keep it; type a new one to replace it."
          : "Write-only: it is never shown again. Leave it empty for a public client (PKCE alone)."}
      </small>
      {props.editing && (
        <label class="check">
          <input type="checkbox" checked={fields.removeSecret} onChange={set("removeSecret")} /> Remove the client secret (a public client)
        </label>
      )}
      <label for={id("scopes")}>Additional scopes</label>
      <input
        id={id("scopes")}
        value={fields.scopes}
        onInput={set("scopes")}
        placeholder="groups offline_access"
        aria-describedby={id("scopes-hint")}
      />
      <small id={id("scopes-hint")} class="muted">
        Beyond openid, email and profile; separated by spaces.
      </small>
      <label for={id("groups-claim")}>Groups claim</label>
      <input id={id("groups-claim")} value={fields.groupsClaim} onInput={set("groupsClaim")} placeholder="groups" />
      <label for={id("default-role")}>Default role</label>
      <select id={id("default-role")} value={defaultRole} onChange={set("defaultRole")} required>
        {defaultRole === "" && <option value="">choose a role</option>}
        {roles.map((r) => (
          <option key={r.uid} value={r.uid}>
            {r.name}
          </option>
        ))}
        {defaultRole !== "" && !props.roles.has(defaultRole) && <option value={defaultRole}>{defaultRole}</option>}
      </select>
      <button type="submit" class="primary" disabled={busy}>
        {props.submit}
      </button>
    </form>
  );
}
