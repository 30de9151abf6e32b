/** The organizations the signed-in person can see: where every other view starts. */
import { useEffect, useState } from "preact/hooks";
import { api, problemOf, type Group, type Problem } from "../api.js";
import { Empty, Link, Loading, ProblemBox } from "../ui.js";

const PAGE_SIZE = 50;

export function Organizations() {
  const [orgs, setOrgs] = useState<Group[]>();
  const [next, setNext] = useState<string>();
  const [problem, setProblem] = useState<Problem>();
  const load = (token?: string) =>
    api.iam.v2beta1.groups
      .listGroups({ uidp: { inRoot: true }, pageSize: PAGE_SIZE, pageToken: token ?? "" })
      .then((r) => {
        setOrgs((before) => [...(token ? (before ?? []) : []), ...r.groups]);
        setNext(r.nextPageToken);
      })
      .catch((e: unknown) => setProblem(problemOf(e)));
  useEffect(() => void load(), []);
  return (
    <section aria-labelledby="orgs-title">
      <h1 id="orgs-title">Organizations</h1>
      <ProblemBox problem={problem} />
      {orgs === undefined && problem === undefined && <Loading what="organizations" />}
      {orgs?.length === 0 && <Empty>You see no organization yet. Ask an administrator for an invite.</Empty>}
      {orgs !== undefined && orgs.length > 0 && (
        <ul class="cards">
          {orgs.map((o) => (
            <li key={o.uid}>
              <Link to={`/groups/${o.uid}`}>{o.name}</Link>
              <span class="muted"> {o.description}</span>
            </li>
          ))}
        </ul>
      )}
      {next && (
        <button type="button" onClick={() => void load(next)}>
          Load more
        </button>
      )}
    </section>
  );
}
