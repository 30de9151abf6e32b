/**
 * The shape of a service implementation: one async function per RPC, taking the request message
 * and the call context. Typed from the generated descriptor so an implementation cannot drift
 * from the contract.
 */
import type { DescMessage, DescService, Message, MessageShape } from "@bufbuild/protobuf";
import type { GenServiceMethods } from "@bufbuild/protobuf/codegenv2";
import type { CallContext } from "./context.js";

type MethodsOf<S> = S extends { method: infer M } ? M : never;
type Fn<M> = M extends { input: infer I extends DescMessage; output: infer O extends DescMessage }
  ? (req: MessageShape<I>, ctx: CallContext) => Promise<MessageShape<O>>
  : never;

/** Every RPC of service S, implemented. */
export type ServiceImpl<S extends DescService> = {
  [K in keyof MethodsOf<S>]: Fn<MethodsOf<S>[K]>;
};

/** One untyped RPC handler, as transports call it. */
export type RpcHandler = (req: Message, ctx: CallContext) => Promise<Message>;

/** A service and its implementation, as the routes file lists them. */
export interface ServiceBinding {
  service: DescService;
  handlers: ReadonlyMap<string, RpcHandler>;
}

/** Pairs a service descriptor with its typed implementation. */
export function bindService<S extends DescService & { method: GenServiceMethods }>(service: S, impl: ServiceImpl<S>): ServiceBinding {
  const handlers = new Map<string, RpcHandler>();
  for (const method of service.methods) {
    const fn = (impl as Record<string, RpcHandler | undefined>)[method.localName];
    if (fn === undefined) throw new Error(`${service.typeName} has no implementation of ${method.name}`);
    handlers.set(method.localName, fn.bind(impl));
  }
  return { service, handlers };
}
