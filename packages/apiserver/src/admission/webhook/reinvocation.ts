/**
 * Which mutating webhooks run again (kube's `webhookReinvokeContext`,
 * `admission/plugin/webhook/mutating/reinvocationcontext.go`): when a webhook changes the
 * object, every webhook with `reinvocationPolicy: IfNeeded` called before it is due again;
 * the chain then runs once more, calling only those. A webhook is never called for the first
 * time in the second round, and there is no third.
 */
export class ReinvocationState {
  readonly #previouslyInvoked = new Set<string>();
  readonly #reinvoke = new Set<string>();
  #shouldReinvoke = false;

  /** Records a call of webhook `uid`: whether it changed the object and whether it is IfNeeded. */
  record(uid: string, changed: boolean, reinvocable: boolean): void {
    if (changed) {
      for (const earlier of this.#previouslyInvoked) this.#reinvoke.add(earlier);
      this.#previouslyInvoked.clear();
      this.#shouldReinvoke = true;
    }
    if (reinvocable) this.#previouslyInvoked.add(uid);
  }

  /** Whether any webhook changed the object (the second round runs). */
  get shouldReinvoke(): boolean {
    return this.#shouldReinvoke;
  }

  /** Whether webhook `uid` is called in the second round. */
  shouldReinvokeWebhook(uid: string): boolean {
    return this.#reinvoke.has(uid);
  }
}
