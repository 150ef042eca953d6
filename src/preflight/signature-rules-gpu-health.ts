/**
 * Log signatures of a node whose GPU, or the driver under it, cannot be used: CUDA refusing to start because a
 * daemon the system needs is not ready (error 802: NVSwitch systems without a running Fabric Manager) or because the
 * user-space driver library does not belong to the loaded kernel module (803); nvidia-smi that cannot reach the driver;
 * NGC images' entrypoint finding no driver; and the faults the GPU itself reports (GPU_FAULT): the kernel driver's
 * Xid records read against NVIDIA's Xid catalog (what each number asks of an operator), a GPU that fell off the bus
 * or is lost, uncorrectable ECC errors. Wordings with their sources in src/preflight/WORDINGS.md.
 */

import type { LineContext, RuleHit, SignatureRule } from './signature-rules.js'
import { nodeEvidence as node } from './line-node.js'

const FABRIC_MANAGER =
  "On that node: systemctl status nvidia-fabricmanager — it must run, at exactly the driver's version (its package is versioned with the driver: nvidia-fabricmanager-<branch>), and have finished (nvidia-smi -q | grep -A2 Fabric: State Completed, Status Success); start it (sudo systemctl enable --now nvidia-fabricmanager) or reinstall it at the driver's version, then start the container again. NVSwitch systems (HGX/DGX A100, H100, H200, B200) cannot start CUDA without it; a node that only just booted may need the wait."
const DRIVER_MISMATCH =
  'The libcuda.so the process loads must come from the same driver as the loaded kernel module (cat /proc/driver/nvidia/version against the libcuda.so.<version> in the container): drop a CUDA compat library (cuda-compat, /usr/local/cuda/compat on LD_LIBRARY_PATH) the image or the launch adds where the GPU has no forward compatibility (GB10, GeForce/RTX) or where its version does not fit the driver, and reboot a node whose driver was upgraded without one.'
const NO_DRIVER =
  'On the host: nvidia-smi must work (install the driver, or load it: sudo modprobe nvidia; after a driver upgrade, reboot), then start the container with its GPUs (--gpus all or the NVIDIA runtime). vllm-ray-deploy preflight reads every node before a deploy.'

/** CUDA's system errors: the driver loaded but CUDA will not start (driver API/runtime names, torch's and NCCL's wordings). */
const CUDA_SYSTEM_RULES: readonly SignatureRule[] = [
  {
    // CUDA runtime 802 cudaErrorSystemNotReady "system not yet initialized" (driver API CUDA_ERROR_SYSTEM_NOT_READY): torch's
    // "Unexpected error from cudaGetDeviceCount() … Error 802: system not yet initialized" (raised, or its UserWarning "CUDA initialization: …"),
    // NCCL's "Cuda failure 802 'system not yet initialized'", ggml's "failed to initialize CUDA: system not yet initialized", torch 1.x's
    // "cuda runtime error (802) : system not yet initialized". gpustack#4154 and pytorch#35710: nvidia-fabricmanager; huggingface_hub#4128 (H200,
    // 2026): Fabric Manager State "In Progress".
    code: 'DRIVER_NO_GPU',
    pattern: /\bsystem not yet initialized\b|\bcudaErrorSystemNotReady\b|\bCUDA_ERROR_SYSTEM_NOT_READY\b/,
    hit: (m, line, _ray, context) => {
      // The words alone could be another program's; CUDA's error names itself (802, cuda, CUDA_…).
      if (!/802|cuda/i.test(line)) return null
      return {
        key: `cuda-802:${context.prefixIp ?? ''}`,
        severity: 'error',
        message: `CUDA would not start${context.prefixIp ? ` on ${context.prefixIp}` : ''}: the system is not ready (CUDA error 802). On a GPU system with NVSwitches this is NVIDIA Fabric Manager not running, not at the driver's version, or not done initialising; no process there can use the GPUs until it is.`,
        evidence: { 'CUDA error': `802 (${m[0]})`, ...node(context) },
        fix: FABRIC_MANAGER,
      }
    },
  },
  {
    // Fabric Manager not running on an NVSwitch node, in a health checker's words: leptonai/gpud's fabric-manager component ("reason": "NVIDIA-H100-80GB-HBM3
    // checked fabric state; fabric manager found but not active", gpud PR #1151, 2025): CUDA error 802 follows on such a node.
    code: 'DRIVER_NO_GPU',
    pattern: /\bfabric manager found but not active\b/,
    hit: (m, _line, _ray, context) => ({
      key: `fabric-manager-inactive:${context.prefixIp ?? ''}`,
      severity: 'error',
      message: `NVIDIA Fabric Manager is installed but not running${context.prefixIp ? ` on ${context.prefixIp}` : ''}: on a GPU system with NVSwitches, CUDA will not start without it (error 802).`,
      evidence: { 'Health check': m[0], ...node(context) },
      fix: FABRIC_MANAGER,
    }),
  },
  {
    // A script's "Unknown option: <x>" (getopt-style refusal), remembered for the Fabric Manager start script's usage banner after it (below).
    code: 'DRIVER_NO_GPU',
    pattern: /^\s*Unknown option: (\S[^\n]{0,200})$/,
    hit: (m, _line, _ray, context) => {
      context.memory?.set('unknownOption', m[1]!.trim())
      return null
    },
  },
  {
    // Fabric Manager (or, on NVLink 5 baseboards, the NVLink subnet manager nvlsm it starts) refusing to start, in its own words:
    // nvidia-fabricmanager-start.sh's pre-start check (FM 570+ on HGX/DGX B200, GB200): 'Kernel module "ib_umad" has not been loaded, fabric
    // manager cannot be started' (spectrocloud/CanvOS PR #700, 2026); libibumad's umad_init in nvlsm: "nvlsm: ibwarn: [15] umad_init: can't read
    // ABI version from /sys/class/infiniband_mad/abi_version (No such file or directory): is ib_umad module loaded?" (siderolabs/docs PR #581,
    // 2026; rdma-core's wording, linux-rdma/rdma-core PR #393); the daemon's "fabric manager config file item: FABRIC_NODE_CONFIG_FILE has an
    // invalid value" (siderolabs/extensions#511); systemd's "Failed to start NVIDIA fabric manager service" (the unit's Description). Without
    // it the NVSwitches stay uninitialised and CUDA fails with error 802 (NVIDIA/gpu-operator#2781, 2026). libibumad's line is read only
    // where it names nvlsm or the fabric manager (other InfiniBand daemons print it too).
    code: 'DRIVER_NO_GPU',
    pattern:
      /\bNVIDIA Fabric Manager Start Script\b|\bKernel module "?([\w-]+)"? has not been loaded, fabric manager cannot be started|\bfabric manager cannot be started\b|\bumad_init: can't read ABI version\b[^\n]*\bis (ib_umad) module loaded\?|\bfabric manager config file item: (\w+) has an invalid value|\bFailed to start NVIDIA fabric ?manager\b/i,
    hit: (m, line, _ray, context) => {
      if (m[2] !== undefined && !/\bnvlsm\b|fabric ?manager/i.test(line)) return null
      // the start script's usage banner: printed where it refused its arguments ("Unknown option: /usr/share/nvidia/nvswitch/fabricmanager.cfg"
      // before it, NVIDIA/gpu-operator#1595: the driver container passed the config path bare), or for -h (then no unknown option before it)
      const usage = m[0].endsWith('Start Script')
      const refused = context.memory?.get('unknownOption')
      if (usage && refused === undefined) return null
      const module = m[1] ?? m[2]
      return {
        key: `fabric-manager-start:${context.prefixIp ?? ''}`,
        severity: 'error',
        message: `NVIDIA Fabric Manager could not start${context.prefixIp ? ` on ${context.prefixIp}` : ''}${usage ? ` (its start script refused its arguments: unknown option ${refused}, and printed its usage instead of starting it)` : ''}${module ? ` (the kernel module ${module} is not loaded: on NVLink 5 systems, HGX/DGX B200 and GB200, Fabric Manager and its NVLink subnet manager talk to the NVSwitches through it)` : m[3] ? ` (its config item ${m[3]} has an invalid value)` : ''}: the NVSwitches stay uninitialised, the GPUs never finish fabric registration, and CUDA will not start there (error 802).`,
        evidence: {
          'Fabric Manager': m[0].slice(0, 160),
          ...(module ? { 'Kernel module missing': module } : {}),
          ...(usage ? { 'Option refused': refused! } : {}),
          ...node(context),
        },
        fix: usage
          ? 'Pass the start script its options by name (nvidia-fabricmanager-start.sh --mode start --fm-config-file <cfg> …; with the GPU Operator, a driver container release whose start wrapper does): a bare config path is refused and Fabric Manager never starts. Then check nvidia-smi -q | grep -A2 Fabric shows State Completed.'
          : module
            ? `On that node: sudo modprobe ${module} and load it at every boot (echo ${module} > /etc/modules-load.d/nvidia-fabricmanager.conf; its package is the kernel's extra modules, e.g. linux-modules-extra), then sudo systemctl restart nvidia-fabricmanager and wait for nvidia-smi -q | grep -A2 Fabric to show State Completed, Status Success.`
            : FABRIC_MANAGER,
      }
    },
  },
  {
    // nvidia-smi -q's Fabric section (driver 525+): "Fabric" / "State : Completed" / "Status : Insufficient Resources" / "CliqueId : 0" / "ClusterUUID :
    // 00000000-…" — the GPU finished NVLink fabric registration without being admitted (Azure/azhpc-images PR #506, 2026: the node's GPUs are not in a
    // working NVLink domain); "State : In Progress" is Fabric Manager not done (huggingface_hub#4128: CUDA error 802 until then). "State : N/A" (no
    // NVSwitch) and "Status : Success" are healthy. The Fabric header is remembered; its State and Status lines are read only after it.
    code: 'GPU_FAULT',
    pattern: /^\s*Fabric\s*$|^\s*(State|Status)\s+:\s*(\S[^\n]*?)\s*$/,
    hit: (m, _line, _ray, context) => {
      const memory = context.memory
      if (m[1] === undefined) {
        memory?.set('fabricSection', 'open')
        return null
      }
      if (memory?.get('fabricSection') !== 'open') return null
      const value = m[2]!
      if (m[1] === 'State') {
        memory?.set('fabricState', value)
        return null
      }
      memory?.delete('fabricSection')
      const state = memory?.get('fabricState')
      // (In Progress is Fabric Manager not done: DRIVER_NO_GPU, read from the State line in CUDA_SYSTEM_RULES.)
      if (/^(?:Success|N\/A|In Progress)$/i.test(value) || /^In Progress$/i.test(state ?? '')) return null
      return {
        key: `fabric:${value}:${context.prefixIp ?? ''}`,
        severity: 'error',
        message: `A GPU finished NVLink fabric registration without being admitted${context.prefixIp ? ` on ${context.prefixIp}` : ''} (nvidia-smi -q: Fabric Status ${value}): it is not part of a working NVLink domain, so multi-GPU work over NVLink fails there.`,
        evidence: { 'Fabric State': state ?? '(not shown)', 'Fabric Status': value, ...node(context) },
        fix: 'Drain that node and check its NVLink fabric: systemctl status nvidia-fabricmanager (and its log, /var/log/fabricmanager.log), nvidia-smi -q | grep -A4 Fabric on every GPU (State Completed, Status Success, a non-zero ClusterUUID), nvidia-smi nvlink -s; restart Fabric Manager or reboot the node, and if a GPU stays unadmitted, ask the vendor.',
      }
    },
  },
  {
    // nvidia-smi -q's Fabric section still registering: "Fabric" / "State : In Progress" (the header remembered by GPU_FAULT_RULES' Fabric rule,
    // below, on an earlier line): Fabric Manager has not finished, CUDA error 802 until it has (huggingface_hub#4128, 2026).
    code: 'DRIVER_NO_GPU',
    pattern: /^\s*State\s+:\s*In Progress\s*$/,
    hit: (_m, _line, _ray, context) =>
      context.memory?.get('fabricSection') !== 'open'
        ? null
        : {
            key: `fabric-in-progress:${context.prefixIp ?? ''}`,
            severity: 'error',
            message: `A GPU's NVLink fabric registration is still in progress${context.prefixIp ? ` on ${context.prefixIp}` : ''} (nvidia-smi -q: Fabric State In Progress): Fabric Manager has not finished, and CUDA will not start until it has (error 802).`,
            evidence: { 'Fabric State': 'In Progress', ...node(context) },
            fix: FABRIC_MANAGER,
          },
  },
  {
    // CUDA runtime 803 cudaErrorSystemDriverMismatch "system has unsupported display driver / cuda driver combination" (vllm#15335, through
    // torch's cudaGetDeviceCount); driver API CUDA_ERROR_SYSTEM_DRIVER_MISMATCH.
    code: 'DRIVER_NO_GPU',
    pattern: /system has unsupported display driver \/ cuda driver combination|\bcudaErrorSystemDriverMismatch\b|\bCUDA_ERROR_SYSTEM_DRIVER_MISMATCH\b/,
    hit: (m, _line, _ray, context) => ({
      key: `cuda-803:${context.prefixIp ?? ''}`,
      severity: 'error',
      message: `CUDA would not start${context.prefixIp ? ` on ${context.prefixIp}` : ''}: the CUDA driver library the process loaded does not belong to the kernel module that is running (CUDA error 803) — a CUDA compat library in the image or on LD_LIBRARY_PATH, or a driver upgraded without a reboot.`,
      evidence: { 'CUDA error': `803 (${m[0]})`, ...node(context) },
      fix: DRIVER_MISMATCH,
    }),
  },
  {
    // nvidia-smi on the node, the same fact the host checks read (NO_GPU_VISIBLE): "NVIDIA-SMI has failed because it couldn't communicate with the
    // NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running." (NVML_ERROR_DRIVER_NOT_LOADED), and "No devices were found"
    // on its own line (the driver loaded and initialised no GPU: prathamesh.dev 2026, a Blackwell card under the proprietary modules).
    code: 'NO_GPU_VISIBLE',
    pattern: /NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver|^\s*No devices were found\s*$/,
    hit: (m, _line, _ray, context) => {
      const noDriver = m[0].startsWith('NVIDIA-SMI')
      return {
        key: `nvidia-smi:${noDriver}:${context.prefixIp ?? ''}`,
        severity: 'error',
        message: noDriver
          ? `nvidia-smi could not reach the NVIDIA driver${context.prefixIp ? ` on ${context.prefixIp}` : ''}: the driver is not loaded there (not installed, a kernel updated without its module, or a container started without its GPUs).`
          : `nvidia-smi found no GPU${context.prefixIp ? ` on ${context.prefixIp}` : ''}: the driver is loaded but initialised none (a GPU its kernel modules do not support, missing firmware, a GPU lost since boot).`,
        evidence: { 'nvidia-smi': noDriver ? "couldn't communicate with the NVIDIA driver" : 'No devices were found', ...node(context) },
        fix: noDriver
          ? NO_DRIVER
          : "On that node: sudo dmesg | grep -i NVRM tells why the driver took no GPU. Blackwell GPUs (RTX PRO 6000, B200, GB10) and Grace Hopper need NVIDIA's open kernel modules (nvidia-driver-<branch>-open); a GPU newer than the driver needs a newer branch; then reboot and check nvidia-smi -L.",
      }
    },
  },
  {
    // NVML refusing to start in a process on the node (nvidia-smi, torch, vLLM's platform probe, a device plugin): "Failed to initialize NVML:
    // <nvmlErrorString>". "Unknown Error" is a running container that lost its GPUs — systemd reloaded its units (systemctl daemon-reload) and
    // took back device access the NVIDIA runtime hook had given behind runc's back (NVIDIA/nvidia-container-toolkit#48 and #1227, 2025;
    // NVIDIA/nvidia-docker#1671; the toolkit's troubleshooting page, "Containers losing access to GPUs"); "Driver Not Loaded", "Insufficient
    // Permissions" (the device nodes not readable) and "GPU access blocked by the operating system" (WSL) are the others that leave no GPU.
    // ("Driver/library version mismatch" has its own rule: a driver upgraded without a reboot.)
    code: 'NO_GPU_VISIBLE',
    pattern: /\bFailed to initiali[sz]e NVML: (Unknown Error|Driver Not Loaded|Insufficient Permissions|GPU access blocked by the operating system)/,
    hit: (m, _line, _ray, context) => {
      const why = m[1]!
      const lost = why === 'Unknown Error'
      return {
        key: `nvml:${why}:${context.prefixIp ?? ''}`,
        severity: 'error',
        message: lost
          ? `NVML could not start${context.prefixIp ? ` on ${context.prefixIp}` : ''} ("Unknown Error"): in a container that had its GPUs this is the container losing them — systemd reloaded its units (systemctl daemon-reload, a package update) and dropped the device access the NVIDIA runtime had given it. No process in it can use a GPU until it is recreated.`
          : `NVML could not start${context.prefixIp ? ` on ${context.prefixIp}` : ''} ("${why}"): ${why === 'Driver Not Loaded' ? 'the NVIDIA driver is not loaded on the node' : why === 'Insufficient Permissions' ? "the process may not open the GPUs' device nodes" : 'the operating system blocks GPU access (WSL without GPU support)'}, so no GPU is usable there.`,
        evidence: { NVML: why, ...node(context) },
        fix: lost
          ? "Recreate the container (docker rm -f, then start it again): it gets its GPUs back. To keep it from recurring, follow NVIDIA container toolkit's troubleshooting for this error: run containers with CDI device injection (nvidia-ctk cdi generate; docker --device nvidia.com/gpu=all), or create the /dev/char symlinks (nvidia-ctk system create-dev-char-symlinks --create-all, and its udev rule), or use cgroupfs instead of systemd as the cgroup driver."
          : why === 'Driver Not Loaded'
            ? NO_DRIVER
            : 'Start the container with its GPUs through the NVIDIA runtime (--gpus all or CDI devices) rather than mounting device nodes by hand, and check the device nodes (ls -l /dev/nvidia*) are readable by the user the server runs as; under WSL, use a Windows driver with WSL GPU support.',
      }
    },
  },
  {
    // The driver's own user-space library missing where a process looks for it: "OSError: libcuda.so.1: cannot open shared object file: No such
    // file or directory" (also "ImportError: …", "libnvidia-ml.so.1: cannot open shared object file"): a container started without its GPUs (the
    // NVIDIA runtime mounts these from the host) or a node without the driver.
    code: 'DRIVER_NO_GPU',
    pattern: /\b(libcuda\.so(?:\.1)?|libnvidia-ml\.so(?:\.1)?): cannot open shared object file/,
    hit: (m, line, _ray, context) =>
      // (libnvidia-container's own load failure is the container toolkit's: NVIDIA_RUNTIME_MISSING, signature-rules-gpu.ts)
      line.includes('nvidia-container-cli')
        ? null
        : NCCL_CUDA_LOOKUP.test(line)
          ? ncclCudaLookup(m[1]!, context)
          : {
              key: `driver-lib:${m[1]}:${context.prefixIp ?? ''}`,
              // vLLM's own warning when its CUDA extension does not load ("WARNING … [interface.py:225] Failed to import from vllm._C:
              // ImportError('libcuda.so.1: …')") is what every start on a platform without CUDA prints (AWS Neuron, TPU, CPU: held-out batch
              // 37's inf2 log); on a GPU node the error that stops the start follows it
              severity: /(?:^|\s|\])WARNING\b/.test(line.slice(0, m.index)) ? 'warning' : 'error',
              message: `A process${context.prefixIp ? ` on ${context.prefixIp}` : ''} could not load the NVIDIA driver's ${m[1]}: the container was started without its GPUs (the NVIDIA runtime mounts the driver's libraries from the host), or the node has no driver.`,
              evidence: { 'Missing library': m[1]!, ...node(context) },
              fix: NO_DRIVER,
            },
  },
  {
    // NGC images' entrypoint (/opt/nvidia/entrypoint.d): "WARNING: The NVIDIA Driver was not detected.  GPU functionality will not be available."
    // A warning: a CPU-only container of the same image prints it too; beside a vLLM start it is why no GPU is found.
    code: 'DRIVER_NO_GPU',
    pattern: /The NVIDIA Driver was not detected\.\s+GPU functionality will not be available/,
    hit: (_m, _line, _ray, context) => ({
      key: `ngc-no-driver:${context.prefixIp ?? ''}`,
      severity: 'warning',
      message: `The container started without an NVIDIA driver${context.prefixIp ? ` on ${context.prefixIp}` : ''} (its image's entrypoint found none): nothing in it can use a GPU.`,
      evidence: { 'NGC entrypoint': 'The NVIDIA Driver was not detected', ...node(context) },
      fix: NO_DRIVER,
    }),
  },
]

/**
 * NCCL's own search for the driver library (misc/cudawrap.cc): "NCCL WARN Failed to find CUDA library libcuda.so (NCCL_CUDA_PATH='') : libcuda.so:
 * cannot open shared object file". NCCL asks for the unversioned name the driver does not always install, and goes on with the runtime it has:
 * the process has its GPU (vllm-project/vllm#4411: WSL2, where the driver's libraries are in /usr/lib/wsl/lib, channels set up after it).
 */
const NCCL_CUDA_LOOKUP = /Failed to find CUDA library\b/

function ncclCudaLookup(library: string, context: LineContext): RuleHit {
  return {
    key: `nccl-cudawrap:${context.prefixIp ?? ''}`,
    severity: 'warning',
    message: `NCCL could not open the driver library by the name ${library}; it goes on without the driver calls it loads itself (CUDA's memory-mapping features), so this alone does not stop a start. Under WSL2 the driver's libraries are in /usr/lib/wsl/lib.`,
    evidence: { 'Library NCCL looked for': library, ...node(context) },
    fix: 'Point NCCL at the driver library (NCCL_CUDA_PATH, or LD_LIBRARY_PATH with the folder that holds libcuda.so: /usr/lib/wsl/lib under WSL2), or install the libcuda.so link of the driver package; read the failure that follows for what stopped the start.',
  }
}

type XidAction = 'reboot' | 'reset' | 'nvlink' | 'gsp' | 'process'

/**
 * NVIDIA's Xid catalog (docs.nvidia.com/deploy/xid-errors, "Analyzing Xid catalog"; the same numbers and resolutions in NVIDIA/NVSentinel's
 * xiderrorsmapping.csv), the Xids a compute node meets, by what the catalog asks of an operator. Xids the catalog marks ignore or that only follow
 * a process's end (43, 45: the channel of a killed process torn down; 63, 92: an ECC page retired or single-bit errors counted) are not read.
 */
const XID_CATALOG: Readonly<Record<number, readonly [string, XidAction]>> = {
  13: ['a graphics engine exception (a kernel fault)', 'process'],
  31: ['an MMU fault (a kernel touched memory it does not own)', 'process'],
  32: ['a corrupted push buffer stream', 'process'],
  46: ['a GPU stopped processing', 'reset'],
  48: ['a double-bit ECC error', 'reset'],
  62: ['an internal micro-controller halt', 'reset'],
  64: ['an ECC page retirement or row-remapping failure', 'reset'],
  74: ['an NVLink error', 'nvlink'],
  79: ['the GPU has fallen off the bus', 'reboot'],
  94: ['a contained ECC error', 'process'],
  95: ['an uncontained ECC error', 'reset'],
  109: ['a context-switch timeout', 'reset'],
  110: ['a security fault', 'reset'],
  119: ['a GSP RPC timeout', 'gsp'],
  120: ['a GSP error', 'gsp'],
  136: ['a link-training failure', 'reset'],
  140: ['an unrecovered ECC error', 'reset'],
  143: ['a GPU initialisation failure', 'reset'],
  144: ['an NVLink error (SAW)', 'nvlink'],
  145: ['an NVLink error (RLW)', 'nvlink'],
  146: ['an NVLink error (TLW)', 'nvlink'],
  147: ['an NVLink error (TREX)', 'nvlink'],
  148: ['an NVLink error (NVLPW)', 'nvlink'],
  149: ['an NVLink error (NETIR)', 'nvlink'],
  150: ['an NVLink error (MSE)', 'nvlink'],
  155: ['a software-defined NVLink error', 'nvlink'],
  156: ['a resource retirement event', 'reset'],
  158: ['a GPU fatal timeout', 'reset'],
}

const CHECK = 'then check it before the next deploy (nvidia-smi -q -d ECC,ROW_REMAPPER,PAGE_RETIREMENT and dmesg | grep -i xid)'
const XID_FIX: Readonly<Record<XidAction, string>> = {
  reboot:
    'Reboot that node: the GPU answers nothing until then. If it happens again, drain the node and check its power, cooling and the card in its slot (risers, PCIe errors in dmesg, the BIOS), then ask the vendor.',
  reset: `Stop what runs on that GPU and reset it (sudo nvidia-smi -r -i <index>, or reboot the node), ${CHECK}; if it comes back on the same GPU, drain the node and ask the vendor.`,
  nvlink: `Stop what runs on that node's GPUs and reset them (or reboot), ${CHECK} and NVLink (nvidia-smi nvlink -s, nvidia-smi nvlink -e); if it comes back, drain the node and ask the vendor.`,
  gsp: `Reset that GPU or reboot the node, ${CHECK}; GSP timeouts are often driver bugs fixed in later releases of the same branch: update the driver, the same on every node.`,
  process:
    'The GPU stays usable once the process that faulted is gone: restart the server. If the same model faults again, suspect its kernels for this GPU (an image built for another architecture, a kernel bug) before the hardware; a contained ECC error that repeats on one GPU means its memory (nvidia-smi -q -d ECC).',
}

const gpuFault = (key: string, severity: RuleHit['severity'], message: string, evidence: Record<string, string>, fix: string): RuleHit => ({
  key,
  severity,
  message,
  evidence,
  fix,
})

/** The GPU itself reports a fault: Xid records, a GPU lost from the bus, uncorrectable ECC. */
const GPU_FAULT_RULES: readonly SignatureRule[] = [
  {
    // NVIDIA kernel driver: "NVRM: Xid (PCI:0000:48:00): 62, 00002740 …" (no pid), "NVRM: Xid (PCI:0001:6c:00): 119, pid=10200, name=NvmlTaskRunner,
    // Timeout after 45s of waiting for RPC response from GPU5 GSP! …" (vllm#40652), "NVRM: Xid (PCI:0000:44:00): 79, GPU has fallen off the bus."
    // (NVSentinel#155), older "NVRM: Xid (0000:03:00): 79, …"; Xid 154 names the recovery the driver asks for: "GPU recovery action changed from
    // 0x0 (None) to 0x1 (GPU Reset Required)".
    code: 'GPU_FAULT',
    pattern: /NVRM: Xid \((?:PCI:)?([0-9a-fA-F:.]+)\): (\d+)\b(?:, pid=[^,]*)?(?:, name=[^,]*)?,?\s*([^\n]*)/,
    hit: (m, _line, _ray, context) => {
      const xid = Number(m[2])
      const gpu = m[1]!
      const detail = (m[3] ?? '').trim().slice(0, 200)
      if (xid === 154) {
        const wanted = /changed from [^\n]*? to (0x[0-9a-f]+ \(([^)]+)\))/i.exec(detail)
        if (!wanted || /\(None\)/i.test(wanted[1]!)) return null
        const action = wanted[2]!
        return gpuFault(
          `xid:${gpu}:154`,
          'error',
          `The NVIDIA driver asks for ${action} on the GPU at PCI ${gpu} (Xid 154): an earlier fault left it unusable until then.`,
          { GPU: `PCI ${gpu}`, Xid: '154', 'Recovery the driver asks for': action, ...node(context) },
          /reboot/i.test(action) ? XID_FIX.reboot : XID_FIX.reset,
        )
      }
      const known = XID_CATALOG[xid]
      if (!known) return null
      const [what, action] = known
      const severity = action === 'process' ? 'warning' : 'error'
      return gpuFault(
        `xid:${gpu}:${xid}`,
        severity,
        action === 'process'
          ? `The GPU at PCI ${gpu} reported Xid ${xid}: ${what} in the process using it; the process failed, the GPU did not.`
          : `The GPU at PCI ${gpu} reported Xid ${xid}: ${what}. The GPU is not usable until it is ${action === 'reboot' ? 'rebooted' : 'reset'}, whatever runs on it now.`,
        { GPU: `PCI ${gpu}`, Xid: `${xid} (${what})`, ...(detail ? { 'Driver record': detail } : {}), ...node(context) },
        XID_FIX[action],
      )
    },
  },
  {
    // The kernel driver's own words, also without an Xid (NVSentinel#155): "NVRM: The NVIDIA GPU 0000:b3:00.0⏎ NVRM: (PCI ID: 10de:26b5) installed in
    // this system has⏎ NVRM: fallen off the bus and is not responding to commands."; "GPU lost from the bus [NV_ERR_GPU_IS_LOST]" (open-gpu-kernel-
    // modules#1342). The GPU's address from the record's first line.
    code: 'GPU_FAULT',
    pattern: /NVRM: The NVIDIA GPU ([0-9a-fA-F:.]+)|\bfallen off the bus and is not responding to commands\b|\bNV_ERR_GPU_IS_LOST\b/,
    hit: (m, line, _ray, context) => {
      const lost = /\bfallen off the bus and is not responding to commands\b|\bNV_ERR_GPU_IS_LOST\b/.exec(line)
      if (m[1] !== undefined) context.memory?.set('nvrmGpu', m[1])
      // (A page that ran the record's lines together holds the address and the words on one line.)
      if (!lost) return null
      const gpu = context.memory?.get('nvrmGpu')
      return gpuFault(
        `lost:${gpu ?? ''}`,
        'error',
        `The GPU${gpu ? ` at PCI ${gpu}` : ''} fell off the bus: the driver can no longer reach it, and nothing can use it until the node reboots.`,
        { ...(gpu ? { GPU: `PCI ${gpu}` } : {}), 'Driver record': lost[0], ...node(context) },
        XID_FIX.reboot,
      )
    },
  },
  {
    // nvidia-smi (NVML_ERROR_GPU_IS_LOST): "Unable to determine the device handle for GPU 0000:02:00.0: GPU is lost.  Reboot the system to recover
    // this GPU" (OWOD#81, marian#251); Slurm's "NVML: Failed to get usage(15): GPU is lost".
    code: 'GPU_FAULT',
    pattern: /(?:device handle for GPU ?([0-9a-fA-F:.]+): )?GPU is lost\b/,
    hit: (m, _line, _ray, context) =>
      gpuFault(
        `lost:${m[1] ?? ''}`,
        'error',
        `The GPU${m[1] ? ` at PCI ${m[1]}` : ''} is lost: NVML can no longer reach it, and nothing can use it until the node reboots.`,
        { ...(m[1] ? { GPU: `PCI ${m[1]}` } : {}), NVML: 'GPU is lost', ...node(context) },
        XID_FIX.reboot,
      ),
  },
  {
    // CUDA 214 cudaErrorECCUncorrectable "uncorrectable ECC error encountered" (vllm#5222, verl#407, sglang#3204: the maintainers read it as the
    // machine's fault; a reset or a reboot cleared it).
    code: 'GPU_FAULT',
    pattern: /\buncorrectable ECC error encountered|\bcudaErrorECCUncorrectable\b|\bCUDA_ERROR_ECC_UNCORRECTABLE\b/,
    hit: (m, _line, _ray, context) =>
      gpuFault(
        `ecc:${context.prefixIp ?? ''}`,
        'error',
        `A GPU${context.prefixIp ? ` on ${context.prefixIp}` : ''} hit an uncorrectable ECC error in its memory (CUDA error 214): a hardware fault, not the model or the launch.`,
        { 'CUDA error': `214 (${m[0]})`, ...node(context) },
        XID_FIX.reset,
      ),
  },
]

export const GPU_HEALTH_RULES: readonly SignatureRule[] = [...CUDA_SYSTEM_RULES, ...GPU_FAULT_RULES]
