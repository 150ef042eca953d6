/**
 * Log signatures of a container that cannot get its GPUs: docker's and podman's own errors when the
 * node's NVIDIA container tooling does not serve the request (no NVIDIA device driver for `--gpus`,
 * CDI off or no spec defining the device, the nvidia runtime not registered, the prestart hook in
 * the runtime's `cdi` mode), and a CDI spec left by a driver upgrade (a versioned driver library it
 * mounts is gone). The same families the host checks find before a deploy (NVIDIA_RUNTIME_MISSING,
 * CDI_SPEC_STALE, src/preflight/checks/container-gpu.ts), here from a pasted or captured log.
 * Wordings with their sources in src/preflight/WORDINGS.md.
 */

import type { SignatureRule } from './signature-rules.js'
import { nodeEvidence } from './line-node.js'

const INSTALL =
  'Install the NVIDIA Container Toolkit on that node (sudo apt-get install -y nvidia-container-toolkit), register its runtime with docker (sudo nvidia-ctk runtime configure --runtime=docker) and restart docker (sudo systemctl restart docker); check: docker run --rm --gpus all ubuntu nvidia-smi -L. The host checks (vllm-ray-deploy preflight) name the node.'
const REGENERATE =
  'Regenerate the CDI spec for the running driver on that node (sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml, or the file that holds the stale entries: grep -l the old version /etc/cdi /var/run/cdi), then start the container again; check: nvidia-ctk cdi list.'

/** The fix for every wording of a driver older than the image's CUDA (src/preflight/checks/cuda-driver.ts finds the same before a deploy). */
const UPGRADE_DRIVER =
  "Upgrade the node's NVIDIA driver to one that supports the image's CUDA (nvidia-smi's \"CUDA Version\" must be at least the image's; on DGX Spark, the DGX OS update), or use an image built for the CUDA the driver has (vLLM's wheels or image for that CUDA, an older NGC release), the same on every node. GB10 (DGX Spark) and GeForce/RTX GPUs have no CUDA forward compatibility, so an image's compat libraries cannot bridge the gap there; on data-centre GPUs an NGC image's entrypoint enables them, unless the launch replaces it (--entrypoint). NVIDIA_DISABLE_REQUIRE=1 only hides the check. vllm-ray-deploy preflight compares the image's CUDA with every node's driver before anything starts."

/** CUDA's driver API version as torch prints it (12020) in the x.y nvidia-smi shows (12.2). */
const cudaOfDriverApi = (v: string): string => `${Math.floor(Number(v) / 1000)}.${Math.floor((Number(v) % 1000) / 10)}`

const tooOld = (key: string, message: string, evidence: Record<string, string>) => ({ key, severity: 'error' as const, message, evidence, fix: UPGRADE_DRIVER })

/**
 * The image's CUDA newer than the node's driver supports, in each program's words: libnvidia-container's requirement check (docker --gpus refuses
 * the container), NGC images' entrypoint, torch's driver check, and CUDA's own errors when the runtime meets the older driver. Sources in WORDINGS.md.
 */
const DRIVER_TOO_OLD_RULES: readonly SignatureRule[] = [
  {
    // libnvidia-container: "nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.8, please update your driver to a newer version,
    // or use an earlier cuda container: unknown" (older: "cuda >= 9.0"). The image's NVIDIA_REQUIRE_CUDA against the host driver.
    code: 'CUDA_DRIVER_TOO_OLD',
    pattern: /nvidia-container-cli: requirement error: (?:unsatisfied condition: ([^,\n\\]+?)\s*(?:,|\\|$))?/,
    hit: (m) => {
      const needs = m[1]?.replace(/\s+/g, '')
      return tooOld(
        'requirement',
        `The image needs a newer NVIDIA driver than this host has${needs ? ` (${needs})` : ''}: docker's GPU hook refused to start the container.`,
        { 'nvidia-container-cli': 'requirement error', ...(needs ? { 'Image requires': needs } : {}) },
      )
    },
  },
  {
    // NGC images' entrypoint (/opt/nvidia/entrypoint.d): "ERROR: This container was built for NVIDIA Driver Release 590.48 or later, but⏎
    //        version 580.159.03 was detected and compatibility mode is UNAVAILABLE." (one line where a page joined it: LlamaFactory#5962).
    code: 'CUDA_DRIVER_TOO_OLD',
    pattern: /built for NVIDIA Driver Release ([\d.]+) or later, but|version ([\d.]+) was detected and compatibility mode is UNAVAILABLE/,
    hit: (m, line, _ray, context) => {
      if (m[1] !== undefined) {
        context.memory?.set('ngcDriverNeeded', m[1])
        if (!/compatibility mode is UNAVAILABLE/.test(line)) return null
      }
      const needed = m[1] ?? context.memory?.get('ngcDriverNeeded')
      const found = m[2] ?? /version ([\d.]+) was detected/.exec(line)?.[1]
      return tooOld(
        'ngc-entrypoint',
        `The image was built for NVIDIA driver ${needed ?? '(a newer release)'} or later, the node has ${found ?? 'an older one'}, and CUDA forward compatibility is not available there (a GB10 or GeForce GPU, or an image without it): CUDA cannot start in the container.`,
        { ...(needed ? { 'Driver the image needs': `${needed} or later` } : {}), ...(found ? { 'Driver on the node': found } : {}) },
      )
    },
  },
  {
    // torch (cuda/__init__.py _check_driver, also as the UserWarning "CUDA initialization: …"): "The NVIDIA driver on your system is too old
    // (found version 12020). Please update your GPU driver …" — the driver API version, 12020 = CUDA 12.2.
    code: 'CUDA_DRIVER_TOO_OLD',
    pattern: /The NVIDIA driver on your system is too old \(found version (\d{4,6})\)/,
    hit: (m) =>
      tooOld('torch-driver-check', `torch was built for a newer CUDA than this node's driver supports (CUDA ${cudaOfDriverApi(m[1]!)}).`, {
        'Driver supports CUDA': `${cudaOfDriverApi(m[1]!)} (found version ${m[1]})`,
      }),
  },
  {
    // CUDA runtime: cudaErrorCompatNotSupportedOnDevice (804) "forward compatibility was attempted on non supported HW" (torch: "Unexpected error from
    // cudaGetDeviceCount() … Error 804: …"; gpustack#1254, #1540, TensorRT-LLM#1806, oobabooga#4407), CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE;
    // cudaErrorInsufficientDriver (35) "CUDA driver version is insufficient for CUDA runtime version". Not NGC's entrypoint banner, which notes the
    // attempt in double brackets under "WARNING: CUDA Minor Version Compatibility mode ENABLED." and then runs the container in that mode
    // ("[[Forward compatibility was attempted on non supported HW (CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE) cuInit()=804]]", NVIDIA's vLLM
    // 25.12 container on a 580 driver that served: held-out batch 32's JVarnica compose log).
    code: 'CUDA_DRIVER_TOO_OLD',
    pattern:
      /forward compatibility was attempted on non supported HW|\bCUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE\b|\bcudaErrorCompatNotSupportedOnDevice\b|CUDA driver version is insufficient for CUDA runtime version|\bcudaErrorInsufficientDriver\b/i,
    hit: (m, line) => {
      if (/\[\[[^\]]*cuInit\(\)=\d+\]\]/.test(line)) return null
      const compat = !/insufficient/i.test(m[0])
      return tooOld(
        compat ? 'cuda-804' : 'cuda-35',
        compat
          ? "CUDA could not start: the image's CUDA is newer than this node's driver supports, and this GPU has no CUDA forward compatibility (GB10, GeForce/RTX) to bridge it (CUDA error 804)."
          : "CUDA could not start: the image's CUDA runtime is newer than this node's driver supports (CUDA error 35).",
        { 'CUDA error': m[0] },
      )
    },
  },
  {
    // CUDA 222 cudaErrorUnsupportedPtxVersion "the provided PTX was compiled with an unsupported toolchain" (torch's "CUDA error: …", ggml's "CUDA error
    // 222 at …"): a kernel shipped as PTX for a newer CUDA than the node's driver can JIT-compile (vllm#31700, 2026; verl#672; ctransformers#87;
    // vLLM's troubleshooting guide, PR #28305: update the driver, or use a build for the driver's CUDA).
    code: 'CUDA_DRIVER_TOO_OLD',
    pattern: /the provided PTX was compiled with an unsupported toolchain|\bcudaErrorUnsupportedPtxVersion\b|\bCUDA_ERROR_UNSUPPORTED_PTX_VERSION\b/,
    hit: (m) =>
      tooOld(
        'cuda-222',
        "A kernel's PTX was built by a newer CUDA than this node's driver can compile (CUDA error 222): the image's kernels need a newer driver.",
        { 'CUDA error': `222 (${m[0]})` },
      ),
  },
]

export const GPU_CONTAINER_RULES: readonly SignatureRule[] = [
  {
    // moby: 'could not select device driver "" with capabilities: [[gpu]]' (no NVIDIA device driver registered: no
    // nvidia-container-runtime-hook when dockerd started); '"nvidia"' (compose's driver: nvidia); '"cdi" … []' (CDI off).
    code: 'NVIDIA_RUNTIME_MISSING',
    pattern: /could not select device driver "([^"]*)" with capabilities: (\[[^\n]*?\])\.?/,
    hit: (m) => {
      const driver = m[1] ?? ''
      const cdi = driver === 'cdi'
      return {
        key: `driver:${driver}`,
        severity: 'error',
        message: cdi
          ? 'docker could not hand the container a CDI device: CDI is off in this docker (or too old for it), so --device nvidia.com/gpu=… has no driver.'
          : `docker has no ${driver ? `"${driver}" ` : ''}device driver for GPUs: nvidia-container-runtime-hook was not on dockerd's PATH when it started (the NVIDIA Container Toolkit is not installed, or docker was not restarted after it was), so --gpus cannot be served.`,
        evidence: { 'Device driver asked for': driver || '(any, for --gpus)', Capabilities: m[2] ?? '' },
        fix: cdi
          ? 'Turn CDI on in docker (sudo nvidia-ctk runtime configure --runtime=docker --cdi.enabled, then sudo systemctl restart docker; docker 25+) and generate the spec (sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml), or ask for the GPUs with --gpus all instead.'
          : INSTALL,
      }
    },
  },
  {
    // podman / containerd / docker CDI: 'unresolvable CDI devices nvidia.com/gpu=all' (no spec read defines the device).
    code: 'NVIDIA_RUNTIME_MISSING',
    pattern: /unresolvable CDI devices ([\w.-]+\/[\w.-]+=[\w:.-]+)/,
    hit: (m) => ({
      key: `cdi:${m[1]}`,
      severity: 'error',
      message: `No CDI spec the container engine read defines ${m[1]}: the spec was never generated, is in a directory the engine does not read, or uses a CDI version the engine is too old for.`,
      evidence: { 'CDI device': m[1] ?? '' },
      fix: 'Generate the spec on that node (sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml) and check that it lists the device (nvidia-ctk cdi list); with podman 4.x and toolkit 1.19.1+, update podman (CDI spec 0.7) or generate an older spec version.',
    }),
  },
  {
    // moby: 'Error response from daemon: unknown or invalid runtime name: nvidia'.
    code: 'NVIDIA_RUNTIME_MISSING',
    pattern: /unknown or invalid runtime name: ([\w-]+(?:\.[\w-]+)*)/,
    hit: (m) => ({
      key: `runtime:${m[1]}`,
      severity: 'error',
      message: `docker knows no runtime named ${m[1]}: --runtime ${m[1]} needs it registered in /etc/docker/daemon.json.`,
      evidence: { Runtime: m[1] ?? '' },
      fix: m[1] === 'nvidia' ? INSTALL : `Register the ${m[1]} runtime in /etc/docker/daemon.json and restart docker, or drop --runtime ${m[1]}.`,
    }),
  },
  {
    // nvidia-container-runtime-hook (cmd/nvidia-container-runtime-hook/hook_config.go, assertModeIsLegacy).
    code: 'NVIDIA_RUNTIME_MISSING',
    pattern: /invoking the NVIDIA Container Runtime Hook directly \(e\.g\. specifying the docker --gpus flag\) is not supported/,
    hit: (_m, line) => ({
      key: 'hook-mode',
      severity: 'error',
      message:
        "The NVIDIA runtime's mode is not legacy (its config.toml sets cdi, jit-cdi or csv), and in it the prestart hook that --gpus uses refuses to run by itself.",
      evidence: { Mode: /Using requested mode '([\w-]+)'/.exec(line)?.[1] ?? '(see /etc/nvidia-container-runtime/config.toml)' },
      fix: 'Set the mode back (sudo nvidia-ctk config --in-place --set nvidia-container-runtime.mode=auto) or start the container with --runtime nvidia (container.extraArgs: ["--runtime", "nvidia"]).',
    }),
  },
  {
    // A versioned driver file the CDI spec mounts is gone: crun "cannot stat `/lib64/libEGL_nvidia.so.550.54.14`: No such file
    // or directory", "error stat'ing file /lib/…/libEGL_nvidia.so.535.161.07: No such file or directory", runc's mount error.
    code: 'CDI_SPEC_STALE',
    pattern: /lib([\w+-]*)\.so\.(\d{3,}\.\d+(?:\.\d+)?)\b[^\n]{0,160}?no such file or directory/i,
    hit: (m, line) => {
      if (!/nvidia|cuda|nvcuvid|nvoptix/i.test(m[1] ?? '')) return null
      const path = new RegExp(`(/[\\w./+-]*)?lib${m[1]}\\.so\\.${m[2]!.replace(/\./g, '\\.')}`).exec(line)?.[0] ?? `lib${m[1]}.so.${m[2]}`
      return {
        key: path,
        severity: 'error',
        message: `The container's GPU setup mounts ${path}, a file of NVIDIA driver ${m[2]} that is gone: a CDI spec generated before the driver was upgraded.`,
        evidence: { 'Missing driver file': path, 'Driver in the spec': m[2] ?? '' },
        fix: REGENERATE,
      }
    },
  },
  {
    // libnvidia-container (the prestart hook of docker --gpus / the nvidia runtime): "nvidia-container-cli: initialization error: load library failed:
    // libnvidia-ml.so.1: cannot open shared object file: no such file or directory: unknown" (no driver on the host, or the toolkit looks in the wrong
    // root), "mount error: …", "detection error: …". Its "requirement error" is a driver too old for the image: CUDA_DRIVER_TOO_OLD, below.
    code: 'NVIDIA_RUNTIME_MISSING',
    pattern: /nvidia-container-cli: (initialization|mount|detection) error: ([^\n]+?)(?::\s*unknown)?\.?\s*$/,
    hit: (m) => ({
      key: `nvidia-container-cli:${m[1]}`,
      severity: 'error',
      message: `The NVIDIA container toolkit could not set up the GPUs (${m[1]} error: ${(m[2] ?? '').slice(0, 160)}): the driver is not installed or not loaded on the host, or the toolkit looks for it in the wrong place.`,
      evidence: { 'nvidia-container-cli': `${m[1]} error`, Detail: (m[2] ?? '').slice(0, 200) },
      fix: "On the host: nvidia-smi must work (install or load the driver: modprobe nvidia), then nvidia-ctk runtime configure --runtime=docker and restart docker; check ldconfig in /etc/nvidia-container-runtime/config.toml points at the host's ldconfig.",
    }),
  },
  {
    // vLLM's platform detection finding no GPU (vllm/platforms/__init__.py resolve_current_platform_cls_qualname, 0.7 on): "INFO 05-20 20:12:25
    // [__init__.py:252] No platform detected, vLLM is running on UnspecifiedPlatform". In a server's log the container sees no NVIDIA GPU or
    // driver library: a pod without runtimeClassName: nvidia where CRI-O or containerd does not run the NVIDIA runtime by default
    // (llm-d/llm-d-deployer#273; an OpenShift harness's troubleshooting page), runtimeClassName crun (production-stack, 2025), GKE's
    // /usr/local/nvidia missing from LD_LIBRARY_PATH, an empty NVIDIA_VISIBLE_DEVICES. Not where a platform plugin loaded before it
    // ("plugin ascend loaded.", "Platform plugin ascend is activated": vLLM Ascend, TPU and others log the line and then activate theirs).
    // A warning: an INFO line, and a plugin may still activate after it.
    code: 'NO_GPU_VISIBLE',
    pattern: /No platform detected, vLLM is running on UnspecifiedPlatform|\bplugin ([\w.-]+) loaded\.|\bPlatform plugin ([\w.-]+) is activated/,
    hit: (m, _line, _ray, context) => {
      const plugin = m[1] ?? m[2]
      if (plugin !== undefined) {
        context.memory?.set('platformPlugin', plugin)
        return null
      }
      if (context.memory?.has('platformPlugin')) return null
      return {
        key: 'no-platform',
        severity: 'warning',
        message:
          'vLLM found no GPU platform in this process ("No platform detected"): the container sees no NVIDIA GPU or no driver library, so a CUDA start fails after it (an empty device string, "Failed to infer device type").',
        evidence: { Platform: 'UnspecifiedPlatform', ...nodeEvidence(context) },
        fix: "Give the container the GPUs and the driver: on Kubernetes set runtimeClassName: nvidia on the pod (CRI-O or containerd whose default runtime is not NVIDIA's) and request nvidia.com/gpu; in Docker --gpus all (or --runtime nvidia); on GKE keep /usr/local/nvidia/lib64 on LD_LIBRARY_PATH; NVIDIA_VISIBLE_DEVICES must not be empty. nvidia-smi inside the container must list the GPUs.",
      }
    },
  },
  ...DRIVER_TOO_OLD_RULES,
]
