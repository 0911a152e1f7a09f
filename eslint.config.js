import js from "@eslint/js";
import tseslint from "typescript-eslint";
import { layerOrderRule } from "./tools/eslint-layer-order.js";
import { packageBoundariesRule } from "./tools/eslint-package-boundaries.js";

export default tseslint.config(
  { ignores: ["**/dist/**", "**/node_modules/**", "coverage/**", "docs/api/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    plugins: {
      kubekit: {
        rules: { "layer-order": layerOrderRule, "package-boundaries": packageBoundariesRule },
      },
    },
    rules: {
      "kubekit/layer-order": "error",
      "kubekit/package-boundaries": "error",
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_" },
      ],
      "@typescript-eslint/consistent-type-imports": "error",
    },
  },
  {
    // Every package reads as kube's sources do: named steps, no function over 100 lines (a
    // pure data table may be exempted where it is declared, saying so).
    files: ["packages/*/src/**/*.ts"],
    rules: {
      "max-lines-per-function": [
        "error",
        { max: 100, skipBlankLines: true, skipComments: true, IIFEs: true },
      ],
    },
  },
  {
    files: ["**/*.js", "**/*.mjs"],
    languageOptions: {
      globals: {
        process: "readonly",
        console: "readonly",
        AbortController: "readonly",
        setTimeout: "readonly",
        fetch: "readonly",
      },
    },
  },
  {
    // The CommonJS entry points (packages/*/cjs/*.cjs) hand require() callers the ES modules.
    files: ["packages/*/cjs/*.cjs"],
    languageOptions: {
      sourceType: "commonjs",
      globals: { module: "writable", require: "readonly" },
    },
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
);
