/**
 * The strategy of every resource without rules of its own.
 *
 * @kind Any other kind (custom resources included)
 * @validation the generic path's metadata, name, generation and status rules only
 */
import type { KindStrategy } from "./kind-strategy.js";

/**
 * The strategy of every kind without rules of its own, custom resources included: the
 * generic path's metadata, generation and status rules only, the default Name / Created At
 * table (custom resources print their additionalPrinterColumns instead).
 */
export const genericStrategy: KindStrategy = {};
