/**
 * The v2beta1 repos service: read-only (DESIGN 1.9). Repos appear through the registry index
 * and the v1 surface; here they are listed and got.
 */
import { create } from "@bufbuild/protobuf";
import { Capability } from "../../domain/capabilities.js";
import { repoSortable, repoSortValue, type RepoRecord } from "../../domain/repos.js";
import { requireUid } from "../../domain/uid.js";
import { ListReposResponseSchema, RepoSchema, type GetRepoRequest, type Repo } from "../../gen/arbor/registry/v2beta1/repos_pb.js";
import type { ServiceDeps } from "../deps.js";
import { found, namedFields } from "../crud.js";
import { listRpc, namedQuery } from "../list-page.js";

/** The repo resource as the API shows it. */
export function repoMessage(r: RepoRecord): Repo {
  return create(RepoSchema, namedFields(r));
}

export function createReposService(deps: ServiceDeps) {
  const { store, pageTokens } = deps;
  return {
    listRepos: listRpc(pageTokens, {
      resource: "repos",
      sortable: repoSortable,
      sortValue: repoSortValue,
      source: () => store.repos,
      query: namedQuery,
      visibleWith: [Capability.CAP_REPO_LIST],
      respond: (items, page) => create(ListReposResponseSchema, { repos: items.map(repoMessage), ...page }),
    }),

    async getRepo(req: GetRepoRequest): Promise<Repo> {
      const uid = requireUid("uid", req.uid);
      return repoMessage(found(await store.repos.get(uid), "repo", uid));
    },
  };
}
