/**
 * What the list views (registry, advisories, audit log, identity providers, account associations)
 * share: filters and the page token live in the URL's query, so a page of a filtered list can be
 * shared; a page is fetched with the API's page token and pageSize, never everything at once.
 */
import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import { problemOf, type Problem } from "./api.js";
import { navigate } from "./router.js";
import { Link } from "./ui.js";
import "./lists.css";

/** Items per page of every list view. */
export const PAGE_SIZE = 20;

/** The query parameter holding the page token. */
export const PAGE = "page";

/** A timestamp as the API answers it. */
export interface Time {
  seconds: bigint;
  nanos: number;
}

/** A timestamp as the console shows it: ISO 8601 in UTC, to the second. */
export function formatTime(t: Time | undefined): string {
  if (t === undefined) return "";
  return new Date(Number(t.seconds) * 1000 + Math.floor(t.nanos / 1e6)).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** A `<time>` element for a timestamp. */
export function When({ time }: { time: Time | undefined }) {
  if (time === undefined) return <span class="muted">never</span>;
  const text = formatTime(time);
  return <time dateTime={text}>{text}</time>;
}

/** A route path with a query, leaving out empty values (`/advisories?query=log4j`). */
export function withQuery(path: string, query: Record<string, string | undefined> | URLSearchParams): string {
  const q = new URLSearchParams();
  const entries = query instanceof URLSearchParams ? [...query.entries()] : Object.entries(query);
  for (const [k, v] of entries) if (v !== undefined && v !== "") q.append(k, v);
  const text = q.toString();
  return text === "" ? path : `${path}?${text}`;
}

/** One page of a list, as loaded for the current URL. */
export interface Page<T> {
  items: T[] | undefined;
  next: string | undefined;
  total: number | undefined;
  problem: Problem | undefined;
}

/**
 * Loads one page whenever key (the route's path and query) changes; fetch gets the page token
 * the URL holds.
 */
export function usePage<T>(
  key: string,
  fetch: (pageToken: string) => Promise<{ items: T[]; next?: string | undefined; total?: bigint }>,
  pageToken: string,
): Page<T> & { reload: () => void } {
  const loading: Page<T> = { items: undefined, next: undefined, total: undefined, problem: undefined };
  // The page is kept with the key it was loaded for: under a new key (other filters, another page
  // token) the list shows as loading at once, never the previous answer under the new filters.
  const [state, setState] = useState<{ key: string; page: Page<T> }>({ key, page: loading });
  const [version, setVersion] = useState(0);
  useEffect(() => {
    let live = true;
    setState({ key, page: loading });
    fetch(pageToken)
      .then((r) => {
        const total = r.total === undefined ? undefined : Number(r.total);
        if (live) setState({ key, page: { items: r.items, next: r.next || undefined, total, problem: undefined } });
      })
      .catch((e: unknown) => {
        if (live) setState({ key, page: { items: [], next: undefined, total: undefined, problem: problemOf(e) } });
      });
    return () => {
      live = false;
    };
  }, [key, version]);
  return { ...(state.key === key ? state.page : loading), reload: () => setVersion((v) => v + 1) };
}

/** The links under a list: back to the first page, and the next page (its token in the URL). */
export function Pager(props: { path: string; query: URLSearchParams; next: string | undefined; total: number | undefined; shown: number }) {
  const { path, query, next, total, shown } = props;
  const first = new URLSearchParams(query);
  first.delete(PAGE);
  const following = new URLSearchParams(query);
  if (next !== undefined) following.set(PAGE, next);
  return (
    <nav class="pager" aria-label="Pages">
      <span class="muted">
        {shown} shown{total !== undefined && ` of ${total}`}
      </span>
      {query.has(PAGE) && <Link to={withQuery(path, first)}>First page</Link>}
      {next !== undefined && <Link to={withQuery(path, following)}>Next page</Link>}
    </nav>
  );
}

/** A filter form: its fields' values go to the URL (dropping the page token), which loads the list. */
export function FilterForm(props: {
  label: string;
  path: string;
  fields: readonly string[];
  submit?: string;
  children: ComponentChildren;
}) {
  return (
    <form
      class="filters"
      aria-label={props.label}
      role="search"
      onSubmit={(e) => {
        e.preventDefault();
        const data = new FormData(e.currentTarget);
        const query: Record<string, string> = {};
        for (const f of props.fields) query[f] = String(data.get(f) ?? "").trim();
        navigate(withQuery(props.path, query));
      }}
    >
      {props.children}
      <div class="filter-actions">
        <button type="submit" class="primary">
          {props.submit ?? "Apply"}
        </button>
        <Link to={props.path}>Clear</Link>
      </div>
    </form>
  );
}

/** A labelled text field of a filter form, filled from the URL. */
export function FilterField(props: { name: string; label: string; query: URLSearchParams; placeholder?: string; hint?: string }) {
  const id = `filter-${props.name}`;
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <input
        id={id}
        name={props.name}
        defaultValue={props.query.get(props.name) ?? ""}
        placeholder={props.placeholder}
        aria-describedby={props.hint ? `${id}-hint` : undefined}
      />
      {props.hint && (
        <small id={`${id}-hint`} class="muted">
          {props.hint}
        </small>
      )}
    </div>
  );
}

/** A value to copy (a pull command): shown in full, with a button that copies it. */
export function Copyable({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <span class="copyable">
      <code>{text}</code>{" "}
      <button
        type="button"
        class="small"
        aria-label={`Copy ${label}`}
        onClick={() => {
          void navigator.clipboard?.writeText(text).then(
            () => setCopied(true),
            () => setCopied(false),
          );
        }}
      >
        {copied ? "Copied" : "Copy"}
      </button>
    </span>
  );
}
