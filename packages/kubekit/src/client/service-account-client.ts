/**
 * The service accounts client: the resource verbs plus the `token` subresource.
 */
import type { TokenRequest } from "kubernetes-types/authentication/v1.js";
import type { ServiceAccount, ServiceAccountList } from "kubernetes-types/core/v1.js";
import type { CreateCallOptions } from "./call-options.js";
import { ResourceClient } from "./resource-client.js";
import { requestObject, targetRequest } from "./resource-request.js";

/**
 * The client of `serviceaccounts` in one namespace: every verb of {@link ResourceClient}
 * plus {@link createToken}.
 */
export class ServiceAccountResourceClient extends ResourceClient<
  ServiceAccount,
  ServiceAccountList
> {
  /**
   * Requests a token for the service account `name` (POST `serviceaccounts/NAME/token`,
   * authentication.k8s.io/v1 TokenRequest) and returns the TokenRequest with
   * `status.token` and `status.expirationTimestamp` filled in.
   */
  async createToken(
    name: string,
    tokenRequest: TokenRequest,
    options: CreateCallOptions = {},
  ): Promise<TokenRequest> {
    return requestObject<TokenRequest>(
      targetRequest(this.restClient.post(), this.target, options.signal)
        .name(name)
        .subresource("token")
        .createOptions(options)
        .body({ apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", ...tokenRequest }),
    );
  }
}
