/**
 * The authorization matrix: every RPC, called as owner, editor, viewer and registry.pull of group
 * A, as an owner of A's sibling B, and with no token, over REST and over gRPC (@grpc/grpc-js on
 * the .proto contract), on each engine. Every cell must get exactly the expected code, and every
 * list shows only what that caller may see. The expectations are written out by hand (the minimum
 * built-in role of each RPC), not derived from the code under test; which RPCs there are is taken
 * from the services the server registers, so an RPC without a row fails the suite.
 */
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinRoleUid } from "../../src/domain/roles.js";
import { createRegistryIndex } from "../../src/services/registry/registry-index.js";
import { engines } from "../support/engines.js";
import { FEED_IDS, importPaths, OSV } from "../support/osv.js";
import { registeredRpcs, rpcName } from "../support/rpc-call.js";
import { startTestServer, type TestServer } from "../support/server.js";

type Caller = "owner" | "editor" | "viewer" | "pull" | "sibling" | "anonymous";
const CALLERS: Caller[] = ["owner", "editor", "viewer", "pull", "sibling", "anonymous"];
/**
 * Who may call: the least built-in role at A that suffices, "viewer anywhere" (that role at any
 * group: the sibling, owner of B, qualifies), "any" authenticated caller, or "public".
 */
type Needs = "owner" | "editor" | "viewer" | "pull" | "viewer anywhere" | "any" | "public";

interface Call {
  rest: { method: string; path: string; body?: unknown };
  grpc: { service: string; method: string; request: unknown };
}

interface Case {
  /** `package.Service/Method`, as the server registers it. */
  rpc: string;
  /** Which of several rows of one RPC this is. */
  variant?: string;
  needs: Needs;
  /** For lists: a caller who may list them sees items of A's subtree; anyone else sees none. */
  listsA?: true;
  /** For lists: the least role at A whose holder sees A's items (viewer unless said). */
  seenFrom?: "owner" | "pull";
  /** A fresh call: targets made anew for each cell, so mutations never collide. */
  call: (w: World) => Promise<Call>;
  /** The code every caller gets, for a public RPC whose answer the call alone decides. */
  everyone?: number;
}

interface World {
  t: TestServer;
  admin: string;
  org: string;
  a: string;
  b: string;
  identities: Record<Exclude<Caller, "anonymous">, string>;
  tokens: Record<Exclude<Caller, "anonymous">, string>;
  /** A custom role in A with one capability. */
  customRole: string;
  /** An advisory in the store (advisories are global, in no group). */
  advisory: string;
  /** Creates something through the API as the organization's administrator; returns its uid. */
  make(path: string, body: unknown): Promise<string>;
  /** Pushes a tag to a new repo in A through the registry index; returns the repo's uid. */
  push(): Promise<string>;
  seq(): number;
}

const G = "arbor.iam.v2beta1";
const groups = `${G}.GroupsService`;
const idents = `${G}.IdentitiesService`;
const roles = `${G}.RolesService`;
const bindings = `${G}.RoleBindingsService`;
const idps = `${G}.IdentityProvidersService`;
const assocs = `${G}.AccountAssociationsService`;
const invites = `${G}.GroupInvitesService`;
const audit = "arbor.audit.v1beta1.AuditService";
const reposV2 = "arbor.registry.v2beta1.ReposService";
const tagsV2 = "arbor.registry.v2beta1.TagsService";
const registryV1 = "arbor.registry.v1.RegistryService";
const groupsV1 = "arbor.iam.v1.GroupsService";
const ping = "arbor.ping.v2beta1.PingService";
const advisories = "arbor.vulnerabilities.v2beta1.AdvisoriesService";
const subs = "arbor.events.v2beta1.SubscriptionsService";
const SUBS = "/events/v2beta1/subscriptions";
const sink = { sink: "https://sink.example.com/arbor" };

const claimMatch = (n: number) => ({
  issuer: "https://token.actions.githubusercontent.com",
  subject: `repo:acme/app-${n}:ref:refs/heads/main`,
});
const oidc = { issuer: "https://accounts.example.com", clientId: "arbor", clientSecret: "s3cret" };

function get(service: string, method: string, path: string, request: unknown): Call {
  return { rest: { method: "GET", path }, grpc: { service, method, request } };
}
function del(service: string, method: string, path: string, uid: string): Call {
  return { rest: { method: "DELETE", path }, grpc: { service, method, request: { uid } } };
}

const cases: Case[] = [
  {
    rpc: `${groups}/ListGroups`,
    needs: "any",
    listsA: true,
    call: async (w) => get(groups, "ListGroups", `/iam/v2beta1/groups?uidp.children_of=${w.org}`, { uidp: { childrenOf: w.org } }),
  },
  { rpc: `${groups}/GetGroup`, needs: "viewer", call: async (w) => get(groups, "GetGroup", `/iam/v2beta1/groups/${w.a}`, { uid: w.a }) },
  {
    rpc: `${groups}/CreateGroup`,
    needs: "editor",
    call: async (w) => {
      const body = { name: `made-${w.seq()}` };
      return {
        rest: { method: "POST", path: `/iam/v2beta1/groups/${w.a}`, body },
        grpc: { service: groups, method: "CreateGroup", request: { parent: w.a, group: body } },
      };
    },
  },
  {
    rpc: `${groups}/UpdateGroup`,
    needs: "editor",
    call: async (w) => {
      const uid = await w.make(`/iam/v2beta1/groups/${w.a}`, { name: `upd-${w.seq()}` });
      return {
        rest: { method: "PATCH", path: `/iam/v2beta1/groups/${uid}`, body: { description: "changed" } },
        grpc: { service: groups, method: "UpdateGroup", request: { group: { uid, description: "changed" } } },
      };
    },
  },
  {
    rpc: `${groups}/DeleteGroup`,
    needs: "editor",
    call: async (w) => {
      const uid = await w.make(`/iam/v2beta1/groups/${w.a}`, { name: `del-${w.seq()}` });
      return del(groups, "DeleteGroup", `/iam/v2beta1/groups/${uid}`, uid);
    },
  },
  {
    rpc: `${groupsV1}/ListGroups`,
    needs: "any",
    listsA: true,
    call: async (w) => get(groupsV1, "ListGroups", `/iam/v1/groups?uidp.children_of=${w.org}`, { uidp: { childrenOf: w.org } }),
  },

  {
    rpc: `${idents}/ListIdentities`,
    needs: "any",
    listsA: true,
    call: async (w) => get(idents, "ListIdentities", `/iam/v2beta1/identities?uidp.children_of=${w.a}`, { uidp: { childrenOf: w.a } }),
  },
  {
    rpc: `${idents}/LookupIdentity`,
    needs: "any",
    call: async () =>
      get(idents, "LookupIdentity", `/iam/v2beta1/identities:lookupIdentity?issuer=${encodeURIComponent(oidc.issuer)}&subject=ada`, {
        issuer: oidc.issuer,
        subject: "ada",
      }),
  },
  {
    rpc: `${idents}/ExplainExchange`,
    needs: "editor",
    call: async (w) => {
      // A token that fails the exchange's checks is still explained: only the caller decides the code.
      const uid = w.identities.viewer;
      const body = { token: "not-a-token", audience: "registry.example.com" };
      return {
        rest: { method: "POST", path: `/iam/v2beta1/identities/${uid}:explainExchange`, body },
        grpc: { service: idents, method: "ExplainExchange", request: { uid, ...body } },
      };
    },
  },
  {
    rpc: `${idents}/GetIdentity`,
    needs: "viewer",
    call: async (w) => get(idents, "GetIdentity", `/iam/v2beta1/identities/${w.identities.viewer}`, { uid: w.identities.viewer }),
  },
  {
    rpc: `${idents}/CreateIdentity`,
    needs: "editor",
    call: async (w) => {
      const n = w.seq();
      const body = { name: `ci-${n}`, claimMatch: claimMatch(n) };
      return {
        rest: { method: "POST", path: `/iam/v2beta1/identities/${w.a}`, body },
        grpc: { service: idents, method: "CreateIdentity", request: { parent: w.a, identity: body } },
      };
    },
  },
  {
    rpc: `${idents}/UpdateIdentity`,
    needs: "editor",
    call: async (w) => {
      const n = w.seq();
      const uid = await w.make(`/iam/v2beta1/identities/${w.a}`, { name: `ui-${n}`, claimMatch: claimMatch(n) });
      return {
        rest: { method: "PATCH", path: `/iam/v2beta1/identities/${uid}`, body: { description: "changed" } },
        grpc: {
          service: idents,
          method: "UpdateIdentity",
          request: { identity: { uid, description: "changed" }, updateMask: { paths: ["description"] } },
        },
      };
    },
  },
  {
    rpc: `${idents}/DeleteIdentity`,
    needs: "editor",
    call: async (w) => {
      const n = w.seq();
      const uid = await w.make(`/iam/v2beta1/identities/${w.a}`, { name: `di-${n}`, claimMatch: claimMatch(n) });
      return del(idents, "DeleteIdentity", `/iam/v2beta1/identities/${uid}`, uid);
    },
  },

  {
    rpc: `${roles}/ListRoles`,
    needs: "any",
    listsA: true,
    call: async (w) => get(roles, "ListRoles", `/iam/v2beta1/roles?uidp.descendants_of=${w.org}`, { uidp: { descendantsOf: w.org } }),
  },
  {
    rpc: `${roles}/GetRole`,
    variant: "built-in",
    needs: "any",
    call: async () => get(roles, "GetRole", `/iam/v2beta1/roles/${builtinRoleUid("viewer")}`, { uid: builtinRoleUid("viewer") }),
  },
  {
    rpc: `${roles}/GetRole`,
    variant: "custom",
    needs: "viewer",
    call: async (w) => get(roles, "GetRole", `/iam/v2beta1/roles/${w.customRole}`, { uid: w.customRole }),
  },
  {
    rpc: `${roles}/CreateRole`,
    needs: "owner",
    call: async (w) => {
      const body = { name: `cr-${w.seq()}`, capabilities: ["CAP_IAM_GROUPS_LIST"] };
      return {
        rest: { method: "POST", path: `/iam/v2beta1/roles/${w.a}`, body },
        grpc: { service: roles, method: "CreateRole", request: { parent: w.a, role: { ...body, capabilities: [103] } } },
      };
    },
  },
  {
    rpc: `${roles}/UpdateRole`,
    needs: "owner",
    call: async (w) => {
      const uid = await w.make(`/iam/v2beta1/roles/${w.a}`, { name: `ur-${w.seq()}`, capabilities: ["CAP_IAM_GROUPS_LIST"] });
      return {
        rest: { method: "PATCH", path: `/iam/v2beta1/roles/${uid}`, body: { description: "changed" } },
        grpc: {
          service: roles,
          method: "UpdateRole",
          request: { role: { uid, description: "changed" }, updateMask: { paths: ["description"] } },
        },
      };
    },
  },
  {
    rpc: `${roles}/DeleteRole`,
    needs: "owner",
    call: async (w) => {
      const uid = await w.make(`/iam/v2beta1/roles/${w.a}`, { name: `dr-${w.seq()}`, capabilities: ["CAP_IAM_GROUPS_LIST"] });
      return del(roles, "DeleteRole", `/iam/v2beta1/roles/${uid}`, uid);
    },
  },

  {
    rpc: `${bindings}/ListRoleBindings`,
    needs: "any",
    listsA: true,
    call: async (w) => get(bindings, "ListRoleBindings", `/iam/v2beta1/roleBindings?group=${w.a}`, { group: w.a }),
  },
  {
    rpc: `${bindings}/GetRoleBinding`,
    needs: "viewer",
    call: async (w) => {
      const n = w.seq();
      const identity = await w.make(`/iam/v2beta1/identities/${w.a}`, { name: `bg-${n}`, claimMatch: claimMatch(n) });
      const uid = await w.make(`/iam/v2beta1/roleBindings/${w.a}`, { identityUid: identity, roleUid: w.customRole });
      return get(bindings, "GetRoleBinding", `/iam/v2beta1/roleBindings/${uid}`, { uid });
    },
  },
  {
    rpc: `${bindings}/CreateRoleBinding`,
    needs: "owner",
    call: async (w) => {
      const n = w.seq();
      const identity = await w.make(`/iam/v2beta1/identities/${w.a}`, { name: `bi-${n}`, claimMatch: claimMatch(n) });
      const body = { identityUid: identity, roleUid: builtinRoleUid("viewer") };
      return {
        rest: { method: "POST", path: `/iam/v2beta1/roleBindings/${w.a}`, body },
        grpc: { service: bindings, method: "CreateRoleBinding", request: { parent: w.a, roleBinding: body } },
      };
    },
  },
  {
    rpc: `${bindings}/UpdateRoleBinding`,
    needs: "owner",
    call: async (w) => {
      const n = w.seq();
      const identity = await w.make(`/iam/v2beta1/identities/${w.a}`, { name: `bu-${n}`, claimMatch: claimMatch(n) });
      const uid = await w.make(`/iam/v2beta1/roleBindings/${w.a}`, { identityUid: identity, roleUid: builtinRoleUid("viewer") });
      const change = { roleUid: w.customRole };
      return {
        rest: { method: "PATCH", path: `/iam/v2beta1/roleBindings/${uid}`, body: change },
        grpc: { service: bindings, method: "UpdateRoleBinding", request: { roleBinding: { uid, ...change } } },
      };
    },
  },
  {
    rpc: `${bindings}/DeleteRoleBinding`,
    needs: "owner",
    call: async (w) => {
      const n = w.seq();
      const identity = await w.make(`/iam/v2beta1/identities/${w.a}`, { name: `bd-${n}`, claimMatch: claimMatch(n) });
      const uid = await w.make(`/iam/v2beta1/roleBindings/${w.a}`, { identityUid: identity, roleUid: builtinRoleUid("viewer") });
      return del(bindings, "DeleteRoleBinding", `/iam/v2beta1/roleBindings/${uid}`, uid);
    },
  },

  {
    rpc: `${idps}/ListIdentityProviders`,
    needs: "any",
    listsA: true,
    call: async (w) =>
      get(idps, "ListIdentityProviders", `/iam/v2beta1/identityProviders?uidp.children_of=${w.a}`, { uidp: { childrenOf: w.a } }),
  },
  {
    rpc: `${idps}/GetIdentityProvider`,
    needs: "viewer",
    call: async (w) => {
      const uid = await w.make(`/iam/v2beta1/identityProviders/${w.a}`, {
        name: `gp-${w.seq()}`,
        defaultRole: builtinRoleUid("viewer"),
        oidc,
      });
      return get(idps, "GetIdentityProvider", `/iam/v2beta1/identityProviders/${uid}`, { uid });
    },
  },
  {
    rpc: `${idps}/CreateIdentityProvider`,
    needs: "owner",
    call: async (w) => {
      const body = { name: `cp-${w.seq()}`, defaultRole: builtinRoleUid("viewer"), oidc };
      return {
        rest: { method: "POST", path: `/iam/v2beta1/identityProviders/${w.a}`, body },
        grpc: { service: idps, method: "CreateIdentityProvider", request: { parent: w.a, identityProvider: body } },
      };
    },
  },
  {
    rpc: `${idps}/UpdateIdentityProvider`,
    needs: "owner",
    call: async (w) => {
      const uid = await w.make(`/iam/v2beta1/identityProviders/${w.a}`, {
        name: `up-${w.seq()}`,
        defaultRole: builtinRoleUid("viewer"),
        oidc,
      });
      return {
        rest: { method: "PATCH", path: `/iam/v2beta1/identityProviders/${uid}`, body: { description: "changed" } },
        grpc: {
          service: idps,
          method: "UpdateIdentityProvider",
          request: { identityProvider: { uid, description: "changed" }, updateMask: { paths: ["description"] } },
        },
      };
    },
  },
  {
    rpc: `${idps}/DeleteIdentityProvider`,
    needs: "owner",
    call: async (w) => {
      const uid = await w.make(`/iam/v2beta1/identityProviders/${w.a}`, {
        name: `dp-${w.seq()}`,
        defaultRole: builtinRoleUid("viewer"),
        oidc,
      });
      return del(idps, "DeleteIdentityProvider", `/iam/v2beta1/identityProviders/${uid}`, uid);
    },
  },

  {
    rpc: `${assocs}/ListAccountAssociations`,
    needs: "any",
    listsA: true,
    call: async (w) => get(assocs, "ListAccountAssociations", `/iam/v2beta1/accountAssociations?uidp.ids=${w.a}`, { uidp: { ids: [w.a] } }),
  },
  {
    rpc: `${assocs}/GetAccountAssociation`,
    needs: "viewer",
    call: async (w) => get(assocs, "GetAccountAssociation", `/iam/v2beta1/accountAssociations/${w.a}`, { uid: w.a }),
  },
  {
    rpc: `${assocs}/CreateAccountAssociation`,
    needs: "owner",
    call: async (w) => {
      const group = await w.make(`/iam/v2beta1/groups/${w.a}`, { name: `aa-${w.seq()}` });
      const body = { name: "aws", amazon: { account: "123456789012" } };
      return {
        rest: { method: "POST", path: `/iam/v2beta1/accountAssociations/${group}`, body },
        grpc: { service: assocs, method: "CreateAccountAssociation", request: { parent: group, accountAssociation: body } },
      };
    },
  },
  {
    rpc: `${assocs}/UpdateAccountAssociation`,
    needs: "owner",
    call: async (w) => {
      const group = await w.make(`/iam/v2beta1/groups/${w.a}`, { name: `au-${w.seq()}` });
      await w.make(`/iam/v2beta1/accountAssociations/${group}`, { name: "aws", amazon: { account: "123456789012" } });
      return {
        rest: { method: "PATCH", path: `/iam/v2beta1/accountAssociations/${group}`, body: { description: "changed" } },
        grpc: {
          service: assocs,
          method: "UpdateAccountAssociation",
          request: { accountAssociation: { uid: group, description: "changed" }, updateMask: { paths: ["description"] } },
        },
      };
    },
  },
  {
    rpc: `${assocs}/DeleteAccountAssociation`,
    needs: "owner",
    call: async (w) => {
      const group = await w.make(`/iam/v2beta1/groups/${w.a}`, { name: `ad-${w.seq()}` });
      await w.make(`/iam/v2beta1/accountAssociations/${group}`, { name: "aws", amazon: { account: "123456789012" } });
      return del(assocs, "DeleteAccountAssociation", `/iam/v2beta1/accountAssociations/${group}`, group);
    },
  },

  {
    rpc: `${invites}/ListGroupInvites`,
    needs: "any",
    listsA: true,
    call: async (w) =>
      get(invites, "ListGroupInvites", `/iam/v2beta1/groupInvites?uidp.children_of=${w.a}&page_size=1`, {
        uidp: { childrenOf: w.a },
        pageSize: 1,
      }),
  },
  {
    rpc: `${invites}/GetGroupInvite`,
    needs: "viewer",
    call: async (w) => {
      const uid = await w.make(`/iam/v2beta1/groupInvites/${w.a}`, { roleUid: builtinRoleUid("viewer"), ttl: "3600s" });
      return get(invites, "GetGroupInvite", `/iam/v2beta1/groupInvites/${uid}`, { uid });
    },
  },
  {
    rpc: `${invites}/CreateGroupInvite`,
    needs: "owner",
    call: async (w) => {
      const body = { roleUid: builtinRoleUid("viewer"), ttl: "3600s" };
      return {
        rest: { method: "POST", path: `/iam/v2beta1/groupInvites/${w.a}`, body },
        grpc: {
          service: invites,
          method: "CreateGroupInvite",
          request: { parent: w.a, groupInvite: { roleUid: body.roleUid, ttl: { seconds: 3600 } } },
        },
      };
    },
  },
  {
    rpc: `${invites}/UpdateGroupInvite`,
    needs: "owner",
    call: async (w) => {
      const uid = await w.make(`/iam/v2beta1/groupInvites/${w.a}`, { roleUid: builtinRoleUid("viewer"), ttl: "3600s" });
      return {
        rest: { method: "PATCH", path: `/iam/v2beta1/groupInvites/${uid}`, body: { singleUse: true } },
        grpc: {
          service: invites,
          method: "UpdateGroupInvite",
          request: { groupInvite: { uid, singleUse: true }, updateMask: { paths: ["single_use"] } },
        },
      };
    },
  },
  {
    rpc: `${invites}/DeleteGroupInvite`,
    needs: "owner",
    call: async (w) => {
      const uid = await w.make(`/iam/v2beta1/groupInvites/${w.a}`, { roleUid: builtinRoleUid("viewer"), ttl: "3600s" });
      return del(invites, "DeleteGroupInvite", `/iam/v2beta1/groupInvites/${uid}`, uid);
    },
  },

  {
    rpc: `${audit}/ListAuditEvents`,
    needs: "any",
    listsA: true,
    seenFrom: "owner",
    call: async (w) => get(audit, "ListAuditEvents", `/audit/v1beta1/events?uidp.descendants_of=${w.a}`, { uidp: { descendantsOf: w.a } }),
  },
  {
    rpc: `${audit}/GetAuditEvent`,
    needs: "owner",
    call: async (w) => {
      const made = await w.make(`/iam/v2beta1/groups/${w.a}`, { name: `audited-${w.seq()}` });
      const res = await w.t.fetch(`/audit/v1beta1/events?resource_uid=${made}`, { token: w.admin });
      const uid = ((await res.json()) as { events: { uid: string }[] }).events[0]?.uid ?? "";
      return get(audit, "GetAuditEvent", `/audit/v1beta1/events/${uid}`, { uid });
    },
  },

  {
    rpc: `${reposV2}/ListRepos`,
    needs: "any",
    listsA: true,
    seenFrom: "pull",
    call: async (w) =>
      get(reposV2, "ListRepos", `/registry/v2beta1/repos?uidp.descendants_of=${w.org}`, { uidp: { descendantsOf: w.org } }),
  },
  {
    rpc: `${reposV2}/GetRepo`,
    needs: "pull",
    call: async (w) => {
      const uid = await w.push();
      return get(reposV2, "GetRepo", `/registry/v2beta1/repos/${uid}`, { uid });
    },
  },
  {
    rpc: `${tagsV2}/ListTags`,
    needs: "any",
    listsA: true,
    seenFrom: "pull",
    call: async (w) => get(tagsV2, "ListTags", `/registry/v2beta1/tags?uidp.descendants_of=${w.org}`, { uidp: { descendantsOf: w.org } }),
  },
  {
    rpc: `${tagsV2}/GetTag`,
    needs: "pull",
    call: async (w) => {
      const repo = await w.push();
      const res = await w.t.fetch(`/registry/v2beta1/tags?uidp.children_of=${repo}`, { token: w.admin });
      const uid = ((await res.json()) as { tags: { uid: string }[] }).tags[0]?.uid ?? "";
      return get(tagsV2, "GetTag", `/registry/v2beta1/tags/${uid}`, { uid });
    },
  },
  {
    rpc: `${registryV1}/ListRepos`,
    needs: "any",
    listsA: true,
    seenFrom: "pull",
    call: async (w) => get(registryV1, "ListRepos", `/registry/v1/repos?uidp.descendants_of=${w.org}`, { uidp: { descendantsOf: w.org } }),
  },
  {
    rpc: `${registryV1}/CreateRepo`,
    needs: "editor",
    call: async (w) => {
      const body = { name: `created-${w.seq()}` };
      return {
        rest: { method: "POST", path: `/registry/v1/repos/${w.a}`, body },
        grpc: { service: registryV1, method: "CreateRepo", request: { parentId: w.a, repo: body } },
      };
    },
  },
  {
    rpc: `${registryV1}/UpdateRepo`,
    needs: "editor",
    call: async (w) => {
      const id = await w.push();
      const body = { description: "changed" };
      return {
        rest: { method: "PUT", path: `/registry/v1/repos/${id}`, body },
        grpc: { service: registryV1, method: "UpdateRepo", request: { repo: { id, ...body } } },
      };
    },
  },
  {
    rpc: `${registryV1}/DeleteRepo`,
    needs: "editor",
    call: async (w) => {
      const id = await w.push();
      return {
        rest: { method: "DELETE", path: `/registry/v1/repos/${id}` },
        grpc: { service: registryV1, method: "DeleteRepo", request: { id } },
      };
    },
  },

  {
    rpc: `${advisories}/ListAdvisories`,
    needs: "viewer anywhere",
    call: async () => get(advisories, "ListAdvisories", "/vulnerabilities/v2beta1/advisories?page_size=1", { pageSize: 1 }),
  },
  {
    rpc: `${advisories}/GetAdvisory`,
    needs: "viewer anywhere",
    call: async (w) => get(advisories, "GetAdvisory", `/vulnerabilities/v2beta1/advisories/${w.advisory}`, { uid: w.advisory }),
  },
  {
    rpc: `${advisories}/CheckAdvisories`,
    needs: "viewer anywhere",
    call: async () => {
      const body = { packages: [{ ecosystem: "npm", name: "lodash", version: "4.17.15" }] };
      return {
        rest: { method: "POST", path: "/vulnerabilities/v2beta1/advisories:check", body },
        grpc: { service: advisories, method: "CheckAdvisories", request: body },
      };
    },
  },

  {
    rpc: `${subs}/ListSubscriptions`,
    needs: "any",
    listsA: true,
    call: async (w) => get(subs, "ListSubscriptions", `${SUBS}?uidp.children_of=${w.a}`, { uidp: { childrenOf: w.a } }),
  },
  {
    rpc: `${subs}/GetSubscription`,
    needs: "viewer",
    call: async (w) => {
      const uid = await w.make(`${SUBS}/${w.a}`, sink);
      return get(subs, "GetSubscription", `${SUBS}/${uid}`, { uid });
    },
  },
  {
    rpc: `${subs}/CreateSubscription`,
    needs: "editor",
    call: async (w) => ({
      rest: { method: "POST", path: `${SUBS}/${w.a}`, body: sink },
      grpc: { service: subs, method: "CreateSubscription", request: { parent: w.a, subscription: sink } },
    }),
  },
  {
    rpc: `${subs}/UpdateSubscription`,
    needs: "editor",
    call: async (w) => {
      const uid = await w.make(`${SUBS}/${w.a}`, sink);
      return {
        rest: { method: "PATCH", path: `${SUBS}/${uid}`, body: { types: ["dev.arbor.api.iam."] } },
        grpc: {
          service: subs,
          method: "UpdateSubscription",
          request: { subscription: { uid, types: ["dev.arbor.api.iam."] }, updateMask: { paths: ["types"] } },
        },
      };
    },
  },
  {
    rpc: `${subs}/ReplaySubscription`,
    needs: "editor",
    call: async (w) => {
      const uid = await w.make(`${SUBS}/${w.a}`, sink);
      return {
        rest: { method: "POST", path: `${SUBS}/${uid}:replay`, body: { fromTime: "2020-01-01T00:00:00Z" } },
        grpc: { service: subs, method: "ReplaySubscription", request: { uid, fromTime: { seconds: 1577836800 } } },
      };
    },
  },
  {
    rpc: `${subs}/DeleteSubscription`,
    needs: "editor",
    call: async (w) => {
      const uid = await w.make(`${SUBS}/${w.a}`, sink);
      return del(subs, "DeleteSubscription", `${SUBS}/${uid}`, uid);
    },
  },

  { rpc: `${ping}/Ping`, needs: "public", call: async () => get(ping, "Ping", "/ping/v2beta1/ping", {}) },
  {
    // The exchange takes no Arbor token: whoever calls, an upstream token that is not one is
    // refused alike (over REST the caller's Arbor token, sent as the bearer, is that token).
    rpc: `${idents}/ExchangeToken`,
    needs: "public",
    everyone: 16,
    call: async (w) => ({
      rest: { method: "GET", path: `/sts/exchange?aud=${encodeURIComponent(w.t.url)}&identity=${w.identities.viewer}` },
      grpc: { service: idents, method: "ExchangeToken", request: { token: "not-a-token", aud: w.t.url, identity: w.identities.viewer } },
    }),
  },
];

/** Each caller's role at A, and at the group where it is bound. */
const RANK: Record<Caller, number> = { owner: 3, editor: 2, viewer: 1, pull: 0, sibling: -1, anonymous: -2 };
const RANK_ANYWHERE: Record<Caller, number> = { ...RANK, sibling: 3 };
const NEED: Record<Exclude<Needs, "viewer anywhere" | "any" | "public">, number> = { owner: 3, editor: 2, viewer: 1, pull: 0 };

/** The code a caller must get. */
function expected(c: Case, caller: Caller): number {
  if (c.everyone !== undefined) return c.everyone;
  if (c.needs === "public") return 0;
  if (caller === "anonymous") return 16;
  if (c.needs === "any") return 0;
  if (c.needs === "viewer anywhere") return RANK_ANYWHERE[caller] >= NEED.viewer ? 0 : 7;
  return RANK[caller] >= NEED[c.needs] ? 0 : 7;
}

const REGISTERED = registeredRpcs();

const definition = protoLoader.loadSync([...new Set(REGISTERED.map((m) => `${m.parent.file.name}.proto`))], {
  includeDirs: [join(import.meta.dirname, "../../proto")],
  keepCase: false,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
});
const grpcPackage = grpc.loadPackageDefinition(definition) as any;

describe("the authorization matrix's coverage", () => {
  it("has a row for every RPC the server registers, and none for anything else", () => {
    expect(REGISTERED.length).toBeGreaterThan(40);
    expect([...new Set(cases.map((c) => c.rpc))].sort()).toEqual(REGISTERED.map(rpcName).sort());
  });
});

for (const engine of engines) {
  describe.skipIf(engine.skipReason !== undefined)(`authorization matrix [${engine.name}]`, () => {
    const w = {} as World;
    const clients = new Map<string, grpc.Client>();
    let counter = 0;

    beforeAll(async () => {
      w.t = await startTestServer(engine);
      const o = await w.t.organization("matrix");
      w.admin = o.token;
      w.org = o.org.uid;
      w.seq = () => ++counter;
      w.make = async (path, body) => {
        const res = await w.t.fetch(path, { method: "POST", token: w.admin, body: JSON.stringify(body) });
        const json = (await res.json()) as { uid: string };
        if (res.status !== 200) throw new Error(`setup ${path}: ${res.status} ${JSON.stringify(json)}`);
        return json.uid;
      };
      w.a = await w.make(`/iam/v2beta1/groups/${w.org}`, { name: "a" });
      w.b = await w.make(`/iam/v2beta1/groups/${w.org}`, { name: "b" });
      const index = createRegistryIndex(w.t.server.deps);
      w.push = async () => {
        const repository = `matrix/a/repo-${w.seq()}`;
        await index.pushed({ repository, tag: "latest", digest: `sha256:${"a".repeat(64)}`, time: 1 });
        const uid = (await index.resolve(repository))?.repoUid;
        if (uid === undefined) throw new Error(`setup: ${repository} was not indexed`);
        return uid;
      };
      await w.push();
      await importPaths(w.t.server.store, [OSV.feed]);
      w.advisory = FEED_IDS[0] as string;
      w.customRole = await w.make(`/iam/v2beta1/roles/${w.a}`, { name: "lister", capabilities: ["CAP_IAM_GROUPS_LIST"] });
      w.identities = {} as World["identities"];
      w.tokens = {} as World["tokens"];
      const at: Record<Exclude<Caller, "anonymous">, [string, string]> = {
        owner: [w.a, "owner"],
        editor: [w.a, "editor"],
        viewer: [w.a, "viewer"],
        pull: [w.a, "registry.pull"],
        sibling: [w.b, "owner"],
      };
      for (const [caller, [group, role]] of Object.entries(at) as [Exclude<Caller, "anonymous">, [string, string]][]) {
        const uid = await w.make(`/iam/v2beta1/identities/${group}`, { name: `as-${caller}`, claimMatch: claimMatch(1000 + w.seq()) });
        await w.make(`/iam/v2beta1/roleBindings/${group}`, { identityUid: uid, roleUid: builtinRoleUid(role) });
        w.identities[caller] = uid;
        w.tokens[caller] = (await w.t.server.tokens.issue(uid, w.t.url)).token;
      }
      await w.make(`/iam/v2beta1/identityProviders/${w.a}`, { name: "listed", defaultRole: builtinRoleUid("viewer"), oidc });
      await w.make(`/iam/v2beta1/accountAssociations/${w.a}`, { name: "listed", amazon: { account: "123456789012" } });
      await w.make(`/iam/v2beta1/groupInvites/${w.a}`, { roleUid: builtinRoleUid("viewer"), ttl: "3600s" });
      await w.make(`${SUBS}/${w.a}`, sink);
    });
    afterAll(async () => {
      for (const c of clients.values()) c.close();
      await w.t?.close();
    });

    function client(service: string): grpc.Client {
      let c = clients.get(service);
      if (!c) {
        const ctor = service.split(".").reduce((o: any, k) => o[k], grpcPackage);
        c = new ctor(`127.0.0.1:${w.t.server.port}`, grpc.credentials.createInsecure()) as grpc.Client;
        clients.set(service, c);
      }
      return c;
    }

    async function viaRest(call: Call, token: string | undefined): Promise<{ code: number; body: any }> {
      const res = await w.t.fetch(call.rest.path, {
        method: call.rest.method,
        ...(token !== undefined && { token }),
        ...(call.rest.body !== undefined && { body: JSON.stringify(call.rest.body), headers: { "content-type": "application/json" } }),
      });
      const body = (await res.json()) as any;
      return { code: res.status === 200 ? 0 : body.code, body };
    }

    async function viaGrpc(call: Call, token: string | undefined): Promise<{ code: number; body: any }> {
      const md = new grpc.Metadata();
      if (token !== undefined) md.set("authorization", `Bearer ${token}`);
      const c = client(call.grpc.service) as any;
      return new Promise((resolve) => {
        c[call.grpc.method](call.grpc.request, md, (err: grpc.ServiceError | null, res: unknown) =>
          resolve(err ? { code: err.code, body: { message: err.details } } : { code: 0, body: res }),
        );
      });
    }

    /** How many items of a list response lie in A's subtree. */
    function underA(body: any): number {
      const items: any[] = body.items ?? Object.values(body).find((v) => Array.isArray(v)) ?? [];
      return items.filter((i) => {
        const uid: string = i.uid ?? i.id ?? "";
        return uid === w.a || uid.startsWith(`${w.a}/`);
      }).length;
    }

    for (const transport of ["REST", "gRPC"] as const) {
      for (const c of cases) {
        it.each(CALLERS)(`${transport} ${c.rpc}${c.variant === undefined ? "" : ` (${c.variant})`} as %s`, async (caller) => {
          const call = await c.call(w);
          expect(`${call.grpc.service}/${call.grpc.method}`, "the row's call is its RPC").toBe(c.rpc);
          const token = caller === "anonymous" ? undefined : w.tokens[caller];
          const { code, body } = transport === "REST" ? await viaRest(call, token) : await viaGrpc(call, token);
          expect({ code, message: body.message }).toMatchObject({ code: expected(c, caller) });
          if (c.listsA && code === 0) {
            const seen = underA(body);
            if (RANK[caller] >= NEED[c.seenFrom ?? "viewer"]) expect(seen).toBeGreaterThan(0);
            else expect(seen).toBe(0);
          }
        });
      }
    }
  });
}
