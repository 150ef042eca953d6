/**
 * What the cluster should look like, as far as the checks care. Built from a manifest
 * (`expectationFromManifest` in the manifest stage) or left out entirely by `diagnose`
 * without a manifest, in which case checks that need it are skipped.
 */
export interface ExpectedNode {
  readonly name: string
  readonly role: 'head' | 'worker'
  /** SSH/management address (may be a hostname). */
  readonly sshHost: string
  /** The fabric IP this node should have and that Ray and vLLM should both use as its identity. */
  readonly fabricIp: string
  readonly gpus: number
}

export interface Expectation {
  readonly cluster: string
  readonly nodes: readonly ExpectedNode[]
  /** Fabric interface name(s), e.g. `enp1s0f1np1`. */
  readonly fabricInterfaces: readonly string[]
  /** Fabric subnet in CIDR form, e.g. `192.168.200.0/24`. */
  readonly fabricSubnet: string
  readonly tensorParallelSize: number
  readonly pipelineParallelSize: number
  /** Image reference every node should run (and its digest, if pinned). */
  readonly image?: string
  readonly imageDigest?: string
  /** Name of the Ray/vLLM container on every node. */
  readonly containerName: string
}
