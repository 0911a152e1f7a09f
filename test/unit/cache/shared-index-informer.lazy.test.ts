// The tests of shared-index-informer.test.ts, run on the lazy informer (see test/support/informer-mode.ts).
import { useInformerMode } from "../../support/informer-mode.js";

useInformerMode("lazy");
await import("./shared-index-informer.test.js");
