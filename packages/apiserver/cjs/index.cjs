// CommonJS entry of "@kubekit/apiserver": the package is ES modules; Node >= 20.19 loads them with
// require() (require(esm)), so this file hands CommonJS callers the same module instance an
// `import` gets (one copy of every class: `instanceof StatusError` holds across both).
"use strict";
module.exports = require("../dist/index.js");
