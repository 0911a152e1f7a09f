import { describe, expect, it } from "vitest";
import { newBadRequest, newForbidden, type JsonObject } from "kubekit";
import type {
  AdmissionAttributes,
  MutatingAdmissionPlugin,
  ValidatingAdmissionPlugin,
} from "../../../../packages/apiserver/src/admission/admission-attributes.js";
import { AdmissionChain } from "../../../../packages/apiserver/src/admission/admission-chain.js";
import { attachWarnings } from "../../../../packages/apiserver/src/admission/admission-warnings.js";
import {
  retryStaleWrites,
  runWithAdmission,
  runWithoutAdmission,
  StaleWriteError,
  type AdmissionStep,
  type WriteSteps,
} from "../../../../packages/apiserver/src/store/admission-steps.js";
import { ResourceRegistry } from "../../../../packages/apiserver/src/registry/registry.js";

/**
 * The admission chain (mutating plugins in order, validating plugins in parallel with the
 * first denial in plugin order) and the write driver around it: synchronous while no plugin
 * handles a stop, retried from its read when the object changed while it was admitted.
 */

const entry = new ResourceRegistry().lookup("", "v1", "configmaps");
if (!entry) throw new Error("no configmaps");

const attrs: AdmissionAttributes = {
  operation: "CREATE",
  entry,
  subresource: "",
  namespace: "ns",
  name: "cm",
  object: { metadata: { name: "cm" } },
  oldObject: undefined,
  dryRun: false,
  options: {},
  userInfo: { name: "u", groups: [] },
};

function labelling(name: string, value: string): MutatingAdmissionPlugin {
  return {
    name,
    handles: () => true,
    admit: (a) => {
      const meta = (a.object?.["metadata"] ?? {}) as JsonObject;
      const labels = { ...((meta["labels"] ?? {}) as JsonObject), [name]: value };
      const object = { ...a.object, metadata: { ...meta, labels } };
      return Promise.resolve({ object, warnings: [`${name} ran`], auditAnnotations: {} });
    },
  };
}

function validating(
  name: string,
  outcome: "allow" | Error,
  delayMs = 0,
): ValidatingAdmissionPlugin {
  return {
    name,
    handles: () => true,
    validate: async () => {
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      if (outcome instanceof Error) throw attachWarnings(outcome, [`${name} denied`]);
      return { warnings: [`${name} allowed`], auditAnnotations: {} };
    },
  };
}

describe("AdmissionChain", () => {
  it("runs mutating plugins in order, each on the previous one's object", async () => {
    const chain = new AdmissionChain([labelling("first", "1"), labelling("second", "2")], []);
    const warnings: string[] = [];
    const object = await chain.mutate(attrs, warnings);
    expect(object?.["metadata"]).toEqual({ name: "cm", labels: { first: "1", second: "2" } });
    expect(warnings).toEqual(["first ran", "second ran"]);
  });

  it("validates in parallel and answers the first denial in plugin order, keeping every warning", async () => {
    const chain = new AdmissionChain(
      [],
      [
        validating(
          "slow-deny",
          newForbidden({ group: "", resource: "configmaps" }, "cm", "slow"),
          20,
        ),
        validating("fast-deny", newBadRequest("fast")),
        validating("allow", "allow"),
      ],
    );
    const warnings: string[] = [];
    const err = await chain.validate(attrs, warnings).catch((e: unknown) => e);
    expect((err as Error).message).toBe('configmaps "cm" is forbidden: slow');
    expect(warnings.sort()).toEqual(["allow allowed", "fast-deny denied", "slow-deny denied"]);
  });

  it("handles nothing when no plugin does", () => {
    const none: ValidatingAdmissionPlugin = { ...validating("x", "allow"), handles: () => false };
    const chain = new AdmissionChain([], [none]);
    expect(chain.handlesMutation(attrs)).toBe(false);
    expect(chain.handlesValidation(attrs)).toBe(false);
  });
});

function* steps(log: string[]): WriteSteps<string> {
  const mutated = yield { phase: "mutate", attrs };
  log.push(`mutated ${JSON.stringify(mutated?.["metadata"])}`);
  yield { phase: "validate", attrs: { ...attrs, object: mutated } } satisfies AdmissionStep;
  log.push("committed");
  return "done";
}

describe("write steps", () => {
  const request = (chain: AdmissionChain) => ({
    chain,
    userInfo: { name: "u", groups: [] },
    optionsFor: () => ({}),
    warnings: [] as string[],
  });

  it("run synchronously, unchanged, without admission or when no plugin handles them", () => {
    const log: string[] = [];
    expect(runWithoutAdmission(steps(log))).toBe("done");
    const result = runWithAdmission(steps(log), request(new AdmissionChain([], [])));
    expect(result).toBe("done");
    expect(log).toEqual([
      'mutated {"name":"cm"}',
      "committed",
      'mutated {"name":"cm"}',
      "committed",
    ]);
  });

  it("await the chain at the stops a plugin handles and go on with its object", async () => {
    const log: string[] = [];
    const chain = new AdmissionChain([labelling("m", "x")], [validating("v", "allow")]);
    const req = request(chain);
    const result = runWithAdmission(steps(log), req);
    expect(result).toBeInstanceOf(Promise);
    expect(await result).toBe("done");
    expect(log).toEqual(['mutated {"name":"cm","labels":{"m":"x"}}', "committed"]);
    expect(req.warnings).toEqual(["m ran", "v allowed"]);
  });

  it("a denial stops the write before its commit", async () => {
    const log: string[] = [];
    const chain = new AdmissionChain([], [validating("v", newBadRequest("no"))]);
    await expect(runWithAdmission(steps(log), request(chain))).rejects.toThrow("no");
    expect(log).toEqual(['mutated {"name":"cm"}']);
  });

  it("a write stale after admission runs again, then answers kube's 409", async () => {
    let attempts = 0;
    const flaky = () => {
      attempts++;
      return attempts < 3
        ? Promise.reject(new StaleWriteError(entry, "cm"))
        : Promise.resolve("ok");
    };
    expect(await retryStaleWrites(flaky)).toBe("ok");
    expect(attempts).toBe(3);
    const never = () => Promise.reject(new StaleWriteError(entry, "cm"));
    await expect(retryStaleWrites(never)).rejects.toThrow(
      'Operation cannot be fulfilled on configmaps "cm": the object has been modified; please apply your changes to the latest version and try again',
    );
    expect(retryStaleWrites(() => "sync")).toBe("sync");
  });
});
