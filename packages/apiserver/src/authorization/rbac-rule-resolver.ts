/**
 * Which RBAC rules apply to a user, as kube's `pkg/registry/rbac/validation/rule.go`
 * DefaultRuleResolver VisitRulesFor finds them: every ClusterRoleBinding whose subjects
 * include the user, then (for a namespace) every RoleBinding of that namespace, each giving
 * the rules of its Role or ClusterRole. The bindings and roles are indexed once per change of
 * the RBAC objects (a storage listener bumps a generation), not per request.
 */
import type { JsonObject } from "kubekit";
import { isJsonObject, metadataOf, quoteGo } from "kubekit/apimachinery";
import type { UserInfo } from "../auth/authentication.js";
import { serviceAccountUsername } from "../auth/service-account-user.js";
import type { Storage } from "../storage/storage.js";
import { policyRuleOf, type PolicyRule } from "./policy-rule-matching.js";

/** The storage ids of the RBAC resources. */
export const RBAC_STORAGE_IDS = Object.freeze({
  roles: "rbac.authorization.k8s.io/roles",
  clusterRoles: "rbac.authorization.k8s.io/clusterroles",
  roleBindings: "rbac.authorization.k8s.io/rolebindings",
  clusterRoleBindings: "rbac.authorization.k8s.io/clusterrolebindings",
});

const RBAC_IDS: ReadonlySet<string> = new Set(Object.values(RBAC_STORAGE_IDS));

/** A binding as the resolver reads it. */
interface Binding {
  /** `ClusterRoleBinding "name"` or `RoleBinding "name/namespace"`, as kube describes it. */
  readonly kind: "ClusterRoleBinding" | "RoleBinding";
  readonly name: string;
  readonly namespace: string;
  readonly roleKind: string;
  readonly roleName: string;
  readonly subjects: readonly Subject[];
}

interface Subject {
  readonly kind: string;
  readonly name: string;
  readonly namespace: string;
}

/** Called per rule with a description of where it came from; return false to stop. */
export type RuleVisitor = (source: string, rule: PolicyRule) => boolean;

/** The RBAC objects, indexed. */
interface RbacIndex {
  readonly clusterRoles: ReadonlyMap<string, readonly PolicyRule[]>;
  readonly roles: ReadonlyMap<string, readonly PolicyRule[]>;
  readonly clusterRoleBindings: readonly Binding[];
  readonly roleBindings: ReadonlyMap<string, readonly Binding[]>;
}

/** Resolves the RBAC rules of users from the server's storage. */
export class RbacRuleResolver {
  readonly #storage: Storage;
  #index: RbacIndex | undefined;

  constructor(storage: Storage) {
    this.#storage = storage;
    storage.subscribe((event) => {
      if (RBAC_IDS.has(event.resource)) this.#index = undefined;
    });
  }

  /**
   * Visits the rules that apply to `user` in `namespace` (cluster-wide first), stopping when
   * `visit` returns false. Returns the errors met (a binding to a missing role), in kube's
   * words: `clusterrole.rbac.authorization.k8s.io "NAME" not found`.
   */
  visitRulesFor(user: UserInfo, namespace: string, visit: RuleVisitor): string[] {
    const index = (this.#index ??= this.#build());
    const errors: string[] = [];
    const visitBinding = (binding: Binding): boolean => {
      const subject = binding.subjects.find((s) => appliesTo(user, s, binding.namespace));
      if (!subject) return true;
      const rules = this.#rulesOf(index, binding);
      if (rules === undefined) {
        const kind = binding.roleKind === "Role" ? "role" : "clusterrole";
        errors.push(`${kind}.rbac.authorization.k8s.io ${quoteGo(binding.roleName)} not found`);
        return true;
      }
      const source = describe(binding, subject);
      for (const rule of rules) if (!visit(source, rule)) return false;
      return true;
    };
    for (const binding of index.clusterRoleBindings) if (!visitBinding(binding)) return errors;
    if (namespace !== "") {
      for (const binding of index.roleBindings.get(namespace) ?? [])
        if (!visitBinding(binding)) return errors;
    }
    return errors;
  }

  #rulesOf(index: RbacIndex, binding: Binding): readonly PolicyRule[] | undefined {
    if (binding.roleKind === "ClusterRole") return index.clusterRoles.get(binding.roleName);
    if (binding.roleKind === "Role" && binding.kind === "RoleBinding")
      return index.roles.get(`${binding.namespace}/${binding.roleName}`);
    return undefined;
  }

  #build(): RbacIndex {
    const rulesOf = (obj: JsonObject): PolicyRule[] =>
      Array.isArray(obj["rules"]) ? obj["rules"].map(policyRuleOf) : [];
    const clusterRoles = new Map<string, readonly PolicyRule[]>();
    for (const [key, obj] of this.#storage.current(RBAC_STORAGE_IDS.clusterRoles))
      clusterRoles.set(key, rulesOf(obj));
    const roles = new Map<string, readonly PolicyRule[]>();
    for (const [key, obj] of this.#storage.current(RBAC_STORAGE_IDS.roles))
      roles.set(key, rulesOf(obj));
    const clusterRoleBindings = [
      ...this.#storage.current(RBAC_STORAGE_IDS.clusterRoleBindings),
    ].map(([, obj]) => bindingOf("ClusterRoleBinding", obj));
    const roleBindings = new Map<string, Binding[]>();
    for (const [, obj] of this.#storage.current(RBAC_STORAGE_IDS.roleBindings)) {
      const binding = bindingOf("RoleBinding", obj);
      const list = roleBindings.get(binding.namespace) ?? [];
      list.push(binding);
      roleBindings.set(binding.namespace, list);
    }
    return { clusterRoles, roles, clusterRoleBindings, roleBindings };
  }
}

function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}

function bindingOf(kind: Binding["kind"], obj: JsonObject): Binding {
  const meta = metadataOf(obj) ?? {};
  const roleRef = isJsonObject(obj["roleRef"]) ? obj["roleRef"] : {};
  const subjects = Array.isArray(obj["subjects"]) ? obj["subjects"] : [];
  return {
    kind,
    name: text(meta["name"]),
    namespace: text(meta["namespace"]),
    roleKind: text(roleRef["kind"]),
    roleName: text(roleRef["name"]),
    subjects: subjects.filter(isJsonObject).map((s) => ({
      kind: text(s["kind"]),
      name: text(s["name"]),
      namespace: text(s["namespace"]),
    })),
  };
}

/**
 * Whether a binding subject names the user (kube's appliesToUser): a User by name, a Group by
 * membership, a ServiceAccount by its user name (namespace defaulting to the binding's).
 */
function appliesTo(user: UserInfo, subject: Subject, bindingNamespace: string): boolean {
  switch (subject.kind) {
    case "User":
      return user.name === subject.name;
    case "Group":
      return user.groups.includes(subject.name);
    case "ServiceAccount": {
      const namespace = subject.namespace !== "" ? subject.namespace : bindingNamespace;
      return namespace !== "" && user.name === serviceAccountUsername(namespace, subject.name);
    }
    default:
      return false;
  }
}

/** kube's binding describers: `ClusterRoleBinding "b" of ClusterRole "r" to User "u"`. */
function describe(binding: Binding, subject: Subject): string {
  const name =
    binding.kind === "RoleBinding" ? `${binding.name}/${binding.namespace}` : binding.name;
  const subjectName =
    subject.kind === "ServiceAccount"
      ? `${subject.name}/${subject.namespace !== "" ? subject.namespace : binding.namespace}`
      : subject.name;
  return `${binding.kind} ${quoteGo(name)} of ${binding.roleKind} ${quoteGo(binding.roleName)} to ${subject.kind} ${quoteGo(subjectName)}`;
}
