/**
 * Vulnerability advisories (`/advisories`): a search with the API's filters (a text query, the
 * ecosystem, the package name, aliases, advisory ids) and order, a page at a time, the filters and
 * page token in the URL; and one advisory (`/advisories/<id>`): its summary, details, severities,
 * the packages it affects with their ranges (introduced, fixed, last affected) and versions, and
 * its references. Advisories are global: any holder of advisories.list somewhere reads them all.
 */
import { useEffect, useState } from "preact/hooks";
import { api, problemOf, type Problem } from "../api.js";
import { FilterField, FilterForm, PAGE, PAGE_SIZE, Pager, When, usePage, withQuery } from "../lists.js";
import { Empty, Link, Loading, ProblemBox } from "../ui.js";

type Advisory = Awaited<ReturnType<typeof api.vulnerabilities.v2beta1.advisories.getAdvisory>>;
type Severity = Advisory["severities"][number];
type Range = Advisory["affected"][number]["ranges"][number];

const SEVERITY_TYPES = ["", "CVSS v2", "CVSS v3", "CVSS v4", "Ubuntu"];
const RANGE_TYPES = ["", "SemVer", "ecosystem order", "git commits"];
const REFERENCE_TYPES = [
  "link",
  "advisory",
  "article",
  "detection",
  "discussion",
  "report",
  "fix",
  "introduced",
  "git",
  "package",
  "evidence",
  "web",
];
const ORDERS: [string, string][] = [
  ["", "advisory id"],
  ["modified_time desc", "last modified, newest first"],
  ["published_time desc", "published, newest first"],
];
const FIELDS = ["query", "ecosystem", "package", "alias", "id", "order"];

/** The values of a filter holding a list (`CVE-1, CVE-2` or one per space). */
function listOf(text: string | null): string[] {
  return (text ?? "").split(/[\s,]+/).filter((v) => v !== "");
}

export function advisoryPath(id: string): string {
  return `/advisories/${encodeURIComponent(id)}`;
}

function Severities({ severities }: { severities: Severity[] }) {
  if (severities.length === 0) return null;
  return (
    <ul class="plain">
      {severities.map((s) => (
        <li key={`${s.type}${s.score}`}>
          <span class="muted">{SEVERITY_TYPES[s.type] ?? "rating"}</span> <code>{s.score}</code>
        </li>
      ))}
    </ul>
  );
}

export function AdvisoriesView({ query }: { query: URLSearchParams }) {
  const path = "/advisories";
  const page = usePage<Advisory>(
    query.toString(),
    async (pageToken) => {
      const r = await api.vulnerabilities.v2beta1.advisories.listAdvisories({
        query: query.get("query") ?? "",
        ecosystem: query.get("ecosystem") ?? "",
        packageName: query.get("package") ?? "",
        aliases: listOf(query.get("alias")),
        advisoryIds: listOf(query.get("id")),
        orderBy: query.get("order") ?? "",
        pageSize: PAGE_SIZE,
        pageToken,
      });
      return { items: r.advisories, next: r.nextPageToken, total: r.totalCount };
    },
    query.get(PAGE) ?? "",
  );
  const order = query.get("order") ?? "";
  return (
    <section aria-labelledby="advisories-title">
      <h1 id="advisories-title">Advisories</h1>
      <p class="muted">Vulnerability advisories imported from OSV documents.</p>
      <FilterForm key={query.toString()} label="Search advisories" path={path} fields={FIELDS}>
        <FilterField
          name="query"
          label="Search"
          query={query}
          placeholder="log4j"
          hint="Part of an id, an alias, a package name or the summary."
        />
        <FilterField
          name="ecosystem"
          label="Ecosystem"
          query={query}
          placeholder="npm"
          hint="npm, PyPI, Go, Maven, Debian (matches Debian:12)…"
        />
        <FilterField name="package" label="Package" query={query} placeholder="lodash" hint="The exact package name." />
        <FilterField name="alias" label="Aliases" query={query} placeholder="CVE-2021-44228" hint="Any of these (separate with commas)." />
        <FilterField
          name="id"
          label="Advisory ids"
          query={query}
          placeholder="GHSA-jfh8-c2jp-5v3q"
          hint="Exactly these (separate with commas)."
        />
        <div class="field">
          <label for="filter-order">Order</label>
          <select id="filter-order" name="order" defaultValue={order}>
            {ORDERS.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </div>
      </FilterForm>
      <ProblemBox problem={page.problem} />
      {page.items === undefined && <Loading what="advisories" />}
      {page.items?.length === 0 && page.problem === undefined && <Empty>No advisories match.</Empty>}
      {page.items !== undefined && page.items.length > 0 && (
        <table aria-label="Advisories">
          <thead>
            <tr>
              <th scope="col">Advisory</th>
              <th scope="col">Summary</th>
              <th scope="col">Packages</th>
              <th scope="col">Modified</th>
            </tr>
          </thead>
          <tbody>
            {page.items.map((a) => (
              <tr key={a.uid}>
                <td>
                  <Link to={advisoryPath(a.uid)}>{a.uid}</Link>
                  {a.aliases.length > 0 && <div class="muted small">{a.aliases.join(", ")}</div>}
                  {a.withdrawnTime && <div class="badge">withdrawn</div>}
                </td>
                <td>{a.summary || <span class="muted">no summary</span>}</td>
                <td>
                  {a.affected
                    .filter((p) => p.name !== "")
                    .map((p) => `${p.name} (${p.ecosystem})`)
                    .join(", ") || <span class="muted">none named</span>}
                </td>
                <td>
                  <When time={a.modifiedTime} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {page.items !== undefined && <Pager path={path} query={query} next={page.next} total={page.total} shown={page.items.length} />}
    </section>
  );
}

/** A range's events, as `introduced 0, fixed 4.17.19`. */
function RangeEvents({ range }: { range: Range }) {
  return (
    <ol class="events">
      {range.events.map((e, i) =>
        e.event.case === undefined ? null : (
          <li key={i}>
            <span class="muted">{e.event.case === "lastAffected" ? "last affected" : e.event.case}</span> <code>{e.event.value}</code>
          </li>
        ),
      )}
    </ol>
  );
}

export function AdvisoryView({ id }: { id: string }) {
  const [advisory, setAdvisory] = useState<Advisory>();
  const [problem, setProblem] = useState<Problem>();
  useEffect(() => {
    setAdvisory(undefined);
    setProblem(undefined);
    api.vulnerabilities.v2beta1.advisories
      .getAdvisory({ uid: id })
      .then(setAdvisory)
      .catch((e: unknown) => setProblem(problemOf(e)));
  }, [id]);
  return (
    <section aria-labelledby="advisory-title">
      <p>
        <Link to="/advisories">All advisories</Link>
      </p>
      <h1 id="advisory-title">{id}</h1>
      <ProblemBox problem={problem} />
      {advisory === undefined && problem === undefined && <Loading what="the advisory" />}
      {advisory && (
        <>
          {advisory.summary && <p class="lead">{advisory.summary}</p>}
          {advisory.withdrawnTime && (
            <p class="problem">
              Withdrawn on <When time={advisory.withdrawnTime} />.
            </p>
          )}
          <dl class="facts">
            <dt>Aliases</dt>
            <dd>
              {advisory.aliases.length === 0 ? (
                <span class="muted">none</span>
              ) : (
                advisory.aliases.map((a, i) => (
                  <span key={a}>
                    {i > 0 && ", "}
                    <Link to={withQuery("/advisories", { alias: a })}>{a}</Link>
                  </span>
                ))
              )}
            </dd>
            {advisory.related.length > 0 && (
              <>
                <dt>Related</dt>
                <dd>{advisory.related.join(", ")}</dd>
              </>
            )}
            <dt>Published</dt>
            <dd>
              <When time={advisory.publishedTime} />
            </dd>
            <dt>Modified</dt>
            <dd>
              <When time={advisory.modifiedTime} />
            </dd>
            <dt>Severity</dt>
            <dd>
              {advisory.severities.length === 0 ? <span class="muted">not rated</span> : <Severities severities={advisory.severities} />}
            </dd>
          </dl>
          <h2>Affected packages</h2>
          {advisory.affected.length === 0 && <Empty>The advisory names no package.</Empty>}
          {advisory.affected.map((p, i) => (
            <section key={i} class="affected" aria-labelledby={`affected-${i}`}>
              <h3 id={`affected-${i}`}>
                {p.name || <span class="muted">a repository</span>} {p.ecosystem && <span class="muted">({p.ecosystem})</span>}
              </h3>
              {p.purl && (
                <p class="small">
                  Package URL: <code>{p.purl}</code>
                </p>
              )}
              <Severities severities={p.severities} />
              {p.ranges.length > 0 && (
                <table aria-label={`Affected ranges of ${p.name || "a repository"}${p.ecosystem ? ` (${p.ecosystem})` : ""}`}>
                  <thead>
                    <tr>
                      <th scope="col">Versions compared by</th>
                      <th scope="col">Events</th>
                    </tr>
                  </thead>
                  <tbody>
                    {p.ranges.map((r, j) => (
                      <tr key={j}>
                        <td>
                          {RANGE_TYPES[r.type] || "unspecified"}
                          {r.repo && (
                            <div class="small">
                              <code>{r.repo}</code>
                            </div>
                          )}
                        </td>
                        <td>
                          <RangeEvents range={r} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
              {p.versions.length > 0 && (
                <details>
                  <summary>
                    {p.versions.length} version{p.versions.length === 1 ? "" : "s"} listed as affected
                  </summary>
                  <p class="versions">
                    {p.versions.map((v) => (
                      <code key={v}>{v}</code>
                    ))}
                  </p>
                </details>
              )}
            </section>
          ))}
          {advisory.details && (
            <>
              <h2>Details</h2>
              <div class="details-text">{advisory.details}</div>
            </>
          )}
          {advisory.references.length > 0 && (
            <>
              <h2>References</h2>
              <ul>
                {advisory.references.map((r) => (
                  <li key={`${r.type}${r.url}`}>
                    <span class="muted">{REFERENCE_TYPES[r.type] ?? "link"}</span>{" "}
                    <a href={r.url} rel="noopener noreferrer" target="_blank">
                      {r.url}
                    </a>
                  </li>
                ))}
              </ul>
            </>
          )}
        </>
      )}
    </section>
  );
}
