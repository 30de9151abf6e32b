/**
 * The roles of a group (`/roles/<group uid>`): the built-in roles (read-only), the group's custom
 * roles a page at a time, a new custom role, and one edited (`?edit=<role uid>`) or deleted. The
 * capability picker groups the catalogue by resource; a capability the signed-in person does not
 * hold at the group is disabled with the reason, since the API refuses handing out what the
 * caller does not hold (one already in the role stays free to take away).
 */
import { useEffect, useState } from "preact/hooks";
import { CAPABILITIES, Capability, capabilityName } from "../../../src/client/index.js";
import { api, problemOf, type Problem, type Role } from "../api.js";
import { currentSession } from "../auth.js";
import { actionOf, byResource, CapabilityList } from "../capabilities.js";
import { PAGE, PAGE_SIZE, Pager, When, usePage, withQuery } from "../lists.js";
import { listRoles, powersAt, type Powers } from "../powers.js";
import { navigate } from "../router.js";
import { Empty, Link, Loading, ProblemBox } from "../ui.js";

/** The signed-in person's powers at group, or a problem. */
function usePowers(group: string): Powers | undefined {
  const [powers, setPowers] = useState<Powers>();
  useEffect(() => {
    setPowers(undefined);
    listRoles()
      .then((all) => powersAt(currentSession()?.identity ?? "", group, all))
      .then(setPowers)
      .catch(() => setPowers({ capabilities: new Set(), roleNames: [] }));
  }, [group]);
  return powers;
}

function yourRoles(powers: Powers): string {
  return powers.roleNames.length === 0 ? "you hold no role here" : `your roles here: ${powers.roleNames.join(", ")}`;
}

export function RolesView({ group, query }: { group: string; query: URLSearchParams }) {
  const path = `/roles/${group}`;
  const editing = query.get("edit") ?? "";
  const powers = usePowers(group);
  const [builtIn, setBuiltIn] = useState<Role[]>();
  useEffect(() => {
    api.iam.v2beta1.roles
      .listRoles({ uidp: { inRoot: true }, pageSize: 50 })
      .then((r) => setBuiltIn(r.roles))
      .catch(() => setBuiltIn([]));
  }, []);
  const page = usePage<Role>(
    `${group}?${query.get(PAGE) ?? ""}`,
    async (pageToken) => {
      const r = await api.iam.v2beta1.roles.listRoles({ uidp: { childrenOf: group }, pageSize: PAGE_SIZE, pageToken, orderBy: "name" });
      return { items: r.roles, next: r.nextPageToken, total: r.totalCount };
    },
    query.get(PAGE) ?? "",
  );
  const listQuery = new URLSearchParams(query);
  listQuery.delete("edit");
  const back = withQuery(path, listQuery);
  const whyNotCreate =
    powers === undefined
      ? "checking what you may do…"
      : powers.capabilities.has(Capability.CAP_IAM_ROLES_CREATE)
        ? undefined
        : `you may not create roles here (${yourRoles(powers)} without roles.create)`;
  return (
    <section aria-labelledby="roles-title">
      <h1 id="roles-title">Roles</h1>
      <p class="muted">
        The custom roles of <Link to={`/groups/${group}`}>{group}</Link>, which can be bound there and below, and the built-in roles, which
        can be bound anywhere.
      </p>
      <h2>Custom roles</h2>
      <ProblemBox problem={page.problem} />
      {page.items === undefined && <Loading what="roles" />}
      {page.items?.length === 0 && page.problem === undefined && <Empty>No custom role in this group.</Empty>}
      {page.items !== undefined && page.items.length > 0 && (
        <table aria-label="Custom roles">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Capabilities</th>
              <th scope="col">Updated</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {page.items.map((r) => (
              <tr key={r.uid} aria-current={r.uid === editing ? "true" : undefined}>
                <td>
                  <strong>{r.name}</strong>
                  {r.description && <div class="muted small">{r.description}</div>}
                </td>
                <td>
                  <CapabilityList caps={r.capabilities} label={`Capabilities of ${r.name}`} />
                </td>
                <td>
                  <When time={r.updateTime} />
                </td>
                <td>
                  <Link to={withQuery(path, { ...Object.fromEntries(listQuery), edit: r.uid })}>Edit {r.name}</Link>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {page.items !== undefined && <Pager path={path} query={listQuery} next={page.next} total={page.total} shown={page.items.length} />}
      {editing ? (
        <EditRole key={editing} uid={editing} powers={powers} back={back} onChanged={page.reload} />
      ) : (
        <RoleForm
          key="new"
          title="New custom role"
          submit="Create role"
          powers={powers}
          whyNot={whyNotCreate}
          onSubmit={async (fields) => {
            const created = await api.iam.v2beta1.roles.createRole({ parent: group, role: fields });
            page.reload();
            return `Created ${created.name}.`;
          }}
        />
      )}
      <h2>Built-in roles</h2>
      <p class="muted small">Built-in roles are the same everywhere and cannot be changed or deleted.</p>
      {builtIn === undefined && <Loading what="the built-in roles" />}
      {builtIn !== undefined && (
        <table aria-label="Built-in roles">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Capabilities</th>
            </tr>
          </thead>
          <tbody>
            {builtIn.map((r) => (
              <tr key={r.uid}>
                <td>
                  <strong>{r.name}</strong> <span class="builtin">built-in, read-only</span>
                  <div class="muted small">{r.description}</div>
                </td>
                <td>
                  <details>
                    <summary>{r.capabilities.length} capabilities</summary>
                    <CapabilityList caps={r.capabilities} label={`Capabilities of ${r.name}`} />
                  </details>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function EditRole(props: { uid: string; powers: Powers | undefined; back: string; onChanged: () => void }) {
  const [role, setRole] = useState<Role>();
  const [problem, setProblem] = useState<Problem>();
  const [confirming, setConfirming] = useState(false);
  useEffect(() => {
    api.iam.v2beta1.roles
      .getRole({ uid: props.uid })
      .then(setRole)
      .catch((e: unknown) => setProblem(problemOf(e)));
  }, [props.uid]);
  if (role === undefined) return problem ? <ProblemBox problem={problem} /> : <Loading what="the role" />;
  const { powers } = props;
  const whyNotUpdate =
    powers === undefined
      ? "checking what you may do…"
      : powers.capabilities.has(Capability.CAP_IAM_ROLES_UPDATE)
        ? undefined
        : `you may not change roles here (${yourRoles(powers)} without roles.update)`;
  const whyNotDelete =
    powers === undefined || powers.capabilities.has(Capability.CAP_IAM_ROLES_DELETE)
      ? undefined
      : `you may not delete roles here (${yourRoles(powers)} without roles.delete)`;
  return (
    <div>
      <RoleForm
        title={`Edit ${role.name}`}
        submit="Save"
        editing
        powers={powers}
        whyNot={whyNotUpdate}
        initial={{ name: role.name, description: role.description, capabilities: role.capabilities }}
        onSubmit={async (fields) => {
          const updated = await api.iam.v2beta1.roles.updateRole({
            role: { uid: role.uid, ...fields },
            updateMask: { paths: ["name", "description", "capabilities"] },
          });
          setRole(updated);
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
          <button
            type="button"
            disabled={whyNotDelete !== undefined}
            aria-describedby={whyNotDelete ? "role-delete-why" : undefined}
            onClick={() => setConfirming(true)}
          >
            Delete {role.name}…
          </button>
        ) : (
          <p>
            Delete {role.name}? A role that is still bound cannot be deleted.{" "}
            <button
              type="button"
              class="destructive"
              onClick={() => {
                setConfirming(false);
                setProblem(undefined);
                api.iam.v2beta1.roles
                  .deleteRole({ uid: role.uid })
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
        {whyNotDelete && (
          <p id="role-delete-why" class="muted small">
            Deleting is disabled: {whyNotDelete}.
          </p>
        )}
      </div>
    </div>
  );
}

interface Fields {
  name: string;
  description: string;
  capabilities: Capability[];
}

function RoleForm(props: {
  title: string;
  submit: string;
  editing?: boolean;
  powers: Powers | undefined;
  /** Why the whole form is disabled, if it is. */
  whyNot: string | undefined;
  initial?: Fields;
  onSubmit: (fields: Fields) => Promise<string>;
}) {
  const initial = props.initial ?? { name: "", description: "", capabilities: [] };
  const [fields, setFields] = useState<Fields>(initial);
  const [problem, setProblem] = useState<Problem>();
  const [notice, setNotice] = useState<string>();
  const [busy, setBusy] = useState(false);
  const id = (name: string) => `role-${props.editing ? "edit" : "new"}-${name}`;
  const chosen = new Set(fields.capabilities);
  const had = new Set(initial.capabilities);
  const { powers } = props;
  /** Why a capability cannot be added (undefined: it can). */
  const whyNotAdd = (cap: Capability): string | undefined => {
    if (had.has(cap) || powers === undefined || powers.capabilities.has(cap)) return undefined;
    return `you do not hold ${capabilityName(cap)} here`;
  };
  const toggle = (cap: Capability, on: boolean) =>
    setFields((f) => ({ ...f, capabilities: on ? [...f.capabilities, cap] : f.capabilities.filter((c) => c !== cap) }));
  const disabled = props.whyNot !== undefined;
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
          .onSubmit(fields)
          .then((message) => {
            setNotice(message);
            if (!props.editing) setFields(initial);
          })
          .catch((err: unknown) => setProblem(problemOf(err)))
          .finally(() => setBusy(false));
      }}
    >
      <h2 id={id("title")}>{props.title}</h2>
      {props.whyNot && (
        <p class="problem-text" id={id("why")}>
          {props.whyNot}.
        </p>
      )}
      <ProblemBox problem={problem} />
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      <fieldset class="plain" disabled={disabled} aria-describedby={disabled ? id("why") : undefined}>
        <label for={id("name")}>Name</label>
        <input
          id={id("name")}
          value={fields.name}
          onInput={(e) => {
            const value = e.currentTarget.value;
            setFields((f) => ({ ...f, name: value }));
          }}
          required
          aria-describedby={id("name-hint")}
        />
        <small id={id("name-hint")} class="muted">
          Lower-case letters, digits, spaces, dots, dashes and underscores.
        </small>
        <label for={id("description")}>Description</label>
        <input
          id={id("description")}
          value={fields.description}
          onInput={(e) => {
            const value = e.currentTarget.value;
            setFields((f) => ({ ...f, description: value }));
          }}
        />
        <div class="picker" role="group" aria-label="Capabilities">
          <p class="label">Capabilities ({chosen.size} chosen)</p>
          {powers !== undefined && CAPABILITIES.some((c) => whyNotAdd(c) !== undefined) && (
            <p class="muted small" id={id("picker-why")}>
              A role can only hand out what you hold here yourself ({yourRoles(powers)}): the others are disabled.
            </p>
          )}
          {byResource().map(([resource, caps]) => (
            <fieldset key={resource} class="resource">
              <legend>{resource}</legend>
              {caps.map((cap) => {
                const why = whyNotAdd(cap);
                const capId = id(`cap-${capabilityName(cap)}`.replace(/\./g, "-"));
                return (
                  <div key={cap} class="choice">
                    <input
                      type="checkbox"
                      id={capId}
                      checked={chosen.has(cap)}
                      disabled={why !== undefined}
                      aria-describedby={why ? `${capId}-why` : undefined}
                      onChange={(e) => toggle(cap, e.currentTarget.checked)}
                    />
                    <label for={capId}>
                      {actionOf(cap)} <span class="visually-hidden">({capabilityName(cap)})</span>
                    </label>
                    {why && (
                      <span id={`${capId}-why`} class="muted small" data-testid={`why-${capabilityName(cap)}`}>
                        Not available: {why}
                      </span>
                    )}
                  </div>
                );
              })}
            </fieldset>
          ))}
        </div>
        <button type="submit" class="primary" disabled={busy || disabled}>
          {props.submit}
        </button>
      </fieldset>
    </form>
  );
}
