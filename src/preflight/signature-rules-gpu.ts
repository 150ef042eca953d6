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

const INSTALL =
  'Install the NVIDIA Container Toolkit on that node (sudo apt-get install -y nvidia-container-toolkit), register its runtime with docker (sudo nvidia-ctk runtime configure --runtime=docker) and restart docker (sudo systemctl restart docker); check: docker run --rm --gpus all ubuntu nvidia-smi -L. The host checks (vllm-ray-deploy preflight) name the node.'
const REGENERATE =
  'Regenerate the CDI spec for the running driver on that node (sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml, or the file that holds the stale entries: grep -l the old version /etc/cdi /var/run/cdi), then start the container again; check: nvidia-ctk cdi list.'

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
    // root), "nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.9, please update your driver to a newer version" (the image needs
    // a newer driver than the host has), "mount error: …", "detection error: …".
    code: 'NVIDIA_RUNTIME_MISSING',
    pattern: /nvidia-container-cli: (initialization|requirement|mount|detection) error: ([^\n]+?)(?::\s*unknown)?\.?\s*$/,
    hit: (m) => {
      const requirement = m[1] === 'requirement'
      const needs = /unsatisfied condition: ([^,\s]+)/.exec(m[2] ?? '')?.[1]
      return {
        key: `nvidia-container-cli:${m[1]}`,
        severity: 'error',
        message: requirement
          ? `The image needs a newer NVIDIA driver than this host has${needs ? ` (${needs})` : ''}, so the container cannot get its GPUs.`
          : `The NVIDIA container toolkit could not set up the GPUs (${m[1]} error: ${(m[2] ?? '').slice(0, 160)}): the driver is not installed or not loaded on the host, or the toolkit looks for it in the wrong place.`,
        evidence: { 'nvidia-container-cli': `${m[1]} error`, Detail: (m[2] ?? '').slice(0, 200), ...(needs ? { 'Image requires': needs } : {}) },
        fix: requirement
          ? `Upgrade the host's NVIDIA driver to one that supports ${needs ?? "the image's CUDA"} (nvidia-smi shows the driver's CUDA version), or use an image built for the CUDA the driver has, on every node; NVIDIA_DISABLE_REQUIRE=1 only hides the check.`
          : "On the host: nvidia-smi must work (install or load the driver: modprobe nvidia), then nvidia-ctk runtime configure --runtime=docker and restart docker; check ldconfig in /etc/nvidia-container-runtime/config.toml points at the host's ldconfig.",
      }
    },
  },
]
