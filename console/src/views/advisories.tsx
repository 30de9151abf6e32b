/**
 * Advisories (OSV): search with the API's filters (text, ecosystem, package, modified since), a
 * page at a time, and one advisory in full with its affected packages and version ranges. The
 * filters are the URL's query, so a search can be shared.
 */
import { useEffect, useState } from "preact/hooks";
import { api, problemOf, type ArborClient, type Problem } from "../api.js";
import { FilterField, FilterForm } from "../lists.js";
import { Empty, Link, Loading, ProblemBox } from "../ui.js";

const PAGE_SIZE = 50;

type Advisory = Awaited<ReturnType<ArborClient["vulnerabilities"]["v2beta1"]["advisories"]["getAdvisory"]>>;

const FILTERS = [
  { id: "q", label: "Text", placeholder: "id, alias, package or summary" },
  { id: "ecosystem", label: "Ecosystem", placeholder: "npm, PyPI, Go, Debian:12…" },
  { id: "package", label: "Package", placeholder: "exact name" },
  { id: "since", label: "Modified since", placeholder: "2024-01-01" },
] as const;

const date = (t: { seconds: bigint } | undefined) => (t ? new Date(Number(t.seconds) * 1000).toISOString().slice(0, 10) : "");

export function AdvisoriesView({ query }: { query: URLSearchParams }) {
  const q = Object.fromEntries(FILTERS.map((f) => [f.id, query.get(f.id) ?? ""])) as Record<(typeof FILTERS)[number]["id"], string>;
  const [items, setItems] = useState<Advisory[]>();
  const [total, setTotal] = useState<bigint>();
  const [next, setNext] = useState<string>();
  const [problem, setProblem] = useState<Problem>();
  const since = q.since ? Date.parse(q.since) : NaN;
  const load = (token?: string) =>
    api.vulnerabilities.v2beta1.advisories
      .listAdvisories({
        query: q.q,
        ecosystem: q.ecosystem,
        packageName: q.package,
        ...(Number.isFinite(since) && { modifiedSince: { seconds: BigInt(Math.floor(since / 1000)) } }),
        pageSize: PAGE_SIZE,
        pageToken: token ?? "",
      })
      .then((r) => {
        setItems((before) => [...(token ? (before ?? []) : []), ...r.advisories]);
        setNext(r.nextPageToken || undefined);
        setTotal(r.totalCount);
      })
      .catch((e: unknown) => setProblem(problemOf(e)));
  const key = query.toString();
  useEffect(() => {
    setItems(undefined);
    setProblem(undefined);
    void load();
  }, [key]);
  return (
    <section aria-labelledby="advisories-title">
      <h1 id="advisories-title">Advisories</h1>
      <FilterForm key={key} label="Search advisories" path="/advisories" fields={FILTERS.map((f) => f.id)} submit="Search">
        {FILTERS.map((f) => (
          <FilterField key={f.id} name={f.id} label={f.label} query={query} placeholder={f.placeholder} />
        ))}
      </FilterForm>
      <ProblemBox problem={problem} />
      {items === undefined && problem === undefined && <Loading what="advisories" />}
      {items?.length === 0 && <Empty>No advisory matches.</Empty>}
      {items !== undefined && items.length > 0 && (
        <>
          <p class="muted small" role="status">
            {String(total ?? "")} advisories
          </p>
          <table>
            <caption class="visually-hidden">Advisories</caption>
            <thead>
              <tr>
                <th scope="col">Id</th>
                <th scope="col">Summary</th>
                <th scope="col">Packages</th>
                <th scope="col">Modified</th>
              </tr>
            </thead>
            <tbody>
              {items.map((a) => (
                <tr key={a.uid} data-testid="advisory">
                  <td>
                    <Link to={`/advisory?id=${encodeURIComponent(a.uid)}`}>{a.uid}</Link>
                  </td>
                  <td>{a.summary}</td>
                  <td>{[...new Set(a.affected.map((x) => `${x.ecosystem}/${x.name}`))].join(", ")}</td>
                  <td>{date(a.modifiedTime)}</td>
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

export function AdvisoryView({ id }: { id: string }) {
  const [advisory, setAdvisory] = useState<Advisory>();
  const [problem, setProblem] = useState<Problem>();
  useEffect(() => {
    api.vulnerabilities.v2beta1.advisories
      .getAdvisory({ uid: id })
      .then(setAdvisory)
      .catch((e: unknown) => setProblem(problemOf(e)));
  }, [id]);
  if (advisory === undefined) return problem ? <ProblemBox problem={problem} /> : <Loading what="the advisory" />;
  const a = advisory;
  return (
    <section aria-labelledby="advisory-title">
      <h1 id="advisory-title">{a.uid}</h1>
      <p>{a.summary}</p>
      <dl class="facts">
        <dt>Aliases</dt>
        <dd>{a.aliases.join(", ") || <span class="muted">none</span>}</dd>
        <dt>Published</dt>
        <dd>{date(a.publishedTime)}</dd>
        <dt>Modified</dt>
        <dd>{date(a.modifiedTime)}</dd>
        {a.withdrawnTime && (
          <>
            <dt>Withdrawn</dt>
            <dd>{date(a.withdrawnTime)}</dd>
          </>
        )}
        <dt>Severity</dt>
        <dd>{a.severities.map((s) => s.score).join(", ") || <span class="muted">not given</span>}</dd>
      </dl>
      <h2>Affected</h2>
      {a.affected.map((x, i) => (
        <div key={i} class="panel" data-testid="affected">
          <h3>
            {x.ecosystem} / {x.name}
          </h3>
          {x.ranges.map((r, j) => (
            <p key={j}>
              Range:{" "}
              {r.events
                .map((e) => (e.event.case === undefined ? "" : `${e.event.case.replace("lastAffected", "last affected")} ${e.event.value}`))
                .join(", ")}
            </p>
          ))}
          {x.versions.length > 0 && <p class="small">Versions: {x.versions.join(", ")}</p>}
        </div>
      ))}
      {a.details && (
        <>
          <h2>Details</h2>
          <pre class="details">{a.details}</pre>
        </>
      )}
      {a.references.length > 0 && (
        <>
          <h2>References</h2>
          <ul>
            {a.references.map((r) => (
              <li key={r.url}>
                <a href={r.url} rel="noreferrer noopener" target="_blank">
                  {r.url}
                </a>
              </li>
            ))}
          </ul>
        </>
      )}
      <p>
        <Link to="/advisories">All advisories</Link>
      </p>
    </section>
  );
}
