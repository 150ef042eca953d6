/**
 * Stands in for `@actions/http-client` in the bundle (tsconfig.json `paths`, which ncc's resolver
 * follows for every import, @actions/core's included). @actions/core imports it only for
 * `getIDToken` (OIDC), which this Action never calls; the real client brings undici, about 450 KB
 * of the 3 MiB dist/ budget. Calling it is a bug: it says so instead of failing obscurely.
 */
const unsupported = (what: string): never => {
  // bug: no code path of this Action asks for an OIDC token; reaching the stub is a bundling mistake
  throw new Error(`${what} is not bundled in vllm-ray-deploy (it uses no OIDC token; see src/action/http-client-stub.ts)`)
}

export class HttpClient {
  constructor() {
    unsupported('@actions/http-client')
  }
}

export class BearerCredentialHandler {
  constructor() {
    unsupported('@actions/http-client')
  }
}
