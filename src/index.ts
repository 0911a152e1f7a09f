/**
 * kubekit: client-go for TypeScript.
 *
 * @packageDocumentation
 */
export * from "./core/index.js";
