// Removes a package's dist/ before its build (run from the package's folder by its `build`
// script), so no output of a deleted source file survives into the tarball.
import { rmSync } from "node:fs";

rmSync("dist", { recursive: true, force: true });
