/**
 * gRPC server reflection (grpc.reflection.v1 and the older v1alpha, which many tools still try
 * first), so generic clients such as grpcurl, Postman or Evans can list and call Arbor's services
 * without the .proto files.
 */
import { create, fromBinary, toBinary, type DescMessage, type DescService, type MessageShape } from "@bufbuild/protobuf";
import { Code, type ConnectRouter, type HandlerContext } from "@connectrpc/connect";
import {
  ServerReflection,
  ServerReflectionRequestSchema,
  ServerReflectionResponseSchema,
  type ServerReflectionRequest,
  type ServerReflectionResponse,
} from "../../../gen/grpc/reflection/v1/reflection_pb.js";
import { ServerReflection as ServerReflectionV1Alpha } from "../../../gen/grpc/reflection/v1alpha/reflection_pb.js";
import { createDescriptorIndex, type DescriptorIndex } from "./descriptor-index.js";
import type { RequestLog } from "../../http/request-log.js";

/**
 * Registers both reflection services on a router, describing `services` and themselves.
 * `recordOf` gives the access-log record of a call: reflection answers every request in-stream
 * (errors included), so the call itself ends with code 0.
 */
export function registerReflection(
  router: ConnectRouter,
  services: readonly DescService[],
  recordOf: (ctx: HandlerContext) => RequestLog,
): void {
  const index = createDescriptorIndex([...services, ServerReflection, ServerReflectionV1Alpha]);
  router.service(ServerReflection, {
    async *serverReflectionInfo(requests, ctx) {
      const record = recordOf(ctx);
      record.rpc = `${ServerReflection.typeName}/ServerReflectionInfo`;
      for await (const request of requests) yield answer(index, request);
      record.code = 0;
    },
  });
  // v1alpha is wire-identical to v1 (same messages, same field numbers): translate through bytes.
  const v1alpha = ServerReflectionV1Alpha.method.serverReflectionInfo;
  router.service(ServerReflectionV1Alpha, {
    async *serverReflectionInfo(requests, ctx) {
      const record = recordOf(ctx);
      record.rpc = `${ServerReflectionV1Alpha.typeName}/ServerReflectionInfo`;
      for await (const request of requests) {
        const response = answer(index, convert(v1alpha.input, ServerReflectionRequestSchema, request));
        yield convert(ServerReflectionResponseSchema, v1alpha.output, response);
      }
      record.code = 0;
    },
  });
}

/** The answer to one reflection request; lookups that fail answer with error_response, not by ending the stream. */
function answer(index: DescriptorIndex, request: ServerReflectionRequest): ServerReflectionResponse {
  const base: Base = { validHost: request.host, originalRequest: request };
  const files = (file: ReturnType<DescriptorIndex["fileByName"]>, what: string): ServerReflectionResponse =>
    file === undefined
      ? error(base, Code.NotFound, `${what} not found`)
      : create(ServerReflectionResponseSchema, {
          ...base,
          messageResponse: { case: "fileDescriptorResponse", value: { fileDescriptorProto: index.serializedWithImports(file) } },
        });
  const { case: kind, value } = request.messageRequest;
  switch (kind) {
    case "listServices": {
      return create(ServerReflectionResponseSchema, {
        ...base,
        messageResponse: { case: "listServicesResponse", value: { service: index.serviceNames.map((name) => ({ name })) } },
      });
    }
    case "fileByFilename":
      return files(index.fileByName(value), `file ${value}`);
    case "fileContainingSymbol":
      return files(index.fileOfSymbol(value), `symbol ${value}`);
    case "fileContainingExtension":
      return files(
        index.fileOfExtension(value.containingType, value.extensionNumber),
        `extension ${value.extensionNumber} of ${value.containingType}`,
      );
    case "allExtensionNumbersOfType": {
      const numbers = index.extensionNumbersOf(value);
      if (numbers === undefined) return error(base, Code.NotFound, `type ${value} not found`);
      return create(ServerReflectionResponseSchema, {
        ...base,
        messageResponse: { case: "allExtensionNumbersResponse", value: { baseTypeName: value, extensionNumber: numbers } },
      });
    }
    case undefined:
      return error(base, Code.InvalidArgument, "the request names no message_request");
  }
}

/** The fields every response echoes. */
interface Base {
  validHost: string;
  originalRequest: ServerReflectionRequest;
}

function error(base: Base, code: Code, message: string): ServerReflectionResponse {
  return create(ServerReflectionResponseSchema, {
    ...base,
    messageResponse: { case: "errorResponse", value: { errorCode: code, errorMessage: message } },
  });
}

function convert<To extends DescMessage>(from: DescMessage, to: To, message: MessageShape<DescMessage>): MessageShape<To> {
  return fromBinary(to, toBinary(from, message));
}
