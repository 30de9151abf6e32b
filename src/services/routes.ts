/**
 * The one place services are registered. Every transport (REST, gRPC, gRPC-Web, Connect) serves
 * exactly this list.
 */
import { GroupsService as GroupsV1 } from "../gen/arbor/iam/v1/groups_pb.js";
import { GroupsService } from "../gen/arbor/iam/v2beta1/groups_pb.js";
import { PingService } from "../gen/arbor/ping/v2beta1/ping_pb.js";
import type { ServiceDeps } from "./deps.js";
import { createGroupsService } from "./groups-service.js";
import { createGroupsV1Service } from "./groups-v1-service.js";
import { createPingService } from "./ping-service.js";
import { bindService, type ServiceBinding } from "./service-impl.js";

/** Every service Arbor serves, bound to its implementation. */
export function createServices(deps: ServiceDeps): ServiceBinding[] {
  return [
    bindService(GroupsService, createGroupsService(deps)),
    bindService(GroupsV1, createGroupsV1Service(deps)),
    bindService(PingService, createPingService()),
  ];
}
