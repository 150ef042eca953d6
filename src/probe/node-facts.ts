/**
 * The facts of one node: what the node probe (node-probe.ts) prints, field for field, and what the
 * checks read. One schema: the probe's document is this shape plus the probe's own notes and the
 * head's Ray view; `gather` adds only the node's name and whether the probe ran.
 */
import { z } from 'zod'

const strings = () => z.array(z.string()).readonly()

export const InterfaceFactsSchema = z
  .object({
    name: z.string(),
    /** Addresses in CIDR form, e.g. `192.168.200.12/24`. IPv4 and IPv6. */
    addresses: strings(),
    up: z.boolean(),
    /** `ip link` flags (`UP`, `LOWER_UP`, ...): LOWER_UP is the carrier. */
    flags: strings().optional(),
    /** `/sys/class/net/IF/operstate` (`up`, `down`, `unknown`). */
    operstate: z.string().optional(),
    /** `/sys/class/net/IF/mtu`. */
    mtu: z.number().optional(),
    /** `/sys/class/net/IF/speed` in Mb/s; absent when the kernel does not know it (virtual links print -1 or refuse). */
    speedMbps: z.number().optional(),
  })
  .readonly()

export const RouteFactsSchema = z
  .object({
    /** Destination asked about (`default`, or a peer's fabric IP). */
    to: z.string(),
    dev: z.string().optional(),
    /** Source address the kernel picks for this route: the identity a process binding "by route" gets. */
    src: z.string().optional(),
    via: z.string().optional(),
    /** Set when the lookup failed (no route). */
    error: z.string().optional(),
  })
  .readonly()

export const PeerReachabilitySchema = z
  .object({
    peer: z.string(),
    ip: z.string(),
    route: RouteFactsSchema,
    /** Result of a bounded TCP/ICMP probe over the fabric; undefined when not probed. */
    reachable: z.boolean().optional(),
    detail: z.string().optional(),
  })
  .readonly()

export const GpuFactsSchema = z
  .object({
    index: z.number(),
    name: z.string(),
    uuid: z.string().optional(),
    /** `nvidia-smi --query-gpu=memory.total,memory.free` in MiB; absent where the driver reports `[N/A]` (GB10's unified memory). */
    memoryTotalMiB: z.number().optional(),
    memoryFreeMiB: z.number().optional(),
  })
  .readonly()

/** A TCP connect from this node to a port another node must have open (Ray's GCS on the head, SSH, ...). */
export const PortProbeSchema = z
  .object({
    peer: z.string(),
    ip: z.string(),
    port: z.number(),
    /** What the port is for, e.g. `Ray GCS`. */
    purpose: z.string(),
    /**
     * `open`: connected. `refused`: the host answered with a reset (nothing listens; not filtered).
     * `timeout`: no answer (a firewall drops it). `error`: anything else (`detail`).
     */
    state: z.enum(['open', 'refused', 'timeout', 'error']),
    detail: z.string().optional(),
  })
  .readonly()

/** One CDI spec file as the probe read it: its kind, the driver versions its files carry, the files that are gone. */
export const CdiSpecFactsSchema = z
  .object({
    path: z.string(),
    /** `nvidia.com/gpu`; absent when the file names none. */
    kind: z.string().optional(),
    /** Driver versions in the names of the files it mounts (`libcuda.so.580.95.05`, `firmware/nvidia/580.95.05/`). */
    driverVersions: strings(),
    /** How many host files it mounts (device nodes and /run, /proc, /sys, /tmp paths not counted). */
    hostPaths: z.number(),
    /** Host files it mounts that do not exist (the first few; device nodes and /run are not counted). */
    missing: strings(),
    missingCount: z.number(),
    /** Why the file could not be read. */
    error: z.string().optional(),
  })
  .readonly()

/** The host itself, read by the node probe: what node match, fabric and memory checks compare. */
export const HostFactsSchema = z
  .object({
    /** `uname -r`. */
    kernel: z.string().optional(),
    /** `uname -m`: the CPU architecture images must be built for (aarch64 on a GB10 / DGX Spark or a GH200, x86_64). */
    machine: z.string().optional(),
    /** The NVIDIA kernel module's version (`/proc/driver/nvidia/version`, else nvidia-smi's driver_version). */
    driverVersion: z.string().optional(),
    /** The CUDA version the driver supports (`nvidia-smi`'s header, `CUDA Version: 13.0`). */
    cudaVersion: z.string().optional(),
    /** nvidia-smi's own failure, when it has no GPU list to give (`missing`: not installed). */
    gpuError: z.object({ missing: z.boolean(), error: z.string() }).readonly().optional(),
    /** `/proc/meminfo` MemTotal and MemAvailable, in bytes. */
    memTotalBytes: z.number().optional(),
    memAvailableBytes: z.number().optional(),
    /**
     * True when the GPU shares the host's memory (GB10: nvidia-smi's `Addressing Mode: ATS`, or its
     * memory reported `[N/A]`): then `gpu_memory_utilization` takes host memory.
     */
    unifiedMemory: z.boolean().optional(),
    /** RDMA devices under `/sys/class/infiniband` (empty when none; absent when unreadable). */
    rdmaDevices: strings().optional(),
    /** docker: the engine's version, its data root and free bytes there, its runtimes, or why it is unusable. */
    docker: z
      .object({
        ok: z.boolean(),
        missing: z.boolean().optional(),
        error: z.string().optional(),
        version: z.string().optional(),
        rootDir: z.string().optional(),
        rootFreeBytes: z.number().optional(),
        runtimes: strings().optional(),
        /** Path of nvidia-container-runtime-hook when installed: dockerd then serves `--gpus` with it as a prestart hook. */
        nvidiaHook: z.string().optional(),
        /** docker info's `CDISpecDirs`: where dockerd reads CDI specs; empty when CDI is off; absent on a docker without CDI. */
        cdiSpecDirs: strings().optional(),
        /** docker info's `DiscoveredDevices` from CDI (`nvidia.com/gpu=all`, ...), on a docker that lists them. */
        cdiDevices: strings().optional(),
      })
      .readonly()
      .optional(),
    /** The NVIDIA container tooling besides docker's own view: the CDI hook, the NVIDIA runtime's mode, the CDI specs on the host. */
    nvidiaContainer: z
      .object({
        /** Path of nvidia-cdi-hook (docker 29.2+ serves `--gpus` through CDI when it is on PATH and CDI is on). */
        cdiHook: z.string().optional(),
        /** `mode` of `[nvidia-container-runtime]` in /etc/nvidia-container-runtime/config.toml (`auto`, `legacy`, `cdi`, `csv`, `jit-cdi`). */
        runtimeMode: z.string().optional(),
        /** Each NVIDIA CDI spec in dockerd's and CDI's default directories, lowest priority first. */
        cdiSpecs: z.array(CdiSpecFactsSchema).readonly(),
      })
      .readonly()
      .optional(),
    /** User-space OOM killers (earlyoom, systemd-oomd, nohang): each one's unit state and the ones running as a process. */
    oomGuards: z
      .object({
        /** `systemctl is-active <guard>.service` per guard (`active`, `inactive`, `failed`, ...); absent without systemd (`unitsError`). */
        units: z.record(z.string(), z.string()).readonly().optional(),
        unitsError: z.string().optional(),
        /** Guards with a running process (`/proc/PID/comm`), on the host or in a container. */
        running: strings(),
      })
      .readonly()
      .optional(),
    /** Free space for the tool's own data directories (the release state), each on the filesystem that holds it. */
    dataDirs: z
      .array(
        z
          .object({
            /** What lands there, e.g. `release state`. */
            label: z.string(),
            path: z.string(),
            /** The directory statvfs read: `path`, or its nearest existing ancestor. */
            statPath: z.string(),
            freeBytes: z.number(),
            totalBytes: z.number(),
          })
          .readonly(),
      )
      .readonly()
      .optional(),
    /** Kernel log lines of GPU memory exhaustion and the OOM killer (NV_ERR_NO_MEMORY, `Out of memory: Killed process`). */
    kernelLog: strings().optional(),
    /** Head → worker SSH over the fabric (image.distribution relay): exit code and output per worker IP. */
    relay: z
      .array(z.object({ ip: z.string(), code: z.number(), output: z.string() }).readonly())
      .readonly()
      .optional(),
  })
  .readonly()

/**
 * The running `vllm serve` in the container (its first process: the API server or, with
 * `--headless`, the engine's), read from `/proc`: its argv as the kernel holds it and, of its
 * environment, the variables of ENV_OF_INTEREST. What vLLM actually runs with, where the
 * container's configured env is only what `docker run` gave it (a script may `export` more).
 */
export const VllmProcessSchema = z
  .object({
    pid: z.number(),
    argv: strings(),
    /** Variables of interest from `/proc/PID/environ` (absent when it could not be read: `envError`). */
    env: z.record(z.string(), z.string()).readonly().optional(),
    envError: z.string().optional(),
    /**
     * A TCP connect from inside this node's container to the address and port its `--master-addr` /
     * `--master-port` name (torch's TCPStore on the head), when the process is in the native
     * multi-node mode. Same states as a port probe.
     */
    master: z
      .object({
        ip: z.string(),
        port: z.number(),
        state: z.enum(['open', 'refused', 'timeout', 'error']),
        detail: z.string().optional(),
      })
      .readonly()
      .optional(),
  })
  .readonly()

/** Where vLLM's `get_ip()` took the IP from, inside the container. */
export const VLLM_IP_SOURCES = ['VLLM_HOST_IP', 'default-route', 'unknown'] as const

export const ContainerFactsSchema = z
  .object({
    name: z.string(),
    running: z.boolean(),
    imageRef: z.string().optional(),
    imageId: z.string().optional(),
    /** The container's environment, limited to the variables that matter for Ray/vLLM networking. */
    env: z.record(z.string(), z.string()).readonly(),
    versions: z
      .object({
        python: z.string().optional(),
        ray: z.string().optional(),
        vllm: z.string().optional(),
        torch: z.string().optional(),
        /** NCCL as the container's torch links it (`torch.cuda.nccl.version()`'s numbers joined), from its wheel's metadata. */
        nccl: z.string().optional(),
      })
      .readonly(),
    /**
     * The IP vLLM will use for this node, computed inside the container by vLLM's own rule:
     * `VLLM_HOST_IP` if set, else the source address of the default route (UDP "connect" to 8.8.8.8,
     * which sends nothing).
     */
    vllmIp: z.string().optional(),
    vllmIpSource: z.enum(VLLM_IP_SOURCES).optional(),
    /** Ray's idea of this node's IP as seen from inside the container, if Ray is up. */
    rayNodeIp: z.string().optional(),
    /** The running `vllm serve` process, when one runs in the container. */
    vllmProcess: VllmProcessSchema.optional(),
  })
  .readonly()

/** What the probe reads on a node. */
const ProbedNodeShape = z.object({
  hostname: z.string().optional(),
  interfaces: z.array(InterfaceFactsSchema).readonly(),
  defaultRoute: RouteFactsSchema.optional(),
  peers: z.array(PeerReachabilitySchema).readonly(),
  gpus: z.array(GpuFactsSchema).readonly(),
  /** The vLLM/Ray container on this node, when one exists. */
  container: ContainerFactsSchema.optional(),
  /** The host's kernel, driver, memory, RDMA devices and docker (absent in bundles from before they were gathered). */
  host: HostFactsSchema.optional(),
  /** TCP connects to the ports Ray needs on other nodes' fabric IPs. */
  ports: z.array(PortProbeSchema).readonly().optional(),
})

export const NodeFactsSchema = ProbedNodeShape.extend({
  /** Node name from the manifest (or from the input file for offline diagnosis). */
  node: z.string(),
  sshHost: z.string().optional(),
  /** False when the node could not be reached or the facts script failed; `error` says why. */
  ok: z.boolean(),
  error: z.string().optional(),
}).readonly()

/** The probe's document: a node's facts, the probe's notes, and (on the head) Ray's view. */
export const ProbeOutputSchema = ProbedNodeShape.extend({
  /** Non-fatal problems the probe met (a missing nvidia-smi, say). */
  errors: strings(),
  /** `null`: docker answered that no such container exists. */
  container: ContainerFactsSchema.nullish(),
  /** `ray.nodes()` as the head's container printed it; parsed by the preflight's Ray parser. */
  rayNodes: z.unknown().optional(),
  rayError: z.string().optional(),
  /** Text of `ray status` in the head's container. */
  rayStatus: z.string().optional(),
}).readonly()

export type ProbeOutput = z.output<typeof ProbeOutputSchema>

export type InterfaceFacts = z.output<typeof InterfaceFactsSchema>
export type RouteFacts = z.output<typeof RouteFactsSchema>
export type PeerReachability = z.output<typeof PeerReachabilitySchema>
export type GpuFacts = z.output<typeof GpuFactsSchema>
export type HostFacts = z.output<typeof HostFactsSchema>
export type CdiSpecFacts = z.output<typeof CdiSpecFactsSchema>
export type PortProbe = z.output<typeof PortProbeSchema>
export type ContainerFacts = z.output<typeof ContainerFactsSchema>
export type VllmProcess = z.output<typeof VllmProcessSchema>
export type NodeFacts = z.output<typeof NodeFactsSchema>
