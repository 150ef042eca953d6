/** What every lab row needs: the lab's manifest and the credentials to reach its nodes. */
import { readFileSync } from 'node:fs'
import { type LabInfo, loadLabManifest } from '../../support/lab.js'
import type { Manifest } from '../../../src/manifest/schema.js'
import type { SshCredentials } from '../../../src/transport/targets.js'

export interface BenchLab {
  readonly info: LabInfo
  readonly manifest: Manifest
  readonly credentials: SshCredentials
}

export async function benchLab(info: LabInfo): Promise<BenchLab> {
  const { manifest } = await loadLabManifest(info.dir)
  return { info, manifest, credentials: { privateKey: readFileSync(info.sshKeyPath, 'utf8'), knownHosts: readFileSync(info.knownHostsPath, 'utf8') } }
}
