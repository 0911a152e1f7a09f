// The tests of lister.test.ts, on a cache of lazy objects (see test/support/informer-mode.ts).
import { useInformerMode } from "../../support/informer-mode.js";

useInformerMode("lazy");
await import("./lister.test.js");
