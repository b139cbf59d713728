// Lint rules: ESLint's and typescript-eslint's recommended sets (type-aware where it matters), formatting left to
// Prettier. `npm run lint` runs both; `npm run format` fixes what can be fixed.
import js from "@eslint/js";
import prettier from "eslint-config-prettier";
import globals from "globals";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/", "node_modules/", "data/", "coverage/", "test/fixtures/", "**/*.min.js"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" },
      ],
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      eqeqeq: ["error", "always"],
      "no-console": "off",
    },
  },
  {
    // Features plug in through their manifests (src/features.ts), never by being imported for a side effect.
    files: ["src/**/*.ts", "src/**/*.tsx"],
    ignores: ["src/client/**"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "ImportDeclaration[specifiers.length=0][source.value=/^\\./]",
          message: "No import for a side effect: list what the module contributes in a feature manifest instead.",
        },
      ],
    },
  },
  { files: ["src/client/**/*.ts"], languageOptions: { globals: { ...globals.browser } } },
  prettier,
);
