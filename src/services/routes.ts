/**
 * The one place services are registered. Every transport (REST, gRPC, gRPC-Web, Connect) serves
 * exactly this list.
 */
import { GroupsService as GroupsV1 } from "../gen/arbor/iam/v1/groups_pb.js";
import { AccountAssociationsService } from "../gen/arbor/iam/v2beta1/account_associations_pb.js";
import { GroupInvitesService } from "../gen/arbor/iam/v2beta1/group_invites_pb.js";
import { GroupsService } from "../gen/arbor/iam/v2beta1/groups_pb.js";
import { IdentitiesService } from "../gen/arbor/iam/v2beta1/identities_pb.js";
import { IdentityProvidersService } from "../gen/arbor/iam/v2beta1/identity_providers_pb.js";
import { RoleBindingsService } from "../gen/arbor/iam/v2beta1/role_bindings_pb.js";
import { RolesService } from "../gen/arbor/iam/v2beta1/roles_pb.js";
import { PingService } from "../gen/arbor/ping/v2beta1/ping_pb.js";
import { RegistryService as RegistryV1 } from "../gen/arbor/registry/v1/registry_pb.js";
import { ReposService } from "../gen/arbor/registry/v2beta1/repos_pb.js";
import { TagsService } from "../gen/arbor/registry/v2beta1/tags_pb.js";
import { AdvisoriesService } from "../gen/arbor/vulnerabilities/v2beta1/advisories_pb.js";
import { AuditService } from "../gen/arbor/audit/v1beta1/audit_pb.js";
import { SubscriptionsService } from "../gen/arbor/events/v2beta1/subscriptions_pb.js";
import { createAccountAssociationsService } from "./iam/account-associations-service.js";
import { createAdvisoriesService } from "./vulnerabilities/advisories-service.js";
import { createAuditService } from "./audit/audit-service.js";
import type { ServiceDeps } from "./deps.js";
import { createGroupInvitesService } from "./iam/group-invites-service.js";
import { createGroupsService } from "./iam/groups-service.js";
import { createGroupsV1Service } from "./iam/groups-v1-service.js";
import { createIdentitiesService } from "./iam/identities-service.js";
import { createIdentityProvidersService } from "./iam/identity-providers-service.js";
import { createPingService } from "./ping-service.js";
import { createRegistryV1Service } from "./registry/registry-v1-service.js";
import { createReposService } from "./registry/repos-service.js";
import { createRoleBindingsService } from "./iam/role-bindings-service.js";
import { createRolesService } from "./iam/roles-service.js";
import { createSubscriptionsService } from "./events/subscriptions-service.js";
import { createTagsService } from "./registry/tags-service.js";
import { bindService, type ServiceBinding } from "./service-impl.js";

/**
 * Every service Arbor serves, bound to its implementation: the one place each service's
 * create*Service is called, so a new service is registered here (docs/adding-a-resource.md).
 */
export function createServices(deps: ServiceDeps): ServiceBinding[] {
  return [
    bindService(GroupsService, createGroupsService(deps)),
    bindService(GroupsV1, createGroupsV1Service(deps)),
    bindService(IdentitiesService, createIdentitiesService(deps)),
    bindService(PingService, createPingService()),
    bindService(RolesService, createRolesService(deps)),
    bindService(RoleBindingsService, createRoleBindingsService(deps)),
    bindService(IdentityProvidersService, createIdentityProvidersService(deps)),
    bindService(AccountAssociationsService, createAccountAssociationsService(deps)),
    bindService(GroupInvitesService, createGroupInvitesService(deps)),
    bindService(AdvisoriesService, createAdvisoriesService(deps)),
    bindService(ReposService, createReposService(deps)),
    bindService(TagsService, createTagsService(deps)),
    bindService(RegistryV1, createRegistryV1Service(deps)),
    bindService(AuditService, createAuditService(deps)),
    bindService(SubscriptionsService, createSubscriptionsService(deps)),
  ];
}
