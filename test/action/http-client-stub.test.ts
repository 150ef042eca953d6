/** The bundle's stand-in for @actions/http-client (OIDC only, never used): a call says it is a bug, by name, instead of failing obscurely. */
import { describe, expect, it } from 'vitest'
import { BearerCredentialHandler, HttpClient } from '../../src/action/http-client-stub.js'

describe('the @actions/http-client stand-in', () => {
  it('refuses to be constructed, naming what is not bundled and where to read why', () => {
    for (const make of [() => new HttpClient(), () => new BearerCredentialHandler()])
      expect(make).toThrow('@actions/http-client is not bundled in vllm-ray-deploy (it uses no OIDC token; see src/action/http-client-stub.ts)')
  })
})
