/**
 * The audit log under a group: who changed what and when, newest first, a page at a time,
 * filtered by method, actor, resource and time (since, before). The filters are the URL's query,
 * so a filtered view can be shared. The API shows only events under groups where the caller holds
 * audit.read.
 */
import { useEffect, useState } from "preact/hooks";
import { api, problemOf, type ArborClient, type Problem } from "../api.js";
import { FilterField, FilterForm } from "../lists.js";
import { Empty, Link, Loading, ProblemBox } from "../ui.js";

const PAGE_SIZE = 50;

type AuditEvent = Awaited<ReturnType<ArborClient["audit"]["v1beta1"]["audit"]["getAuditEvent"]>>;

const FILTERS = [
  { id: "method", label: "Method", placeholder: "arbor.iam.v2beta1.GroupsService/UpdateGroup" },
  { id: "actor", label: "Actor uid", placeholder: "" },
  { id: "resource", label: "Resource uid", placeholder: "" },
  { id: "since", label: "Since (UTC)", placeholder: "2026-01-02 or 2026-01-02T03:04:05Z" },
  { id: "before", label: "Before (UTC)", placeholder: "2026-01-03T00:00Z" },
] as const;

/**
 * A time of the filter as the API takes it: a date (midnight UTC) or a date and time, in UTC
 * unless the text names its zone; undefined for an empty text, null for one that is no time.
 */
export function parseTime(text: string): { seconds: bigint; nanos: number } | undefined | null {
  const t = text.trim();
  if (t === "") return undefined;
  if (!/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?)?$/i.test(t)) return null;
  const zoned = t.length === 10 || /(Z|[+-]\d{2}:\d{2})$/i.test(t) ? t : `${t}Z`;
  const ms = Date.parse(zoned.replace(" ", "T"));
  if (!Number.isFinite(ms)) return null;
  return { seconds: BigInt(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1e6 };
}

export function AuditView({ group, query }: { group: string; query: URLSearchParams }) {
  const method = query.get("method") ?? "";
  const actor = query.get("actor") ?? "";
  const resource = query.get("resource") ?? "";
  const since = query.get("since") ?? "";
  const before = query.get("before") ?? "";
  const [events, setEvents] = useState<AuditEvent[]>();
  const [total, setTotal] = useState<bigint>();
  const [next, setNext] = useState<string>();
  const [problem, setProblem] = useState<Problem>();

  const load = (token?: string) => {
    const createdSince = parseTime(since);
    const createdBefore = parseTime(before);
    // A time that is no time is said here, with its field, rather than sent.
    if (createdSince === null || createdBefore === null) {
      const field = createdSince === null ? "since" : "before";
      setEvents([]);
      setProblem({ message: `${field}: not a date or time (2026-01-02, 2026-01-02T03:04:05Z)`, field, violations: [], code: "3" });
      return Promise.resolve();
    }
    return api.audit.v1beta1.audit
      .listAuditEvents({
        uidp: { descendantsOf: group },
        method,
        actorUid: actor,
        resourceUid: resource,
        ...(createdSince && { createdSince }),
        ...(createdBefore && { createdBefore }),
        pageSize: PAGE_SIZE,
        pageToken: token ?? "",
      })
      .then((r) => {
        setEvents((before) => [...(token ? (before ?? []) : []), ...r.events]);
        setNext(r.nextPageToken || undefined);
        setTotal(r.totalCount);
      })
      .catch((e: unknown) => setProblem(problemOf(e)));
  };
  useEffect(() => {
    setEvents(undefined);
    setProblem(undefined);
    void load();
  }, [group, method, actor, resource, since, before]);

  return (
    <section aria-labelledby="audit-title">
      <h1 id="audit-title">Audit log</h1>
      <p class="muted">
        Changes under <Link to={`/groups/${group}`}>{group}</Link>, newest first
      </p>
      <FilterForm
        key={query.toString()}
        label="Filter the audit log"
        path={`/audit/${group}`}
        fields={FILTERS.map((f) => f.id)}
        submit="Filter"
      >
        {FILTERS.map((f) => (
          <FilterField key={f.id} name={f.id} label={f.label} query={query} placeholder={f.placeholder} />
        ))}
      </FilterForm>
      <ProblemBox problem={problem} />
      {events === undefined && problem === undefined && <Loading what="the audit log" />}
      {events?.length === 0 && <Empty>No change matches.</Empty>}
      {events !== undefined && events.length > 0 && (
        <>
          <p class="muted small" role="status">
            {String(total ?? "")} events
          </p>
          <table>
            <caption class="visually-hidden">Audit events</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">What</th>
                <th scope="col">Resource</th>
              </tr>
            </thead>
            <tbody>
              {events.map((e) => (
                <tr key={e.uid} data-testid="audit-event">
                  <td>{e.createTime ? new Date(Number(e.createTime.seconds) * 1000).toISOString() : ""}</td>
                  <td>
                    <Link to={`/identity?uid=${encodeURIComponent(e.actor?.uid ?? "")}`}>{e.actor?.uid.slice(-16)}</Link>
                    {e.actor?.upstreamSubject && <span class="muted small"> ({e.actor.upstreamSubject})</span>}
                  </td>
                  <td>
                    <code>{e.method.split("/").pop()}</code>
                  </td>
                  <td>
                    <details>
                      <summary>
                        {e.resourceType.split(".").pop()} <code>{e.resourceUid.slice(-16)}</code>
                      </summary>
                      <pre>{JSON.stringify({ before: e.before, after: e.after }, null, 2)}</pre>
                    </details>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      {next && (
        <button type="button" onClick={() => void load(next)}>
          Load more
        </button>
      )}
    </section>
  );
}
