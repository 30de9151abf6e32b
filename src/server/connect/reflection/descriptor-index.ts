/**
 * What server reflection answers from: the proto files of the served services and everything they
 * import, indexed by file name, by fully-qualified symbol and by extension.
 */
import { toBinary, type DescEnum, type DescExtension, type DescFile, type DescMessage, type DescService } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";

/** The served contract, as reflection looks things up in it. */
export interface DescriptorIndex {
  /** The fully-qualified names of the served services, in the order given. */
  readonly serviceNames: readonly string[];
  /** The file with this name (`arbor/iam/v2beta1/groups.proto`), if served. */
  fileByName(name: string): DescFile | undefined;
  /** The file declaring a symbol: package-qualified service, method, message, field, enum, enum value, oneof or extension. */
  fileOfSymbol(symbol: string): DescFile | undefined;
  /** The file declaring the extension of a message type with a field number. */
  fileOfExtension(extendee: string, number: number): DescFile | undefined;
  /** The field numbers of every known extension of a message type; undefined when the type is unknown. */
  extensionNumbersOf(extendee: string): number[] | undefined;
  /** The serialized FileDescriptorProto of a file, then of its transitive imports (each once). */
  serializedWithImports(file: DescFile): Uint8Array[];
}

/** Indexes the files of services (and their transitive imports). */
export function createDescriptorIndex(services: readonly DescService[]): DescriptorIndex {
  const files = new Map<string, DescFile>();
  const visit = (file: DescFile): void => {
    if (files.has(file.proto.name)) return;
    files.set(file.proto.name, file);
    file.dependencies.forEach(visit);
  };
  services.forEach((s) => visit(s.file));
  const symbols = new Map<string, DescFile>();
  const extensions: DescExtension[] = [];
  const messageTypes = new Set<string>();
  for (const file of files.values()) {
    const add = (name: string): void => void symbols.set(name, file);
    const addEnum = (e: DescEnum, scope: string): void => {
      add(e.typeName);
      // Enum values are siblings of their enum in protobuf's scoping, not its children.
      for (const v of e.values) add(`${scope}${v.name}`);
    };
    const addExtension = (x: DescExtension): void => {
      add(x.typeName);
      extensions.push(x);
    };
    const addMessage = (m: DescMessage): void => {
      add(m.typeName);
      messageTypes.add(m.typeName);
      for (const f of m.fields) add(`${m.typeName}.${f.name}`);
      for (const o of m.oneofs) add(`${m.typeName}.${o.name}`);
      m.nestedEnums.forEach((e) => addEnum(e, `${m.typeName}.`));
      m.nestedMessages.forEach(addMessage);
      // Map entry types are nested messages in the descriptor, though protobuf-es hides them.
      for (const nested of m.proto.nestedType) if (nested.options?.mapEntry === true) add(`${m.typeName}.${nested.name}`);
      m.nestedExtensions.forEach(addExtension);
    };
    const pkg = file.proto.package === "" ? "" : `${file.proto.package}.`;
    file.enums.forEach((e) => addEnum(e, pkg));
    file.messages.forEach(addMessage);
    file.extensions.forEach(addExtension);
    for (const s of file.services) {
      add(s.typeName);
      for (const m of s.methods) add(`${s.typeName}.${m.name}`);
    }
  }
  const serialized = new Map<DescFile, Uint8Array>();
  const bytesOf = (file: DescFile): Uint8Array => {
    let bytes = serialized.get(file);
    if (bytes === undefined) serialized.set(file, (bytes = toBinary(FileDescriptorProtoSchema, file.proto)));
    return bytes;
  };
  return {
    serviceNames: services.map((s) => s.typeName),
    fileByName: (name) => files.get(name),
    fileOfSymbol: (symbol) => symbols.get(symbol.replace(/^\./, "")),
    fileOfExtension(extendee, number) {
      return extensions.find((x) => x.extendee.typeName === extendee && x.number === number)?.file;
    },
    extensionNumbersOf(extendee) {
      if (!messageTypes.has(extendee)) return undefined;
      return extensions.filter((x) => x.extendee.typeName === extendee).map((x) => x.number);
    },
    serializedWithImports(file) {
      const out: DescFile[] = [];
      const walk = (f: DescFile): void => {
        if (out.includes(f)) return;
        out.push(f);
        f.dependencies.forEach(walk);
      };
      walk(file);
      return out.map(bytesOf);
    },
  };
}
