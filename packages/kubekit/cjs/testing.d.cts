// Types of the CommonJS entry of "kubekit/testing": the same exports as the ES module.
export * from "../dist/testing/index.js";
