import type { Result } from '../result/result.js'
import { SshTransport } from '../transport/ssh.js'
import { type SshCredentials, sshTargetFor } from '../transport/targets.js'
import type { Transport } from '../transport/transport.js'
import type { Manifest, ManifestNode } from '../manifest/schema.js'
import type { TaskOutcome } from './outcome.js'
import { loadOrFail } from './validate.js'

export interface PreflightOptions {
  readonly credentials: SshCredentials
  readonly onProgress?: (message: string) => void
  /** Override how nodes are reached (tests); default SSH from the manifest. */
  readonly connect?: (m: Manifest, node: ManifestNode) => Promise<Result<Transport>>
  /** The runner's environment (the hub cache the fit reads); default process.env. */
  readonly env?: NodeJS.ProcessEnv
  /** Run the fabric collective (default: the manifest's preflight.collective). */
  readonly collective?: boolean
}

/**
 * What a preflight needs once its connections are under way (the probe, the fabric collective, the
 * facts' schema, the checks and log signatures, the fit, the report) is a chunk of its own, loaded
 * after the first connection has started: the Action's start-up (bench row 6) compiles only the
 * manifest, the transport and this file before it connects. One macrotask first, so each node's
 * socket is open (its SYN sent) before the chunk's compile occupies the thread.
 */
const afterConnecting = async () => {
  await new Promise((resolve) => setImmediate(resolve))
  return import('./preflight-stages.js')
}

/** Live preflight of a manifest's cluster: gather facts, run the checks, report. Callable from code. */
export async function preflightManifest(m: Manifest, opts: PreflightOptions) {
  const connect = opts.connect ?? ((mm: Manifest, node: ManifestNode) => SshTransport.connect(sshTargetFor(mm, node, opts.credentials)))
  const started = Date.now()
  const opened: Transport[] = []
  // Every node is connected once; the facts and the fabric collective run at once over the same connections.
  const connecting = new Map(
    m.nodes.map((node) => [
      node.name,
      connect(m, node).then((r) => {
        if (r.ok) opened.push(r.value)
        return r
      }),
    ]),
  )
  try {
    const r = await (await afterConnecting()).gatherAndCheck(m, connecting, opts)
    return { ...r, durationMs: Date.now() - started }
  } finally {
    await Promise.all([...connecting.values()])
    await Promise.all(opened.map((t) => t.close()))
  }
}

export async function preflightTask(path: string, opts: PreflightOptions): Promise<TaskOutcome> {
  const loaded = await loadOrFail(path)
  if (!loaded.ok) return loaded.problem
  const r = await preflightManifest(loaded.value.manifest, opts)
  return (await afterConnecting()).preflightOutcome(path, loaded.value.manifest, r, opts.env ?? process.env)
}
