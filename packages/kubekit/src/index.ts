/**
 * kubekit: client-go for TypeScript.
 *
 * @packageDocumentation
 */
export * from "./core/index.js";
export * from "./config/index.js";
export * from "./rest/index.js";
export * from "./client/index.js";
export * from "./cache/index.js";
export * from "./informers/index.js";
export * from "./workqueue/index.js";
export * from "./controller/index.js";
