import type * as X509 from "@peculiar/x509";

/** The `@peculiar/x509` module namespace. */
export type X509Module = typeof X509;

/** The metadata functions tsyringe (a dependency of `@peculiar/x509`) looks up on `Reflect` while loading. */
const REFLECT_METADATA_FUNCTIONS = ["getMetadata", "getOwnMetadata", "defineMetadata"] as const;

let loading: Promise<X509Module> | undefined;

/**
 * Loads `@peculiar/x509` without requiring a global Reflect metadata polyfill.
 *
 * `@peculiar/x509` 2.x depends on tsyringe, which throws at import time unless
 * `Reflect.getMetadata` exists, and reads metadata only while the library's own
 * classes are being decorated (that is, while the module evaluates). When no
 * polyfill is installed, this function installs inert stand-ins (no metadata is
 * ever stored or returned) for exactly the duration of the import and removes
 * them afterwards, so the process's global `Reflect` is left as it was found.
 * When a polyfill such as `reflect-metadata` is already installed, it is used
 * untouched.
 *
 * Guarantees: the module is imported once; concurrent and later calls share
 * the same promise. Caveat: any other code that imports `@peculiar/x509`
 * directly, without a polyfill, still fails; import it through this function.
 */
export function loadX509(): Promise<X509Module> {
  loading ??= importWithTemporaryReflectMetadata();
  return loading;
}

async function importWithTemporaryReflectMetadata(): Promise<X509Module> {
  const reflect = Reflect as unknown as Record<string, unknown>;
  const installed: string[] = [];
  for (const name of REFLECT_METADATA_FUNCTIONS) {
    if (typeof reflect[name] === "function") continue;
    Object.defineProperty(reflect, name, {
      value: () => undefined,
      configurable: true,
      writable: true,
    });
    installed.push(name);
  }
  try {
    return await import("@peculiar/x509");
  } finally {
    for (const name of installed) delete reflect[name];
  }
}
