/**
 * The version of this build (src/build-info.ts reads it from package.json).
 */
import { BUILD_INFO } from "../build-info.js";

export const VERSION: string = BUILD_INFO.version;
