/**
 * core/v1 ServiceAccounts: their printer and the `token` subresource (TokenRequest).
 *
 * @kind ServiceAccount
 * @validation name DNS-1123 subdomain
 */
import { serviceAccountPrinter } from "../table/builtin-table-printers.js";
import type { KindStrategy } from "./kind-strategy.js";

/** The storage id of core/v1 ServiceAccounts. */
export const SERVICE_ACCOUNT_STORAGE_ID = "/serviceaccounts";

/** The ServiceAccount strategy. */
export const serviceAccountStrategy: KindStrategy = {
  policy: { deleteReturnsObject: true },
  printer: serviceAccountPrinter,
};
