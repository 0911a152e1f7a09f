/**
 * An IntOrString of a rolling update (`maxSurge`, `maxUnavailable`) scaled against a total
 * (`staging/src/k8s.io/apimachinery/pkg/util/intstr/intstr.go` GetScaledValueFromIntOrPercent):
 * an integer is itself; `"N%"` is N percent of `total`, rounded up or down.
 *
 * @throws {TypeError} for a string that is not a percentage or a value of another type, with
 *   kube's message (`invalid value for IntOrString: invalid type: string is not a percentage`).
 */
export function scaledIntOrPercent(
  value: number | string | undefined,
  total: number,
  roundUp: boolean,
): number {
  if (value === undefined) return 0;
  if (typeof value === "number") return value;
  if (typeof value === "string") {
    const match = /^(-?\d+)%$/.exec(value);
    if (match !== null) {
      const scaled = (Number(match[1]) * total) / 100;
      return roundUp ? Math.ceil(scaled) : Math.floor(scaled);
    }
  }
  throw new TypeError("invalid value for IntOrString: invalid type: string is not a percentage");
}
