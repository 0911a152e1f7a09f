// The tests of informer.test.ts, run on the lazy informer over the lazy ListerWatcher (see
// test/support/informer-mode.ts).
import { useInformerMode } from "../../support/informer-mode.js";

useInformerMode("lazy");
await import("./informer.test.js");
