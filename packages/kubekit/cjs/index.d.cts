// Types of the CommonJS entry of "kubekit": the same exports as the ES module.
export * from "../dist/index.js";
