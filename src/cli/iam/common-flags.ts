/**
 * Field flags several IAM resources share.
 */
import type { FieldFlag } from "../resource/spec.js";

export const DESCRIPTION_FLAG: FieldFlag = {
  flags: "--description <text>",
  help: "free text, at most 512 characters",
  path: "description",
};
