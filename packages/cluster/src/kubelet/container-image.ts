import { createHash } from "node:crypto";

/** The SHA-256 of `text`, in hex. */
function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** `image` split into its repository (with its registry) and its tag or digest suffix. */
function splitReference(image: string): { repository: string; suffix: string } {
  const at = image.indexOf("@");
  if (at >= 0) return { repository: image.slice(0, at), suffix: image.slice(at) };
  const slash = image.lastIndexOf("/");
  const colon = image.lastIndexOf(":");
  if (colon > slash) return { repository: image.slice(0, colon), suffix: image.slice(colon) };
  return { repository: image, suffix: ":latest" };
}

/** The repository fully qualified as containerd names it (`nginx` → `docker.io/library/nginx`). */
function qualifiedRepository(repository: string): string {
  const slash = repository.indexOf("/");
  const first = slash < 0 ? "" : repository.slice(0, slash);
  const hasRegistry = first.includes(".") || first.includes(":") || first === "localhost";
  if (hasRegistry) return repository;
  return slash < 0 ? `docker.io/library/${repository}` : `docker.io/${repository}`;
}

/**
 * The image reference a container runtime reports in `containerStatuses[].image`: Docker's
 * normalized name (`distribution/reference` ParseNormalizedNamed, then TagNameOnly), e.g.
 * `nginx` → `docker.io/library/nginx:latest`, `ghcr.io/org/app:v1` unchanged.
 */
export function normalizedImage(image: string): string {
  const { repository, suffix } = splitReference(image);
  return `${qualifiedRepository(repository)}${suffix}`;
}

/**
 * A simulated image ID in containerd's shape, `docker.io/library/nginx@sha256:<64 hex>`: the
 * digest derives from the image reference, so one image has one ID on every node.
 */
export function simulatedImageId(image: string): string {
  const { repository, suffix } = splitReference(image);
  const digest = suffix.startsWith("@") ? suffix : `@sha256:${sha256(normalizedImage(image))}`;
  return `${qualifiedRepository(repository)}${digest}`;
}

/**
 * A simulated container ID, `containerd://<64 hex>`, unique per pod, container and restart
 * (derived from them, so a status rebuilt for the same instance keeps its ID).
 */
export function simulatedContainerId(
  podUid: string,
  container: string,
  restartCount: number,
): string {
  return `containerd://${sha256(`${podUid}/${container}/${restartCount}`)}`;
}
