/**
 * The ping service: answers without credentials.
 */
import { create } from "@bufbuild/protobuf";
import { PingResponseSchema, type PingResponse } from "../gen/arbor/ping/v2beta1/ping_pb.js";

export function createPingService() {
  return {
    async ping(): Promise<PingResponse> {
      return create(PingResponseSchema, { response: "pong" });
    },
  };
}
