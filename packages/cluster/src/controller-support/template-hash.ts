/**
 * The hash that names a controller's revision of a pod template: the `pod-template-hash` label
 * of a Deployment's ReplicaSets and the `controller-revision-hash` of StatefulSet and DaemonSet
 * ControllerRevisions (`pkg/controller/controller_utils.go` ComputeHash and
 * `pkg/controller/history/controller_history.go` HashControllerRevision): FNV-1a (32 bit) of
 * the template, plus the collision count when there is one, written with
 * `apimachinery/pkg/util/rand` SafeEncodeString's alphabet (no vowels, no look-alikes).
 *
 * kube hashes Go's printed form of the struct; this hashes the template's JSON with sorted
 * keys, so the values differ from a real cluster's while keeping their properties: equal
 * templates hash equally, any change changes the hash (with FNV's odds), and the result is a
 * valid label value.
 */
export function templateHash(template: unknown, collisionCount?: number): string {
  let hash = 0x811c9dc5;
  const feed = (text: string): void => {
    for (const byte of Buffer.from(text)) {
      hash ^= byte;
      hash = Math.imul(hash, 0x01000193) >>> 0;
    }
  };
  feed(canonicalJson(template));
  if (collisionCount !== undefined && collisionCount > 0) feed(String(collisionCount));
  return safeEncode(String(hash >>> 0));
}

/** SafeEncodeString's alphabet (`staging/src/k8s.io/apimachinery/pkg/util/rand/rand.go`). */
const SAFE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

function safeEncode(text: string): string {
  let out = "";
  for (const byte of Buffer.from(text)) out += SAFE_ALPHABET[byte % SAFE_ALPHABET.length];
  return out;
}

/** JSON with object keys sorted at every level (undefined members dropped, as JSON does). */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v ?? null)).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}
