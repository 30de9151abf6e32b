/**
 * A test proto built in code, for the shapes Arbor's protos do not have (yet): custom verbs,
 * nested path patterns, custom methods, every scalar kind, enums, and timestamps inside lists,
 * maps, oneofs and recursive messages. Equivalent to:
 *
 *     enum Color { COLOR_UNSPECIFIED = 0; RED = 1; BLUE = 2; }
 *     message Inner { string issuer = 1; string subject = 2; Timestamp seen_time = 3; }
 *     message Shuffled { string uid = 1; string zeta = 5; string alpha = 2; Timestamp create_time = 9; }
 *     message Item { string uid = 1; string name = 2; int64 size = 3; bool enabled = 4;
 *       Color color = 5; Timestamp create_time = 6; repeated Timestamp times = 7;
 *       map<string, Timestamp> time_map = 8; Inner inner = 9; repeated Inner inners = 10;
 *       oneof choice { string label = 11; Inner picked = 12; } map<string, int32> limits = 13;
 *       Struct attrs = 14; optional string note = 15; repeated string tags = 16; Item child = 17;
 *       map<int32, string> by_number = 18; }
 *     message ItemRequest { Item item = 1; FieldMask update_mask = 2; string parent = 3;
 *       int32 n32 = 4; int64 n64 = 5; uint64 u64 = 6; bool flag = 7; Color color = 8;
 *       Timestamp since = 9; repeated Color colors = 10; double ratio = 11; Int32Value wrapped = 12;
 *       map<string, string> labels = 13; bytes blob = 14; Inner inner = 15; repeated int64 sizes = 16;
 *       uint32 u32 = 17; float f32 = 18; }
 *     service ItemService { ...the bindings in METHODS below... }
 */
import {
  create,
  createFileRegistry,
  setExtension,
  type DescFile,
  type DescMessage,
  type DescService,
  type MessageInitShape,
} from "@bufbuild/protobuf";
import { protoCamelCase } from "@bufbuild/protobuf/reflect";
import {
  DescriptorProtoSchema,
  FieldDescriptorProto_Label as Label,
  FieldDescriptorProto_Type as Type,
  FieldDescriptorProtoSchema,
  FileDescriptorProtoSchema,
  file_google_protobuf_field_mask,
  file_google_protobuf_struct,
  file_google_protobuf_timestamp,
  file_google_protobuf_wrappers,
  MethodOptionsSchema,
  type DescriptorProto,
  type FieldDescriptorProto,
} from "@bufbuild/protobuf/wkt";
import { file_google_api_annotations, http } from "../../../src/gen/google/api/annotations_pb.js";
import { HttpRuleSchema } from "../../../src/gen/google/api/http_pb.js";

type FieldSpec = [name: string, number: number, type: Type | string, extra?: { repeated?: boolean; oneof?: number; optional?: boolean }];

const TS = ".google.protobuf.Timestamp";

function field([name, number, type, extra = {}]: FieldSpec): FieldDescriptorProto {
  const typeName = typeof type === "string" ? type : undefined;
  const kind = typeName === undefined ? (type as Type) : typeName === ".test.rest.Color" ? Type.ENUM : Type.MESSAGE;
  return create(FieldDescriptorProtoSchema, {
    name,
    number,
    jsonName: protoCamelCase(name),
    label: extra.repeated ? Label.REPEATED : Label.OPTIONAL,
    type: kind,
    ...(typeName !== undefined && { typeName }),
    ...(extra.oneof !== undefined && { oneofIndex: extra.oneof }),
    ...(extra.optional && { proto3Optional: true }),
  });
}

function mapEntry(name: string, key: Type, value: Type | string): DescriptorProto {
  return create(DescriptorProtoSchema, {
    name,
    field: [field(["key", 1, key]), field(["value", 2, value])],
    options: { mapEntry: true },
  });
}

function message(name: string, fields: FieldSpec[], extra: MessageInitShape<typeof DescriptorProtoSchema> = {}): DescriptorProto {
  return create(DescriptorProtoSchema, { name, field: fields.map(field), ...extra });
}

const ITEM: FieldSpec[] = [
  ["uid", 1, Type.STRING],
  ["name", 2, Type.STRING],
  ["size", 3, Type.INT64],
  ["enabled", 4, Type.BOOL],
  ["color", 5, ".test.rest.Color"],
  ["create_time", 6, TS],
  ["times", 7, TS, { repeated: true }],
  ["time_map", 8, ".test.rest.Item.TimeMapEntry", { repeated: true }],
  ["inner", 9, ".test.rest.Inner"],
  ["inners", 10, ".test.rest.Inner", { repeated: true }],
  ["label", 11, Type.STRING, { oneof: 0 }],
  ["picked", 12, ".test.rest.Inner", { oneof: 0 }],
  ["limits", 13, ".test.rest.Item.LimitsEntry", { repeated: true }],
  ["attrs", 14, ".google.protobuf.Struct"],
  ["note", 15, Type.STRING, { oneof: 1, optional: true }],
  ["tags", 16, Type.STRING, { repeated: true }],
  ["child", 17, ".test.rest.Item"],
  ["by_number", 18, ".test.rest.Item.ByNumberEntry", { repeated: true }],
];

const ITEM_REQUEST: FieldSpec[] = [
  ["item", 1, ".test.rest.Item"],
  ["update_mask", 2, ".google.protobuf.FieldMask"],
  ["parent", 3, Type.STRING],
  ["n32", 4, Type.INT32],
  ["n64", 5, Type.INT64],
  ["u64", 6, Type.UINT64],
  ["flag", 7, Type.BOOL],
  ["color", 8, ".test.rest.Color"],
  ["since", 9, TS],
  ["colors", 10, ".test.rest.Color", { repeated: true }],
  ["ratio", 11, Type.DOUBLE],
  ["wrapped", 12, ".google.protobuf.Int32Value"],
  ["labels", 13, ".test.rest.ItemRequest.LabelsEntry", { repeated: true }],
  ["blob", 14, Type.BYTES],
  ["inner", 15, ".test.rest.Inner"],
  ["sizes", 16, Type.INT64, { repeated: true }],
  ["u32", 17, Type.UINT32],
  ["f32", 18, Type.FLOAT],
];

/** The bindings of ItemService, by method name. */
const METHODS: Record<string, MessageInitShape<typeof HttpRuleSchema>> = {
  LookupGroup: { pattern: { case: "post", value: "/iam/v2beta1/groups:lookupGroup" }, body: "*" },
  ListChildren: { pattern: { case: "get", value: "/iam/v2beta1/groups/{parent=**}:children" } },
  // Declared before the more specific GetNested, so that matching must rank, not take the first.
  GetDeepDetail: { pattern: { case: "get", value: "/v1/{parent=**}/detail" } },
  GetNested: { pattern: { case: "get", value: "/v1/{parent=projects/*/items/*}/detail" } },
  UpdateItem: { pattern: { case: "patch", value: "/v1/items/{item.uid=**}" }, body: "item" },
  ReplaceItem: { pattern: { case: "put", value: "/v1/items/{item.uid}" }, body: "*" },
  Search: { pattern: { case: "custom", value: { kind: "SEARCH", path: "/v1/items" } } },
  QueryItems: { pattern: { case: "get", value: "/v1/items" }, responseBody: "inner" },
  Wild: { pattern: { case: "get", value: "/v1/*/wild/{parent}" } },
  GetSized: { pattern: { case: "get", value: "/v1/sized/{n32}" } },
};

function buildFixture(): DescFile {
  const file = create(FileDescriptorProtoSchema, {
    name: "test/rest/fixture.proto",
    package: "test.rest",
    syntax: "proto3",
    dependency: [
      "google/api/annotations.proto",
      "google/protobuf/timestamp.proto",
      "google/protobuf/field_mask.proto",
      "google/protobuf/struct.proto",
      "google/protobuf/wrappers.proto",
    ],
    enumType: [{ name: "Color", value: ["COLOR_UNSPECIFIED", "RED", "BLUE"].map((name, number) => ({ name, number })) }],
    messageType: [
      message("Inner", [
        ["issuer", 1, Type.STRING],
        ["subject", 2, Type.STRING],
        ["seen_time", 3, TS],
      ]),
      message("Shuffled", [
        ["uid", 1, Type.STRING],
        ["zeta", 5, Type.STRING],
        ["alpha", 2, Type.STRING],
        ["create_time", 9, TS],
      ]),
      message("Item", ITEM, {
        oneofDecl: [{ name: "choice" }, { name: "_note" }],
        nestedType: [
          mapEntry("TimeMapEntry", Type.STRING, TS),
          mapEntry("LimitsEntry", Type.STRING, Type.INT32),
          mapEntry("ByNumberEntry", Type.INT32, Type.STRING),
        ],
      }),
      message("ItemRequest", ITEM_REQUEST, { nestedType: [mapEntry("LabelsEntry", Type.STRING, Type.STRING)] }),
    ],
    service: [
      {
        name: "ItemService",
        method: Object.entries(METHODS).map(([name, rule]) => {
          const options = create(MethodOptionsSchema);
          setExtension(options, http, create(HttpRuleSchema, rule));
          return { name, inputType: ".test.rest.ItemRequest", outputType: ".test.rest.Item", options };
        }),
      },
    ],
  });
  const deps: Record<string, DescFile> = {
    "google/api/annotations.proto": file_google_api_annotations,
    "google/protobuf/timestamp.proto": file_google_protobuf_timestamp,
    "google/protobuf/field_mask.proto": file_google_protobuf_field_mask,
    "google/protobuf/struct.proto": file_google_protobuf_struct,
    "google/protobuf/wrappers.proto": file_google_protobuf_wrappers,
  };
  const registry = createFileRegistry(file, (name) => deps[name]);
  const desc = registry.getFile("test/rest/fixture.proto");
  if (desc === undefined) throw new Error("fixture did not build");
  return desc;
}

const fixture = buildFixture();

function messageOf(name: string): DescMessage {
  const m = fixture.messages.find((x) => x.name === name);
  if (m === undefined) throw new Error(`no message ${name}`);
  return m;
}

/** The fixture's test.rest.Item. */
export const ItemSchema = messageOf("Item");
/** The fixture's test.rest.Inner. */
export const InnerSchema = messageOf("Inner");
/** The fixture's test.rest.Shuffled: fields declared out of the order of their numbers. */
export const ShuffledSchema = messageOf("Shuffled");
/** The fixture's test.rest.ItemRequest. */
export const ItemRequestSchema = messageOf("ItemRequest");
/** The fixture's test.rest.ItemService. */
export const ItemService: DescService = (() => {
  const service = fixture.services[0];
  if (service === undefined) throw new Error("no service");
  return service;
})();
