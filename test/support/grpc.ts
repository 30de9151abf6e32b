/**
 * @grpc/grpc-js as the independent client of the end-to-end tests: it loads the .proto contract
 * itself (not Arbor's generated code), calls unary methods with a bearer token, and decodes
 * grpc-status-details-bin.
 */
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { fromBinary } from "@bufbuild/protobuf";
import { StatusSchema, type Status } from "../../src/gen/google/rpc/status_pb.js";

/** The gRPC package tree of these .proto files (paths under proto/). */
export function loadProtos(files: string[], options: protoLoader.Options = {}): any {
  const definition = protoLoader.loadSync(files, {
    includeDirs: [join(import.meta.dirname, "../../proto")],
    keepCase: false,
    longs: String,
    defaults: true,
    oneofs: true,
    ...options,
  });
  return grpc.loadPackageDefinition(definition);
}

type Unary = (req: object, md: grpc.Metadata, cb: (err: grpc.ServiceError | null, res: any) => void) => void;

/** Calls a unary method, with `Authorization: Bearer <token>` when a token is given. */
export function call(client: grpc.Client, method: string, req: object, token?: string): Promise<any> {
  const md = new grpc.Metadata();
  if (token !== undefined) md.set("authorization", `Bearer ${token}`);
  return new Promise((resolve, reject) => {
    ((client as any)[method] as Unary).call(client, req, md, (err, res) => (err ? reject(err) : resolve(res)));
  });
}

/** The error a call fails with; throws when it succeeds. */
export async function failure(p: Promise<unknown>): Promise<grpc.ServiceError> {
  try {
    await p;
  } catch (e) {
    return e as grpc.ServiceError;
  }
  throw new Error("expected the call to fail");
}

/** The google.rpc.Status a failed call carries in grpc-status-details-bin. */
export function statusOf(err: grpc.ServiceError): Status {
  return fromBinary(StatusSchema, err.metadata.get("grpc-status-details-bin")[0] as Buffer);
}
