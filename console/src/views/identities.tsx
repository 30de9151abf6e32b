/**
 * A group's identities: the list (a page at a time), and a new one made from a preset of the
 * common workload issuers, with the claim match the preset produces shown before it is created.
 */
import { useEffect, useState } from "preact/hooks";
import { api, problemOf, type Identity, type Problem } from "../api.js";
import { PRESETS, relationshipJson, type Relationship } from "../presets.js";
import { Empty, Link, Loading, ProblemBox } from "../ui.js";

const PAGE_SIZE = 50;

/** How an identity recognises tokens, in a line. */
export function describeRelationship(i: Identity): string {
  const r = i.relationship;
  if (r.case === "claimMatch") {
    const iss = r.value.iss.case === undefined ? "" : r.value.iss.value;
    const sub = r.value.sub.case === "subjectPattern" ? `~ ${r.value.sub.value}` : (r.value.sub.value ?? "");
    return `${iss} · ${sub}`;
  }
  if (r.case === "staticKeys") return `${r.value.issuer} · ${r.value.subject} (static keys)`;
  return "a person";
}

function toApi(r: Relationship) {
  if (r.kind === "staticKeys")
    return { case: "staticKeys" as const, value: { issuer: r.issuer, subject: r.subject, issuerKeys: r.issuerKeys } };
  return {
    case: "claimMatch" as const,
    value: {
      iss: { case: "issuer" as const, value: r.issuer },
      sub:
        r.subjectPattern !== undefined
          ? { case: "subjectPattern" as const, value: r.subjectPattern }
          : { case: "subject" as const, value: r.subject ?? "" },
      ...(r.audience !== undefined && { aud: { case: "audience" as const, value: r.audience } }),
    },
  };
}

export function IdentitiesView({ group }: { group: string }) {
  const [items, setItems] = useState<Identity[]>();
  const [next, setNext] = useState<string>();
  const [problem, setProblem] = useState<Problem>();
  const load = (token?: string) =>
    api.iam.v2beta1.identities
      .listIdentities({ uidp: { childrenOf: group }, pageSize: PAGE_SIZE, pageToken: token ?? "", orderBy: "name" })
      .then((r) => {
        setItems((before) => [...(token ? (before ?? []) : []), ...r.identities]);
        setNext(r.nextPageToken || undefined);
      })
      .catch((e: unknown) => setProblem(problemOf(e)));
  useEffect(() => void load(), [group]);
  return (
    <section aria-labelledby="identities-title">
      <h1 id="identities-title">Identities</h1>
      <p class="muted">
        In group <Link to={`/groups/${group}`}>{group}</Link>
      </p>
      <ProblemBox problem={problem} />
      {items === undefined && problem === undefined && <Loading what="identities" />}
      {items?.length === 0 && <Empty>No identity in this group yet.</Empty>}
      {items !== undefined && items.length > 0 && (
        <table>
          <caption class="visually-hidden">Identities of the group</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Recognises</th>
            </tr>
          </thead>
          <tbody>
            {items.map((i) => (
              <tr key={i.uid}>
                <td>
                  <Link to={`/identity?uid=${encodeURIComponent(i.uid)}`}>{i.name}</Link>
                </td>
                <td>
                  <code>{describeRelationship(i)}</code>
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
      <CreateIdentity group={group} onCreated={() => void load()} />
    </section>
  );
}

function CreateIdentity({ group, onCreated }: { group: string; onCreated: () => void }) {
  const [presetId, setPresetId] = useState("github");
  const preset = PRESETS.find((p) => p.id === presetId) ?? PRESETS[0]!;
  const initial = () => Object.fromEntries(preset.fields.map((f) => [f.id, f.initial ?? ""]));
  const [values, setValues] = useState<Record<string, string>>(initial);
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const [problem, setProblem] = useState<Problem>();
  const [notice, setNotice] = useState<string>();
  useEffect(() => setValues(initial()), [presetId]);
  const relationship = preset.build(values);
  return (
    <form
      aria-labelledby="new-identity-title"
      class="panel"
      onSubmit={(e) => {
        e.preventDefault();
        if (relationship === undefined) return;
        setProblem(undefined);
        setNotice(undefined);
        api.iam.v2beta1.identities
          .createIdentity({ parent: group, identity: { name, description, relationship: toApi(relationship) } })
          .then((created) => {
            setNotice(`Created ${created.name}.`);
            setName("");
            setDescription("");
            onCreated();
          })
          .catch((err: unknown) => setProblem(problemOf(err)));
      }}
    >
      <h2 id="new-identity-title">New identity</h2>
      <label for="identity-name">Name</label>
      <input id="identity-name" value={name} onInput={(e) => setName(e.currentTarget.value)} required />
      <label for="identity-description">Description</label>
      <input id="identity-description" value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
      <label for="preset">Workload</label>
      <select id="preset" value={presetId} onChange={(e) => setPresetId(e.currentTarget.value)}>
        {PRESETS.map((p) => (
          <option key={p.id} value={p.id}>
            {p.label}
          </option>
        ))}
      </select>
      {preset.fields.map((f) => {
        const id = `preset-${f.id}`;
        const set = (value: string) => setValues((before) => ({ ...before, [f.id]: value }));
        return (
          <div key={`${preset.id}-${f.id}`}>
            <label for={id}>{f.label}</label>
            {f.options ? (
              <select id={id} value={values[f.id] ?? ""} onChange={(e) => set(e.currentTarget.value)}>
                {f.options.map((o) => (
                  <option key={o.value} value={o.value}>
                    {o.label}
                  </option>
                ))}
              </select>
            ) : f.multiline ? (
              <textarea id={id} rows={4} value={values[f.id] ?? ""} onInput={(e) => set(e.currentTarget.value)} />
            ) : (
              <input
                id={id}
                value={values[f.id] ?? ""}
                placeholder={f.placeholder}
                aria-describedby={f.hint ? `${id}-hint` : undefined}
                onInput={(e) => set(e.currentTarget.value)}
              />
            )}
            {f.hint && (
              <p id={`${id}-hint`} class="muted small hint">
                {f.hint}
              </p>
            )}
          </div>
        );
      })}
      <p class="label">The claim match this makes</p>
      <pre data-testid="claim-match" aria-live="polite">
        {relationship === undefined ? "(fill in the fields above)" : JSON.stringify(relationshipJson(relationship), null, 2)}
      </pre>
      <ProblemBox problem={problem} />
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      <button type="submit" class="primary" disabled={relationship === undefined}>
        Create identity
      </button>
    </form>
  );
}

/** One identity and the exchange tester: paste an upstream token, see each check. */
export function IdentityView({ uid }: { uid: string }) {
  const [identity, setIdentity] = useState<Identity>();
  const [problem, setProblem] = useState<Problem>();
  useEffect(() => {
    api.iam.v2beta1.identities
      .getIdentity({ uid })
      .then(setIdentity)
      .catch((e: unknown) => setProblem(problemOf(e)));
  }, [uid]);
  const group = uid.slice(0, uid.lastIndexOf("/"));
  if (identity === undefined) return problem ? <ProblemBox problem={problem} /> : <Loading what="the identity" />;
  return (
    <section aria-labelledby="identity-title">
      <h1 id="identity-title">{identity.name}</h1>
      <dl class="facts">
        <dt>uid</dt>
        <dd>
          <code>{identity.uid}</code>
        </dd>
        <dt>Group</dt>
        <dd>{group ? <Link to={`/identities/${group}`}>{group}</Link> : <span class="muted">a person (root level)</span>}</dd>
        <dt>Recognises</dt>
        <dd>
          <code>{describeRelationship(identity)}</code>
        </dd>
        <dt>Last seen</dt>
        <dd>{identity.lastSeenTime ? new Date(Number(identity.lastSeenTime.seconds) * 1000).toISOString() : "never"}</dd>
        <dt>Access</dt>
        <dd>
          <Link to={`/effective-access?uid=${encodeURIComponent(identity.uid)}`}>Effective access of {identity.name}</Link>
        </dd>
      </dl>
      {group && <ExchangeTester uid={uid} />}
    </section>
  );
}

type Check = { check: string; passed: boolean; reason: string };

function ExchangeTester({ uid }: { uid: string }) {
  // The token lives in this form's state only: sent once to ExplainExchange, never stored.
  const [token, setToken] = useState("");
  const [aud, setAud] = useState("");
  const [result, setResult] = useState<{ checks: Check[]; wouldIssue: boolean }>();
  const [problem, setProblem] = useState<Problem>();
  const [busy, setBusy] = useState(false);
  return (
    <form
      class="panel"
      aria-labelledby="tester-title"
      onSubmit={(e) => {
        e.preventDefault();
        setBusy(true);
        setProblem(undefined);
        setResult(undefined);
        api.iam.v2beta1.identities
          .explainExchange({ uid, token: token.trim(), audience: aud.trim() })
          .then((r) =>
            setResult({ checks: r.checks.map((c) => ({ check: c.check, passed: c.passed, reason: c.reason })), wouldIssue: r.wouldIssue }),
          )
          .catch((err: unknown) => setProblem(problemOf(err)))
          .finally(() => setBusy(false));
      }}
    >
      <h2 id="tester-title">Exchange tester</h2>
      <p class="muted">
        Paste a token the workload would present: Arbor runs the exchange's checks and issues nothing. The token is not stored.
      </p>
      <label for="upstream-token">Upstream token</label>
      <textarea
        id="upstream-token"
        rows={4}
        autoComplete="off"
        spellcheck={false}
        value={token}
        onInput={(e) => setToken(e.currentTarget.value)}
        required
      />
      <label for="requested-audience">Requested audience (optional)</label>
      <input id="requested-audience" value={aud} onInput={(e) => setAud(e.currentTarget.value)} />
      <button type="submit" class="primary" disabled={busy}>
        Explain
      </button>
      <ProblemBox problem={problem} />
      {result && (
        <div aria-live="polite">
          <p class={result.wouldIssue ? "notice" : "problem-text"} data-testid="verdict">
            {result.wouldIssue ? "The exchange would issue a token." : "The exchange would be refused."}
          </p>
          <table>
            <caption class="visually-hidden">Checks of the exchange</caption>
            <thead>
              <tr>
                <th scope="col">Check</th>
                <th scope="col">Result</th>
                <th scope="col">Reason</th>
              </tr>
            </thead>
            <tbody>
              {result.checks.map((c) => (
                <tr key={c.check} data-testid={`check-${c.check}`}>
                  <td>
                    <code>{c.check}</code>
                  </td>
                  <td>{c.passed ? "✓ passed" : "✗ failed"}</td>
                  <td>{c.reason}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </form>
  );
}
