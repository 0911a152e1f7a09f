/**
 * What a simulated container runs when its spec gives no `command`: the default command of its
 * image (Docker's `CMD`; `args` replace it, as they replace `CMD`). Known shell images
 * (`busybox`, `alpine`, `ubuntu`, `debian`) run `sh`, which, like docker, exits at once when
 * stdin is not kept open (`stdin: true`); `pause` and every other image (servers such as
 * `nginx`, `httpd`, `redis`, `postgres`, and images this table does not know) run a process
 * that prints one line naming the container and then runs until stopped.
 */
import { print, type Command } from "./command.js";

/** Images whose default command is `sh`, by repository name without registry or tag. */
const SHELL_IMAGES = new Set(["busybox", "alpine", "ubuntu", "debian"]);

/** The repository's last path element without tag or digest: `docker.io/library/busybox:1.36` → `busybox`. */
export function imageBaseName(image: string): string {
  const withoutDigest = image.split("@")[0]!;
  const last = withoutDigest.slice(withoutDigest.lastIndexOf("/") + 1);
  const colon = last.indexOf(":");
  return colon < 0 ? last : last.slice(0, colon);
}

/**
 * The process of a server or `pause` image: one line on stdout (unless `quiet`: the log has
 * its scripted lines), then it runs until stopped.
 */
function serverProcess(container: string, image: string, quiet: boolean): Command {
  return async (ctx) => {
    if (!quiet)
      await print(ctx.stdout, `kubekit: container ${container} (image ${image}) started\n`);
    await new Promise<void>((resolve) => {
      if (ctx.signal.aborted) resolve();
      else ctx.signal.addEventListener("abort", () => resolve(), { once: true });
    });
    return 0;
  };
}

/**
 * The argv a container runs (`command` + `args`, else `args`, else the image's default), or
 * the process standing for an image's default server when there is no argv to run.
 */
export function containerEntrypoint(
  container: string,
  image: string,
  command: readonly string[],
  args: readonly string[],
  quiet: boolean,
): { readonly argv: readonly string[] } | { readonly process: Command } {
  if (command.length > 0) return { argv: [...command, ...args] };
  if (args.length > 0) return { argv: args };
  if (SHELL_IMAGES.has(imageBaseName(image))) return { argv: ["sh"] };
  return { process: serverProcess(container, image, quiet) };
}
