/**
 * The audit log of an organization (`/audit/<org uid>`): who changed what and when, newest first,
 * a page at a time, filtered as the audit API filters (the group the changes were made in and
 * below, actor, resource, method, a time window), the filters and page token in the URL. Only
 * holders of audit.read see events; whether the person holds it on the group is asked of the API
 * itself (GetAuditEvent of an event that cannot exist answers PERMISSION_DENIED without it, and
 * NOT_FOUND with it), so a refusal is the API's, explained, rather than an empty list.
 */
import { useEffect, useState } from "preact/hooks";
import { Code } from "../../../src/client/index.js";
import { api, problemOf, type Problem } from "../api.js";
import { FilterField, FilterForm, PAGE, PAGE_SIZE, Pager, When, usePage, withQuery } from "../lists.js";
import { Empty, Link, Loading, ProblemBox } from "../ui.js";

type AuditEvent = Awaited<ReturnType<typeof api.audit.v1beta1.audit.getAuditEvent>>;

/** The filters of the view, by query parameter. */
const FIELDS = ["group", "actor", "resource", "method", "since", "before"];

/** A time typed in a filter (`2026-01-02`, `2026-01-02T03:04:05Z`) as a timestamp; undefined when empty. */
function timeOf(text: string, field: string): { seconds: bigint; nanos: number } | undefined {
  if (text === "") return undefined;
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) throw new Error(`${field}: "${text}" is not a time (write 2026-01-02 or 2026-01-02T03:04:05Z)`);
  return { seconds: BigInt(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1e6 };
}

/** Whether the person may read the audit log of group: the API's refusal when not. */
function useAuditRefusal(group: string): Problem | undefined {
  const [refusal, setRefusal] = useState<Problem>();
  useEffect(() => {
    setRefusal(undefined);
    api.audit.v1beta1.audit.getAuditEvent({ uid: `${group}/0000000000000000` }).catch((e: unknown) => {
      const p = problemOf(e);
      if (p.code === String(Code.PermissionDenied)) setRefusal(p);
    });
  }, [group]);
  return refusal;
}

export function AuditView({ org, query }: { org: string; query: URLSearchParams }) {
  const path = `/audit/${org}`;
  const group = query.get("group") || org;
  const refusal = useAuditRefusal(group);
  const page = usePage<AuditEvent>(
    `${org}?${query.toString()}`,
    async (pageToken) => {
      const createdSince = timeOf(query.get("since") ?? "", "Since");
      const createdBefore = timeOf(query.get("before") ?? "", "Before");
      const r = await api.audit.v1beta1.audit.listAuditEvents({
        // The group's own events and those of every group below it.
        uidp: { descendantsOf: group },
        actorUid: query.get("actor") ?? "",
        resourceUid: query.get("resource") ?? "",
        method: query.get("method") ?? "",
        ...(createdSince && { createdSince }),
        ...(createdBefore && { createdBefore }),
        pageSize: PAGE_SIZE,
        pageToken,
      });
      return { items: r.events, next: r.nextPageToken, total: r.totalCount };
    },
    query.get(PAGE) ?? "",
  );
  const filtered = FIELDS.some((f) => query.has(f));
  return (
    <section aria-labelledby="audit-title">
      <h1 id="audit-title">Audit log</h1>
      <p class="muted">
        Every change made through the API under <code>{group}</code>: who made it, when, and the resource before and after. Newest first.
      </p>
      {refusal && (
        <div data-testid="audit-refusal">
          <ProblemBox problem={refusal} />
          <p>
            Reading the audit log takes the <code>audit.read</code> capability on the group (owners hold it). You do not hold it on{" "}
            <code>{group}</code>, so the API shows you none of its events; ask an owner of the organization.
          </p>
        </div>
      )}
      <FilterForm key={query.toString()} label="Filter the audit log" path={path} fields={FIELDS}>
        <FilterField name="group" label="Group" query={query} placeholder={org} hint="Events in this group and below (uid)." />
        <FilterField name="actor" label="Actor" query={query} hint="The identity uid that made the changes." />
        <FilterField name="resource" label="Resource" query={query} hint="The uid of the resource changed." />
        <FilterField
          name="method"
          label="Method"
          query={query}
          placeholder="arbor.iam.v2beta1.GroupsService/DeleteGroup"
          hint="The RPC called."
        />
        <FilterField name="since" label="Since" query={query} placeholder="2026-01-02" hint="At or after this time (UTC)." />
        <FilterField name="before" label="Before" query={query} placeholder="2026-01-03T00:00:00Z" hint="Before this time (UTC)." />
      </FilterForm>
      <ProblemBox problem={page.problem} />
      {page.items === undefined && <Loading what="the audit log" />}
      {page.items?.length === 0 && page.problem === undefined && (
        <Empty>{filtered ? "No events match these filters." : "No events you may read under this group."}</Empty>
      )}
      {page.items !== undefined && page.items.length > 0 && (
        <table aria-label="Audit events">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Who</th>
              <th scope="col">What</th>
              <th scope="col">Resource</th>
            </tr>
          </thead>
          <tbody>
            {page.items.map((e) => (
              <EventRow key={e.uid} event={e} path={path} query={query} />
            ))}
          </tbody>
        </table>
      )}
      {page.items !== undefined && <Pager path={path} query={query} next={page.next} total={page.total} shown={page.items.length} />}
    </section>
  );
}

function EventRow({ event, path, query }: { event: AuditEvent; path: string; query: URLSearchParams }) {
  const filter = (name: string, value: string) => {
    const q = new URLSearchParams(query);
    q.delete(PAGE);
    q.set(name, value);
    return withQuery(path, q);
  };
  const actor = event.actor;
  const method = event.method.split("/").pop() ?? event.method;
  return (
    <tr>
      <td>
        <When time={event.createTime} />
      </td>
      <td>
        {actor && (
          <>
            <Link to={filter("actor", actor.uid)}>
              <code>{actor.uid}</code>
            </Link>
            {actor.upstreamIssuer && (
              <div class="muted small">
                as <code>{actor.upstreamSubject}</code> of <code>{actor.upstreamIssuer}</code>
              </div>
            )}
          </>
        )}
      </td>
      <td>
        <strong>{event.action}</strong>{" "}
        <Link to={filter("method", event.method)}>
          <code title={event.method}>{method}</code>
        </Link>
      </td>
      <td>
        <div class="muted small">{event.resourceType}</div>
        <Link to={filter("resource", event.resourceUid)}>
          <code>{event.resourceUid}</code>
        </Link>
        {(event.before || event.after) && (
          <details>
            <summary>Before and after</summary>
            {event.before && (
              <>
                <h3 class="small">Before</h3>
                <pre class="json">{JSON.stringify(event.before, null, 2)}</pre>
              </>
            )}
            {event.after && (
              <>
                <h3 class="small">After</h3>
                <pre class="json">{JSON.stringify(event.after, null, 2)}</pre>
              </>
            )}
          </details>
        )}
      </td>
    </tr>
  );
}
