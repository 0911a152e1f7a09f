// Types of the CommonJS entry of "kubekit/apimachinery": the same exports as the ES module.
export * from "../dist/apimachinery/index.js";
