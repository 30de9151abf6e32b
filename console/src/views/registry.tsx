/**
 * The registry of a group (`/registry/<group uid>`): its repos, a page at a time, filterable by
 * name; and a repo (`/repos/<repo uid>`): its tags with their digests and times, and the pull
 * command of each, by digest and by tag. A repo's path is its group's path of names from the
 * organization down, then its name (docs/registry.md), on the registry host the server names
 * (ARBOR_REGISTRY_HOST).
 */
import { useEffect, useState } from "preact/hooks";
import { api, problemOf, type Problem } from "../api.js";
import { Copyable, FilterField, FilterForm, PAGE, PAGE_SIZE, Pager, When, usePage, withQuery } from "../lists.js";
import { Empty, Link, Loading, ProblemBox } from "../ui.js";

/** The registry's host as image names write it, from the page the server wrote; "" when none is configured. */
export const REGISTRY_HOST = document.querySelector('meta[name="arbor-registry-host"]')?.getAttribute("content") ?? "";

type Repo = Awaited<ReturnType<typeof api.registry.v2beta1.repos.getRepo>>;
type Tag = Awaited<ReturnType<typeof api.registry.v2beta1.tags.getTag>>;

/** The path of names of a group (`acme/backend-team`), from its uid and its ancestors'. */
function useGroupPath(groupUid: string): { path: string | undefined; problem: Problem | undefined } {
  const [state, setState] = useState<{ path: string | undefined; problem: Problem | undefined }>({ path: undefined, problem: undefined });
  useEffect(() => {
    const parts = groupUid.split("/");
    const uids = parts.map((_, i) => parts.slice(0, i + 1).join("/"));
    setState({ path: undefined, problem: undefined });
    Promise.all(uids.map((uid) => api.iam.v2beta1.groups.getGroup({ uid })))
      .then((groups) => setState({ path: groups.map((g) => g.name).join("/"), problem: undefined }))
      .catch((e: unknown) => setState({ path: undefined, problem: problemOf(e) }));
  }, [groupUid]);
  return state;
}

function NoHost() {
  return (
    <p class="muted" data-testid="no-registry-host">
      This Arbor names no registry host (<code>ARBOR_REGISTRY_HOST</code>), so no pull command can be shown.
    </p>
  );
}

export function RegistryView({ group, query }: { group: string; query: URLSearchParams }) {
  const path = `/registry/${group}`;
  const { path: groupPath, problem: pathProblem } = useGroupPath(group);
  const name = query.get("name") ?? "";
  const page = usePage<Repo>(
    `${group}?${query.toString()}`,
    async (pageToken) => {
      const r = await api.registry.v2beta1.repos.listRepos({
        uidp: { childrenOf: group },
        name,
        pageSize: PAGE_SIZE,
        pageToken,
        orderBy: "name",
      });
      return { items: r.repos, next: r.nextPageToken, total: r.totalCount };
    },
    query.get(PAGE) ?? "",
  );
  const subgroups = usePage(
    group,
    async () => {
      const r = await api.iam.v2beta1.groups.listGroups({ uidp: { childrenOf: group }, pageSize: 50, orderBy: "name" });
      return { items: r.groups, next: r.nextPageToken, total: r.totalCount };
    },
    "",
  );
  return (
    <section aria-labelledby="registry-title">
      <h1 id="registry-title">Registry{groupPath !== undefined && <span class="muted"> of {groupPath}</span>}</h1>
      <ProblemBox problem={pathProblem} />
      {REGISTRY_HOST === "" && <NoHost />}
      <FilterForm key={query.toString()} label="Filter repos" path={path} fields={["name"]}>
        <FilterField name="name" label="Repo name" query={query} hint="The exact name of a repo in this group." />
      </FilterForm>
      <ProblemBox problem={page.problem} />
      {page.items === undefined && <Loading what="repos" />}
      {page.items?.length === 0 && page.problem === undefined && <Empty>No repos in this group{name && ` named ${name}`}.</Empty>}
      {page.items !== undefined && page.items.length > 0 && (
        <table aria-label="Repos">
          <thead>
            <tr>
              <th scope="col">Repo</th>
              <th scope="col">Image name</th>
              <th scope="col">Created</th>
              <th scope="col">Updated</th>
            </tr>
          </thead>
          <tbody>
            {page.items.map((r) => (
              <tr key={r.uid}>
                <td>
                  <Link to={`/repos/${r.uid}`}>{r.name}</Link>
                  {r.description && <div class="muted small">{r.description}</div>}
                </td>
                <td>
                  <code>{imageName(groupPath, r.name)}</code>
                </td>
                <td>
                  <When time={r.createTime} />
                </td>
                <td>
                  <When time={r.updateTime} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {page.items !== undefined && <Pager path={path} query={query} next={page.next} total={page.total} shown={page.items.length} />}
      {subgroups.items !== undefined && subgroups.items.length > 0 && (
        <nav aria-labelledby="subgroups-title">
          <h2 id="subgroups-title">Registries of the groups below</h2>
          <ul class="inline-list">
            {subgroups.items.map((g) => (
              <li key={g.uid}>
                <Link to={`/registry/${g.uid}`}>{g.name}</Link>
              </li>
            ))}
          </ul>
        </nav>
      )}
      {group.includes("/") && (
        <p>
          <Link to={`/registry/${group.slice(0, group.lastIndexOf("/"))}`}>Up to the parent group's registry</Link>
        </p>
      )}
    </section>
  );
}

/** `host/path` of a repo, or its path alone while the group's path is not known. */
function imageName(groupPath: string | undefined, repo: string): string {
  const path = `${groupPath ?? "…"}/${repo}`;
  return REGISTRY_HOST === "" ? path : `${REGISTRY_HOST}/${path}`;
}

export function RepoView({ uid, query }: { uid: string; query: URLSearchParams }) {
  const path = `/repos/${uid}`;
  const group = uid.slice(0, uid.lastIndexOf("/"));
  const { path: groupPath, problem: pathProblem } = useGroupPath(group);
  const [repo, setRepo] = useState<Repo>();
  const [repoProblem, setRepoProblem] = useState<Problem>();
  useEffect(() => {
    setRepo(undefined);
    setRepoProblem(undefined);
    api.registry.v2beta1.repos
      .getRepo({ uid })
      .then(setRepo)
      .catch((e: unknown) => setRepoProblem(problemOf(e)));
  }, [uid]);
  const name = query.get("name") ?? "";
  const digest = query.get("digest") ?? "";
  const page = usePage<Tag>(
    `${uid}?${query.toString()}`,
    async (pageToken) => {
      const r = await api.registry.v2beta1.tags.listTags({
        uidp: { childrenOf: uid },
        name,
        digest,
        pageSize: PAGE_SIZE,
        pageToken,
        orderBy: "update_time desc",
      });
      return { items: r.tags, next: r.nextPageToken, total: r.totalCount };
    },
    query.get(PAGE) ?? "",
  );
  const image = repo && groupPath !== undefined ? imageName(groupPath, repo.name) : undefined;
  return (
    <section aria-labelledby="repo-title">
      <p>
        <Link to={`/registry/${group}`}>Registry{groupPath !== undefined && ` of ${groupPath}`}</Link>
      </p>
      <h1 id="repo-title">{repo ? repo.name : "Repo"}</h1>
      <ProblemBox problem={repoProblem ?? pathProblem} />
      {repo === undefined && repoProblem === undefined && <Loading what="the repo" />}
      {repo && (
        <dl class="facts">
          <dt>Image name</dt>
          <dd>{image ? <code>{image}</code> : "…"}</dd>
          <dt>uid</dt>
          <dd>
            <code>{repo.uid}</code>
          </dd>
          <dt>Description</dt>
          <dd>{repo.description || <span class="muted">none</span>}</dd>
          <dt>Created</dt>
          <dd>
            <When time={repo.createTime} />
          </dd>
          <dt>Updated</dt>
          <dd>
            <When time={repo.updateTime} />
          </dd>
        </dl>
      )}
      {REGISTRY_HOST === "" && <NoHost />}
      <h2>Tags</h2>
      <FilterForm key={query.toString()} label="Filter tags" path={path} fields={["name", "digest"]}>
        <FilterField name="name" label="Tag" query={query} hint="The exact tag (latest, v1.2.3)." />
        <FilterField name="digest" label="Digest" query={query} placeholder="sha256:…" hint="The tags pointing at one manifest." />
      </FilterForm>
      <ProblemBox problem={page.problem} />
      {page.items === undefined && <Loading what="tags" />}
      {page.items?.length === 0 && page.problem === undefined && <Empty>No tags{name || digest ? " match" : " in this repo"}.</Empty>}
      {page.items !== undefined && page.items.length > 0 && (
        <table aria-label="Tags">
          <thead>
            <tr>
              <th scope="col">Tag</th>
              <th scope="col">Digest</th>
              <th scope="col">Pushed first</th>
              <th scope="col">Moved last</th>
              <th scope="col">Pull</th>
            </tr>
          </thead>
          <tbody>
            {page.items.map((t) => (
              <tr key={t.uid}>
                <td>
                  <strong>{t.name}</strong>
                </td>
                <td>
                  <Link to={withQuery(path, { digest: t.digest })}>
                    <code class="digest" title={t.digest}>
                      {t.digest}
                    </code>
                  </Link>
                </td>
                <td>
                  <When time={t.createTime} />
                </td>
                <td>
                  <When time={t.updateTime} />
                </td>
                <td class="pulls">
                  {image !== undefined && REGISTRY_HOST !== "" ? (
                    <>
                      <div>
                        <Copyable text={`docker pull ${image}@${t.digest}`} label={`the pull command of ${t.name} by digest`} />
                      </div>
                      <div>
                        <Copyable text={`docker pull ${image}:${t.name}`} label={`the pull command of ${t.name} by tag`} />
                      </div>
                    </>
                  ) : (
                    <span class="muted">—</span>
                  )}
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
