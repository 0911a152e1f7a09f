// Types of the CommonJS entry of "@kubekit/apiserver": the same exports as the ES module.
export * from "../dist/index.js";
