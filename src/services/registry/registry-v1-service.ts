/**
 * The v1 registry surface (DESIGN 1.9): the repos list in one response in the v1 shape (`items`,
 * `id`), and create, replace and delete of repos, which v2beta1 leaves out.
 */
import { create } from "@bufbuild/protobuf";
import type { Empty } from "@bufbuild/protobuf/wkt";
import { Capability } from "../../domain/capabilities.js";
import { Code, invalidArgument, isApiError, permissionDenied } from "../../domain/errors.js";
import { parseOrderBy } from "../../domain/list.js";
import { validateDescription } from "../../domain/names.js";
import { repoSortable, validateRepoName, type RepoFilter, type RepoRecord } from "../../domain/repos.js";
import { newChildUid, requireUid } from "../../domain/uid.js";
import {
  ListReposResponseSchema,
  RepoSchema,
  type CreateRepoRequest,
  type DeleteRepoRequest,
  type ListReposRequest,
  type ListReposResponse,
  type Repo,
  type UpdateRepoRequest,
} from "../../gen/arbor/registry/v1/registry_pb.js";
import type { CallContext } from "../context.js";
import type { ServiceDeps } from "../deps.js";
import { V1_LIST_LIMIT, v1Uidp } from "../iam/groups-v1-service.js";
import { bindCurrentPath } from "./registry-paths.js";
import { deletedOrNotFound, found } from "../crud.js";

function v1Repo(r: RepoRecord): Repo {
  return create(RepoSchema, { id: r.uid, name: r.name, description: r.description });
}

export function createRegistryV1Service(deps: ServiceDeps) {
  const { store, clock, ids } = deps;
  return {
    async listRepos(req: ListReposRequest, ctx: CallContext): Promise<ListReposResponse> {
      const uidp = v1Uidp(req);
      const filter: RepoFilter = {
        uidp,
        ...(req.name !== "" && { name: req.name }),
        visibleUnder: (await ctx.permissions()).scopes([Capability.CAP_REPO_LIST]),
      };
      const rows = await store.repos.list(filter, { order: parseOrderBy("", repoSortable), offset: 0, limit: V1_LIST_LIMIT });
      return create(ListReposResponseSchema, { items: rows.map(v1Repo) });
    },

    async createRepo(req: CreateRepoRequest, ctx: CallContext): Promise<Repo> {
      const parent = requireUid("parent_id", req.parentId);
      const name = req.repo?.name ?? "";
      const description = req.repo?.description ?? "";
      validateRepoName(name);
      validateDescription(description);
      const now = clock.now();
      const repo: RepoRecord = { uid: newChildUid(ids, parent), parentUid: parent, name, description, createTime: now, updateTime: now };
      // Bound before the repo exists, as a first push binds it: content may land there from now on.
      await bindCurrentPath(store, parent);
      try {
        await store.repos.insert(repo);
        return v1Repo(repo);
      } catch (e) {
        if (!(isApiError(e) && e.code === Code.ALREADY_EXISTS)) throw e;
        // v1 updates a repo of that name unless told not to (modeled-on: prevent_existing).
        const existing = await store.repos.find(parent, name);
        if (req.preventExisting || existing === undefined) throw e;
        // Updating takes what UpdateRepo takes: repo.create alone does not change an existing repo.
        if (!(await ctx.permissions()).allows([Capability.CAP_REPO_UPDATE], existing.uid)) {
          throw permissionDenied(
            `a repo named ${name} exists, and updating it takes repo.update on ${existing.uid}, which the caller lacks`,
          );
        }
        const updated = await store.repos.update(existing.uid, { description }, now);
        if (!updated) throw e;
        return v1Repo(updated);
      }
    },

    async updateRepo(req: UpdateRepoRequest): Promise<Repo> {
      if (req.repo === undefined) throw invalidArgument("repo", "is required");
      const uid = requireUid("id", req.repo.id);
      validateDescription(req.repo.description);
      const current = found(await store.repos.get(uid), "repo", uid);
      if (req.repo.name !== "" && req.repo.name !== current.name) {
        throw invalidArgument("name", "a repo cannot be renamed: the registry keeps its content under its path");
      }
      // v1 replaces: an omitted description becomes empty.
      return v1Repo(found(await store.repos.update(uid, { description: req.repo.description }, clock.now()), "repo", uid));
    },

    async deleteRepo(req: DeleteRepoRequest): Promise<Empty> {
      const uid = requireUid("id", req.id);
      return deletedOrNotFound(await store.repos.delete(uid), "repo", uid);
    },
  };
}
