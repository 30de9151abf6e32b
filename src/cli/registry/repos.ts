/**
 * `arbor registry repos`: the registry's repositories (ReposService), read-only: repos appear on
 * the first push to a new repository path.
 */
import { ReposService } from "../../gen/arbor/registry/v2beta1/repos_pb.js";
import { fieldColumn, uidColumn, timeColumn } from "../output/cells.js";
import { resourceSpec, lookup } from "../resource/spec.js";

/** How repo names are found. */
export const REPO_LOOKUP = lookup({
  noun: "repos",
  singular: "repo",
  service: ReposService,
  listRpc: "listRepos",
  items: "repos",
  named: true,
  scope: "subtree",
  hierarchical: true,
});

/** Repos as commands see them. */
export const REPOS = resourceSpec({
  ...REPO_LOOKUP,
  description: "registry repos: the repositories images are pushed to (read-only)",
  rpcs: { get: "getRepo" },
  body: "repo",
  columns: [fieldColumn("NAME", "name"), uidColumn(), fieldColumn("DESCRIPTION", "description", 3), timeColumn("UPDATED", "updateTime")],
  defaultScoped: true,
  createsNamed: false,
  notes: { list: "A repo's path is its group's path and its name (acme/backend-team/nginx); --parent lists one\ngroup's repos." },
  examples: {
    list: ["arbor registry repos list", 'arbor registry repos list --parent backend-team --order-by "updated_at desc"'],
    get: [
      "arbor registry repos get acme/backend-team/nginx",
      "arbor registry repos get nginx",
      "arbor registry repos get nginx --group backend-team -o json",
    ],
  },
});
