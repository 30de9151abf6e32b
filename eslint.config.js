// Lint rules: typescript-eslint's recommended type-aware set over our own code; generated code is
// checked by the generator, not by us.
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/", "src/gen/", "node_modules/", "coverage/"] },
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "no-console": ["error", { allow: ["warn", "error"] }],
    },
  },
  {
    files: ["src/**/*.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "error" },
  },
  {
    // Migrations are frozen in time: typed against Kysely<any>, never the app's current types.
    files: ["src/store/migrate.ts", "src/store/migrations/*.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
);
