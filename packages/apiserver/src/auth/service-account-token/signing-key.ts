/**
 * The server's service-account signing key: an RSA key pair made for each server (kube-apiserver
 * reads `--service-account-signing-key-file`; the embedded server generates one with
 * node:crypto on first use, so servers that never issue a token pay nothing). The private key
 * never leaves this object; only the public key, its key id and its JWK are exposed.
 */
import { createHash, generateKeyPair, type KeyObject } from "node:crypto";
import { promisify } from "node:util";

const generateRsaKeyPair = promisify(generateKeyPair);

/** The key size kube's tooling (kubeadm) generates for service-account keys. */
const RSA_MODULUS_BITS = 2048;

/** A public key as RFC 7517 JSON Web Key, in the field order go-jose writes. */
export interface ServiceAccountJwk {
  readonly use: "sig";
  readonly kty: "RSA";
  readonly kid: string;
  readonly alg: "RS256";
  readonly n: string;
  readonly e: string;
}

/** A generated key pair and what is derived from its public half. */
export interface ServiceAccountKeyPair {
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
  /** kube's key id (see {@link keyIdOf}). */
  readonly keyId: string;
  readonly jwk: ServiceAccountJwk;
}

/**
 * kube's key id of a public key (`pkg/serviceaccount/jwt.go` keyIDFromPublicKey): the
 * unpadded base64url SHA-256 of the key's PKIX (SubjectPublicKeyInfo) DER encoding.
 */
export function keyIdOf(publicKey: KeyObject): string {
  const der = publicKey.export({ type: "spki", format: "der" });
  return createHash("sha256").update(der).digest("base64url");
}

/** The server's signing key, generated once on first use. */
export class ServiceAccountSigningKey {
  #pair: Promise<ServiceAccountKeyPair> | undefined;
  #ready: ServiceAccountKeyPair | undefined;

  /** The key pair, generating it on the first call (RSA 2048, asynchronously). */
  async keyPair(): Promise<ServiceAccountKeyPair> {
    this.#pair ??= generateRsaKeyPair("rsa", { modulusLength: RSA_MODULUS_BITS }).then(
      ({ privateKey, publicKey }) => {
        const jwk = publicKey.export({ format: "jwk" });
        const keyId = keyIdOf(publicKey);
        this.#ready = {
          privateKey,
          publicKey,
          keyId,
          jwk: {
            use: "sig",
            kty: "RSA",
            kid: keyId,
            alg: "RS256",
            n: String(jwk.n),
            e: String(jwk.e),
          },
        };
        return this.#ready;
      },
    );
    return this.#pair;
  }

  /** The key pair when it exists already (no token can have been signed before), else undefined. */
  get generated(): ServiceAccountKeyPair | undefined {
    return this.#ready;
  }
}
