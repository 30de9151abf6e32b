/**
 * grpc-js method definitions that pass messages through as bytes, for the S6 baseline servers
 * (and any server that answers with bytes it already has, or decodes them itself).
 */
import type { MethodDefinition } from "@grpc/grpc-js";

const raw = (b: Buffer) => b;

/** A unary method at path (`/package.Service/Method`) whose requests and answers are raw bytes. */
export function rawUnaryMethod(path: string): MethodDefinition<Buffer, Buffer> {
  return {
    path,
    requestStream: false,
    responseStream: false,
    requestSerialize: raw,
    requestDeserialize: raw,
    responseSerialize: raw,
    responseDeserialize: raw,
  };
}
