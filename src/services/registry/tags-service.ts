/**
 * The v2beta1 tags service: read-only (DESIGN 1.9). Tags come and go with the registry's pushes
 * and deletes, through the registry index; tombstones never show.
 */
import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { Capability } from "../../domain/capabilities.js";
import { tagSortable, tagSortValue, type TagRecord } from "../../domain/repos.js";
import { requireUid } from "../../domain/uid.js";
import {
  ListTagsResponseSchema,
  TagSchema,
  type GetTagRequest,
  type ListTagsRequest,
  type Tag,
} from "../../gen/arbor/registry/v2beta1/tags_pb.js";
import type { ServiceDeps } from "../deps.js";
import { found } from "../crud.js";
import { listRpc, namedQuery } from "../list-page.js";

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
  return {
    listTags: listRpc(pageTokens, {
      resource: "tags",
      sortable: tagSortable,
      sortValue: tagSortValue,
      source: () => store.tags,
      query: (req: ListTagsRequest) => ({ ...namedQuery(req), ...(req.digest !== "" && { digest: req.digest }) }),
      visibleWith: [Capability.CAP_TAG_LIST],
      respond: (items, page) => create(ListTagsResponseSchema, { tags: items.map(tagMessage), ...page }),
    }),

    async getTag(req: GetTagRequest): Promise<Tag> {
      const uid = requireUid("uid", req.uid);
      return tagMessage(found(await store.tags.get(uid), "tag", uid));
    },
  };
}
