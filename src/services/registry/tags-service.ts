/**
 * The v2beta1 tags service: read-only (DESIGN 1.9). Tags come and go with the registry's pushes
 * and deletes, through the registry index; tombstones never show.
 */
import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { Capability } from "../../domain/capabilities.js";
import { notFound } from "../../domain/errors.js";
import { hierarchyFilter } from "../../domain/hierarchy.js";
import { tagSortable, tagSortValue, type TagRecord } from "../../domain/repos.js";
import { requireUid } from "../../domain/uid.js";
import {
  ListTagsResponseSchema,
  TagSchema,
  type GetTagRequest,
  type ListTagsRequest,
  type ListTagsResponse,
  type Tag,
} from "../../gen/arbor/registry/v2beta1/tags_pb.js";
import type { CallContext } from "../context.js";
import type { ServiceDeps } from "../deps.js";
import { listing } from "../list-page.js";

/** The tag resource as the API shows it. */
export function tagMessage(t: TagRecord): Tag {
  return create(TagSchema, {
    uid: t.uid,
    name: t.name,
    digest: t.digest,
    createTime: timestampFromMs(t.createTime),
    updateTime: timestampFromMs(t.updateTime),
  });
}

export function createTagsService(deps: ServiceDeps) {
  const { store, pageTokens } = deps;
  const tagsListing = listing({
    resource: "tags",
    sortable: tagSortable,
    sortValue: tagSortValue,
    source: () => store.tags,
    tokens: pageTokens,
  });
  return {
    async listTags(req: ListTagsRequest, ctx: CallContext): Promise<ListTagsResponse> {
      const query = {
        uidp: hierarchyFilter(req.uidp),
        ...(req.name !== "" && { name: req.name }),
        ...(req.digest !== "" && { digest: req.digest }),
      };
      const visibleUnder = (await ctx.permissions()).scopes([Capability.CAP_TAG_LIST]);
      const { items, ...envelope } = await tagsListing.page(req, query, visibleUnder);
      return create(ListTagsResponseSchema, { tags: items.map(tagMessage), ...envelope });
    },

    async getTag(req: GetTagRequest): Promise<Tag> {
      const uid = requireUid("uid", req.uid);
      const tag = await store.tags.get(uid);
      if (!tag) throw notFound("tag", uid);
      return tagMessage(tag);
    },
  };
}
