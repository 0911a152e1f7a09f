// The tests of shared-index-informer-wait-for-cache-sync.test.ts, run on the lazy informer (see test/support/informer-mode.ts).
import { useInformerMode } from "../../support/informer-mode.js";

useInformerMode("lazy");
await import("./shared-index-informer-wait-for-cache-sync.test.js");
