/**
 * The v2beta1 repos service: read-only (DESIGN 1.9). Repos appear through the registry index
 * and the v1 surface; here they are listed and got.
 */
import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { Capability } from "../../domain/capabilities.js";
import { notFound } from "../../domain/errors.js";
import { repoSortable, repoSortValue, type RepoRecord } from "../../domain/repos.js";
import { requireUid } from "../../domain/uid.js";
import {
  ListReposResponseSchema,
  RepoSchema,
  type GetRepoRequest,
  type ListReposRequest,
  type ListReposResponse,
  type Repo,
} from "../../gen/arbor/registry/v2beta1/repos_pb.js";
import type { CallContext } from "../context.js";
import type { ServiceDeps } from "../deps.js";
import { listing, namedQuery } from "../list-page.js";

/** The repo resource as the API shows it. */
export function repoMessage(r: RepoRecord): Repo {
  return create(RepoSchema, {
    uid: r.uid,
    name: r.name,
    description: r.description,
    createTime: timestampFromMs(r.createTime),
    updateTime: timestampFromMs(r.updateTime),
  });
}

export function createReposService(deps: ServiceDeps) {
  const { store, pageTokens } = deps;
  const reposListing = listing({
    resource: "repos",
    sortable: repoSortable,
    sortValue: repoSortValue,
    source: () => store.repos,
    tokens: pageTokens,
  });
  return {
    async listRepos(req: ListReposRequest, ctx: CallContext): Promise<ListReposResponse> {
      const query = namedQuery(req);
      const visibleUnder = (await ctx.permissions()).scopes([Capability.CAP_REPO_LIST]);
      const { items, ...envelope } = await reposListing.page(req, query, visibleUnder);
      return create(ListReposResponseSchema, { repos: items.map(repoMessage), ...envelope });
    },

    async getRepo(req: GetRepoRequest): Promise<Repo> {
      const uid = requireUid("uid", req.uid);
      const repo = await store.repos.get(uid);
      if (!repo) throw notFound("repo", uid);
      return repoMessage(repo);
    },
  };
}
