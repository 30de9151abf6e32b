/**
 * Every service Arbor serves, arranged as the client exposes them: by API area, then version,
 * then resource (`client.iam.v2beta1.groups`). A contract test keeps this tree equal to the
 * services the server registers (src/services/routes.ts).
 */
import { AuditService } from "../gen/arbor/audit/v1beta1/audit_pb.js";
import { SubscriptionsService } from "../gen/arbor/events/v2beta1/subscriptions_pb.js";
import { GroupsService as GroupsServiceV1 } from "../gen/arbor/iam/v1/groups_pb.js";
import { AccountAssociationsService } from "../gen/arbor/iam/v2beta1/account_associations_pb.js";
import { GroupInvitesService } from "../gen/arbor/iam/v2beta1/group_invites_pb.js";
import { GroupsService } from "../gen/arbor/iam/v2beta1/groups_pb.js";
import { IdentitiesService } from "../gen/arbor/iam/v2beta1/identities_pb.js";
import { IdentityProvidersService } from "../gen/arbor/iam/v2beta1/identity_providers_pb.js";
import { RoleBindingsService } from "../gen/arbor/iam/v2beta1/role_bindings_pb.js";
import { RolesService } from "../gen/arbor/iam/v2beta1/roles_pb.js";
import { PingService } from "../gen/arbor/ping/v2beta1/ping_pb.js";
import { RegistryService as RegistryServiceV1 } from "../gen/arbor/registry/v1/registry_pb.js";
import { ReposService } from "../gen/arbor/registry/v2beta1/repos_pb.js";
import { TagsService } from "../gen/arbor/registry/v2beta1/tags_pb.js";
import { AdvisoriesService } from "../gen/arbor/vulnerabilities/v2beta1/advisories_pb.js";

/** The service descriptors of the API, by area, version and resource. */
export const ARBOR_SERVICES = {
  iam: {
    v2beta1: {
      groups: GroupsService,
      identities: IdentitiesService,
      identityProviders: IdentityProvidersService,
      roles: RolesService,
      roleBindings: RoleBindingsService,
      accountAssociations: AccountAssociationsService,
      groupInvites: GroupInvitesService,
    },
    v1: { groups: GroupsServiceV1 },
  },
  registry: {
    v2beta1: { repos: ReposService, tags: TagsService },
    v1: { registry: RegistryServiceV1 },
  },
  vulnerabilities: { v2beta1: { advisories: AdvisoriesService } },
  audit: { v1beta1: { audit: AuditService } },
  events: { v2beta1: { subscriptions: SubscriptionsService } },
  ping: { v2beta1: { ping: PingService } },
} as const;
