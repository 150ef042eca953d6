/**
 * What `labUp` returns and `labStatus` reports: plain data (JSON-serialisable).
 */
import type { LabNetwork } from './layout.js'

export interface LabOptions {
  /** Lab dir; default `$VRD_LAB_DIR`, else `<repo>/.lab`. */
  readonly dir?: string
  /** Progress of long steps, one line per message. */
  readonly onProgress?: (msg: string) => void
}

export interface LabUpOptions extends LabOptions {
  /** 1 to 4 nodes; default: as many as the lab has now, or 2 for a new lab. */
  readonly nodes?: number
}

export interface LabDownOptions extends LabOptions {
  /** Also remove the lab's images and its cache (rootfs, debs, wheels). Keys stay. */
  readonly purge?: boolean
}

export interface LabNodeInfo {
  readonly name: string
  readonly role: 'head' | 'worker'
  readonly container: string
  readonly hostname: string
  readonly mgmtIp: string
  readonly fabricIp: string
  readonly mgmtInterface: string
  readonly fabricInterface: string
  /** What to ssh to from this machine (= mgmtIp). */
  readonly sshHost: string
  /** The node's pinned host key, `ssh-ed25519 AAAA...`. */
  readonly hostKey: string
  readonly gpus: number
}

export interface LabWorkloadImage {
  /** How the nodes (and the manifest) name it: `172.30.230.5:5000/vrd-lab/vllm-standin:latest`. */
  readonly ref: string
  /** Same image as pushed from this machine: `127.0.0.1:5000/vrd-lab/vllm-standin:latest`. */
  readonly hostRef: string
  /** Local tag on this machine: `vrd-lab/vllm-standin:latest`. */
  readonly localRef: string
  readonly id: string
  /** Content hash of the stand-in sources, requirements and recipe (image label `vrd-lab.hash`). */
  readonly hash: string
  readonly sourceDir: string
  /** True when this call built it (false: the cached image was still current). */
  readonly built: boolean
  /** True when this call pushed it to the lab registry. */
  readonly pushed: boolean
}

export interface LabInfo {
  readonly dir: string
  readonly manifestPath: string
  /** Client private key (0600) that logs in as root (and as `spark`) on every node. */
  readonly sshKeyPath: string
  readonly knownHostsPath: string
  /** `ssh -F <sshConfigPath> spark-a`. */
  readonly sshConfigPath: string
  readonly sshUser: string
  readonly sshPort: number
  readonly nodes: readonly LabNodeInfo[]
  readonly networks: { readonly mgmt: LabNetwork; readonly fabric: LabNetwork }
  readonly registry: {
    readonly container: string
    /** As the nodes see it: `172.30.230.5:5000`. */
    readonly nodeAddress: string
    /** As this machine sees it: `127.0.0.1:5000`. */
    readonly hostAddress: string
  }
  readonly workloadImage: LabWorkloadImage
  /** Whether the nodes run with `--privileged` (false on hosts that cannot grant it). */
  readonly privileged: boolean
  readonly docker: { readonly binary: string; readonly serverVersion: string }
  readonly durationMs: number
  /** What this call created or rebuilt (empty for a no-op `up`). */
  readonly changed: readonly string[]
}

export interface LabNodeStatus {
  readonly name: string
  readonly container: string
  /** docker's state (`running`, `exited`, ...) or `missing`. */
  readonly state: string
  readonly mgmtIp?: string
  readonly fabricIp?: string
  /** An SSH banner came back from mgmtIp:22 (TCP from this machine). */
  readonly sshReachable: boolean
  readonly sshBanner?: string
  /** The node's own dockerd answers (`docker info` inside the node). */
  readonly dockerReady: boolean
  readonly dockerVersion?: string
  readonly storageDriver?: string
  readonly detail?: string
}

export interface LabStatus {
  readonly dir: string
  /** Docker on this machine; when not ok, nothing else could be looked at. */
  readonly docker: { readonly ok: boolean; readonly binary: string; readonly version?: string; readonly detail?: string }
  readonly nodes: readonly LabNodeStatus[]
  readonly registry: {
    readonly container: string
    readonly state: string
    /** `GET http://127.0.0.1:5000/v2/` answered 200. */
    readonly reachable: boolean
    readonly address: string
  }
  readonly networks: readonly { readonly name: string; readonly present: boolean; readonly subnet: string }[]
  readonly egressGuard: {
    /** One DROP rule per lab bridge is in DOCKER-USER. */
    readonly present: boolean
    readonly rules: readonly string[]
    readonly detail?: string
  }
  readonly volumes: readonly string[]
  /**
   * The lab directory's files a user needs from here (the manifest, the SSH key, known_hosts):
   * containers another clone set up are no lab for this one without them.
   */
  readonly files: { readonly dirExists: boolean; readonly missing: readonly string[] }
  /** Everything above is up and answering, and the lab directory has its files. */
  readonly healthy: boolean
  /** Nothing of the lab exists (no container, network, volume or rule). */
  readonly down: boolean
}
