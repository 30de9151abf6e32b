/**
 * The v2beta1 advisories service: request to store query to response. Advisories are global
 * (DESIGN 1.10), so the RPCs are declared unscoped and the check is here: a caller holding
 * advisories.list anywhere may read them all.
 */
import { create } from "@bufbuild/protobuf";
import { timestampMs } from "@bufbuild/protobuf/wkt";
import { ADVISORY_ID, advisoryFilter, advisorySortable, advisorySortValue } from "../../domain/advisories.js";
import { Capability } from "../../domain/capabilities.js";
import { invalidArgument, permissionDenied } from "../../domain/errors.js";
import {
  ListAdvisoriesResponseSchema,
  type Advisory,
  type CheckAdvisoriesRequest,
  type CheckAdvisoriesResponse,
  type GetAdvisoryRequest,
  type ListAdvisoriesRequest,
  type ListAdvisoriesResponse,
} from "../../gen/arbor/vulnerabilities/v2beta1/advisories_pb.js";
import { checkAdvisories } from "./advisory-check.js";
import { advisoryMessage } from "./advisory-messages.js";
import type { CallContext } from "../context.js";
import type { ServiceDeps } from "../deps.js";
import { found } from "../crud.js";
import { listRpc } from "../list-page.js";

const LIST = [Capability.CAP_ADVISORIES_LIST];

export function createAdvisoriesService(deps: ServiceDeps) {
  const { store, pageTokens } = deps;
  const listAdvisories = listRpc(pageTokens, {
    resource: "advisories",
    sortable: advisorySortable,
    sortValue: advisorySortValue,
    source: () => store.advisories,
    query: (req: ListAdvisoriesRequest) =>
      advisoryFilter({
        advisoryIds: req.advisoryIds,
        aliases: req.aliases,
        ecosystem: req.ecosystem,
        packageName: req.packageName,
        query: req.query,
        modifiedSinceMs: req.modifiedSince === undefined ? undefined : timestampMs(req.modifiedSince),
      }),
    // Global: whoever may list advisories (requireList, before the query is read) sees them all.
    visibleWith: () => Promise.resolve(undefined),
    respond: (items, page) => create(ListAdvisoriesResponseSchema, { advisories: items.map(advisoryMessage), ...page }),
  });
  return {
    async listAdvisories(req: ListAdvisoriesRequest, ctx: CallContext): Promise<ListAdvisoriesResponse> {
      await requireList(ctx);
      return listAdvisories(req, ctx);
    },

    async getAdvisory(req: GetAdvisoryRequest, ctx: CallContext): Promise<Advisory> {
      await requireList(ctx);
      if (req.uid === "") throw invalidArgument("uid", "is required");
      if (!ADVISORY_ID.test(req.uid)) throw invalidArgument("uid", `"${req.uid.slice(0, 64)}" is not an advisory id`);
      return advisoryMessage(found(await store.advisories.get(req.uid), "advisory", req.uid));
    },

    async checkAdvisories(req: CheckAdvisoriesRequest, ctx: CallContext): Promise<CheckAdvisoriesResponse> {
      await requireList(ctx);
      return checkAdvisories(store.advisories, req);
    },
  };
}

/** PERMISSION_DENIED unless the caller holds advisories.list at some group. */
async function requireList(ctx: CallContext): Promise<void> {
  if ((await ctx.permissions()).scopes(LIST).length === 0) throw permissionDenied("the caller lacks advisories.list on any group");
}
