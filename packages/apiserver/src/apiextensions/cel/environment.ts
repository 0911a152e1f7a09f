/**
 * The CEL environment of Kubernetes expressions: CEL's standard library, the strings extension
 * (`@bufbuild/cel/ext`), optional values, cel-go's sets and the Kubernetes libraries (lists, regex,
 * url, quantity, ip/cidr, format, authz), every function wrapped to charge the runtime cost meter. Built once; the
 * variables of an expression are declared to the type checker, not to the environment (values
 * are bound at evaluation).
 */
import { celEnv, type CelEnv, type CelFunc } from "@bufbuild/cel";
import { strings } from "@bufbuild/cel/ext";
import { opaqueRegistry } from "./opaque-values.js";
import { meteredFunc, tickFunc } from "./runtime-cost.js";
import { listsLibrary } from "./library/lists.js";
import { optionalLibrary } from "./library/optional.js";
import { formatLibrary } from "./library/format.js";
import { ipCidrLibrary } from "./library/ip-cidr.js";
import { quantityLibrary } from "./library/quantity.js";
import { regexLibrary } from "./library/regex.js";
import { setsLibrary } from "./library/sets.js";
import { urlLibrary } from "./library/url.js";
import { authzLibrary } from "./library/authz.js";

/** The Kubernetes CEL libraries this package provides, in addition to CEL's standard library. */
export const KUBERNETES_LIBRARIES: readonly CelFunc[] = [
  ...strings,
  ...optionalLibrary,
  ...listsLibrary,
  ...regexLibrary,
  ...setsLibrary,
  ...urlLibrary,
  ...quantityLibrary,
  ...ipCidrLibrary,
  ...formatLibrary,
  ...authzLibrary,
];

function buildEnvironment(): CelEnv {
  const unmetered = celEnv({ registry: opaqueRegistry, funcs: [...KUBERNETES_LIBRARIES] });
  const metered = [...unmetered.funcs].map(meteredFunc);
  return celEnv({ registry: opaqueRegistry, funcs: [...metered, tickFunc] });
}

let environment: CelEnv | undefined;

/** The shared environment (built on first use). */
export function kubernetesCelEnv(): CelEnv {
  environment ??= buildEnvironment();
  return environment;
}
