/**
 * Whether a node's container can get its GPUs, before anything changes (issue 38, host readiness).
 *
 * docker hands GPUs to a container three ways, and each needs its own piece of the NVIDIA Container
 * Toolkit on the node:
 * - `--gpus`: dockerd's NVIDIA device driver, registered at dockerd's start when
 *   `nvidia-container-runtime-hook` is on its PATH (a prestart hook); from docker 29.2 also when
 *   `nvidia-cdi-hook` is and CDI is on, and then `--gpus all` becomes the CDI device
 *   `nvidia.com/gpu=all`, tried first (moby/moby#50228, daemon/devices_nvidia_linux.go). Without
 *   either docker answers `could not select device driver "" with capabilities: [[gpu]]`.
 * - `--runtime nvidia`: the runtime registered in /etc/docker/daemon.json (`nvidia-ctk runtime
 *   configure --runtime=docker`); without it `unknown or invalid runtime name: nvidia`. In its `cdi`
 *   mode it reads the CDI specs too (its `auto` mode generates one on the fly).
 * - `--device nvidia.com/gpu=all`: a CDI spec dockerd reads (CDI on: docker info's CDISpecDirs).
 *
 * A CDI spec names the driver's files by version (`libcuda.so.580.95.05`), so a driver upgrade leaves
 * a spec that mounts files that are gone: the container does not start, or starts with the old
 * libraries beside the new kernel module (NVIDIA/nvidia-container-toolkit#450; HaveAGitGat/Tdarr#1423:
 * `libEGL_nvidia.so.580.159.04: no such file or directory` on a 580.178.04 host). That is an error
 * when this deploy's containers read the spec, a warning otherwise (it bites the first CDI user).
 */
import { type GpuRequest, isCdiDeviceName } from '../../manifest/gpu-request.js'
import type { CdiSpecFacts, HostFacts } from '../facts.js'
import type { Finding } from '../finding.js'
import type { CheckContext, ClusterNode } from './check-context.js'

/** dockerd serves `--gpus` through CDI from this version on (moby/moby#50228, first in docker-v29.2.0). */
const DOCKER_GPUS_VIA_CDI = [29, 2] as const

const isNvidiaKind = (kind: string | undefined): boolean => !!kind && /(^|\.)nvidia\.com\//.test(kind)

function dockerAtLeast(version: string | undefined, [major, minor]: readonly [number, number]): boolean {
  const m = /^(\d+)\.(\d+)/.exec(version ?? '')
  if (!m) return false
  const [a, b] = [Number(m[1]), Number(m[2])]
  return a > major || (a === major && b >= minor)
}

/** CDI on in dockerd: it names spec directories, or lists CDI devices it found. */
const cdiOn = (h: HostFacts): boolean => (h.docker?.cdiSpecDirs?.length ?? 0) > 0 || (h.docker?.cdiDevices?.length ?? 0) > 0
const nvidiaSpecs = (h: HostFacts): readonly CdiSpecFacts[] => (h.nvidiaContainer?.cdiSpecs ?? []).filter((s) => isNvidiaKind(s.kind) && !s.error)
/** dockerd turns `--gpus` into `nvidia.com/gpu=<ids>` and injects it from the CDI specs. */
const gpusViaCdi = (h: HostFacts): boolean => dockerAtLeast(h.docker?.version, DOCKER_GPUS_VIA_CDI) && cdiOn(h) && !!h.nvidiaContainer?.cdiHook

/** The kind `--gpus` and the NVIDIA runtime's cdi mode ask for (moby's defaultCDIDeviceKind; the runtime's default-kind). */
const GPU_KIND = 'nvidia.com/gpu'

/** Why this node's containers read CDI specs of `kind`, in words; undefined when they do not (or it is not known). */
function cdiReadBy(req: GpuRequest | undefined, h: HostFacts, kind: string | undefined): string | undefined {
  if (!req?.known) return undefined
  const devices = req.cdiDevices.filter((d) => d.split('=')[0] === kind)
  if (devices.length > 0) return `container.extraArgs passes --device ${devices.join(', ')}, which dockerd resolves from the CDI specs`
  if (kind !== GPU_KIND) return undefined
  if (req.runtime === 'nvidia' && h.nvidiaContainer?.runtimeMode === 'cdi')
    return '--runtime nvidia, whose mode is "cdi" (/etc/nvidia-container-runtime/config.toml): it injects the GPUs from the CDI specs'
  if (req.gpus !== undefined && gpusViaCdi(h))
    return `docker ${h.docker?.version} serves --gpus ${req.gpus} through CDI (nvidia-cdi-hook on PATH, CDI on) before the prestart hook`
  return undefined
}

/** What a node's docker and NVIDIA tooling hold, for evidence. */
function tooling(h: HostFacts): Record<string, string> {
  const specs = h.nvidiaContainer?.cdiSpecs ?? []
  return {
    'docker runtimes': h.docker?.runtimes?.join(', ') || '(none)',
    'nvidia-container-runtime-hook': h.docker?.nvidiaHook ?? 'not on PATH',
    'nvidia-cdi-hook': h.nvidiaContainer?.cdiHook ?? 'not on PATH',
    'CDI in docker': h.docker?.cdiSpecDirs === undefined ? 'not reported' : cdiOn(h) ? `on (${h.docker.cdiSpecDirs.join(', ')})` : 'off',
    'NVIDIA CDI specs':
      specs
        .filter((s) => isNvidiaKind(s.kind))
        .map((s) => `${s.path} (${s.kind})`)
        .join(', ') || '(none)',
    ...(h.docker?.cdiDevices && { 'CDI devices docker found': h.docker.cdiDevices.join(', ') || '(none)' }),
    'docker version': h.docker?.version ?? '?',
  }
}

const install = (node: string) =>
  `Install the NVIDIA Container Toolkit on ${node} (sudo apt-get install -y nvidia-container-toolkit, from NVIDIA's apt repository; DGX OS ships it), register its runtime with docker (sudo nvidia-ctk runtime configure --runtime=docker) and restart docker (sudo systemctl restart docker)`
/** Modes in which the prestart hook refuses to run by itself (nvidia-container-runtime-hook's assertModeIsLegacy). */
const HOOK_REFUSES = ['cdi', 'jit-cdi', 'csv']
const checkCmd = (n: ClusterNode) => `ssh ${n.expected?.sshUser ?? '<user>'}@${n.expected?.sshHost ?? n.name} docker run --rm --gpus all ubuntu nvidia-smi -L`

type Gap = { readonly need: 'toolkit' | 'hook-mode' | 'cdi'; readonly text: string }

/** What this request needs that the node lacks, one gap each, with docker's own error. */
function unmet(req: GpuRequest | undefined, h: HostFacts): Gap[] {
  const runtimes = h.docker?.runtimes ?? []
  const discovered = h.docker?.cdiDevices
  const specKinds = nvidiaSpecs(h).map((s) => s.kind)
  if (!req?.known) {
    const anyNvidia = runtimes.includes('nvidia') || !!h.docker?.nvidiaHook || specKinds.length > 0
    const text = "the launch script's docker run finds neither the nvidia runtime, nor nvidia-container-runtime-hook, nor an NVIDIA CDI spec"
    return anyNvidia ? [] : [{ need: 'toolkit', text }]
  }
  const out: Gap[] = []
  const viaCdi = gpusViaCdi(h) && specKinds.includes(GPU_KIND)
  if (req.gpus !== undefined && !h.docker?.nvidiaHook && !viaCdi) {
    const noCdi = dockerAtLeast(h.docker?.version, DOCKER_GPUS_VIA_CDI) ? ', and no CDI route: nvidia-cdi-hook, CDI on and an nvidia.com/gpu spec' : ''
    out.push({
      need: 'toolkit',
      text: `--gpus ${req.gpus}: docker has no NVIDIA device driver (no nvidia-container-runtime-hook on PATH${noCdi}); docker run answers: could not select device driver "" with capabilities: [[gpu]]`,
    })
  } else if (req.gpus !== undefined && !viaCdi && req.runtime !== 'nvidia' && HOOK_REFUSES.includes(h.nvidiaContainer?.runtimeMode ?? '')) {
    out.push({
      need: 'hook-mode',
      text: `--gpus ${req.gpus}: the NVIDIA runtime's mode is "${h.nvidiaContainer?.runtimeMode}" (/etc/nvidia-container-runtime/config.toml), and in it the prestart hook refuses: invoking the NVIDIA Container Runtime Hook directly (e.g. specifying the docker --gpus flag) is not supported`,
    })
  }
  if (req.runtime !== undefined && !runtimes.includes(req.runtime))
    out.push({
      need: 'toolkit',
      text: `--runtime ${req.runtime}: docker knows no runtime of that name (it has ${runtimes.join(', ') || 'none'}); docker run answers: unknown or invalid runtime name: ${req.runtime}`,
    })
  for (const dev of req.cdiDevices.filter(isCdiDeviceName)) {
    // dockerd's own list where it gives one (docker info's DiscoveredDevices); else the specs on disk and its CDI directories.
    if (discovered) {
      if (!discovered.includes(dev))
        out.push({
          need: 'cdi',
          text: `--device ${dev}: dockerd found no CDI device of that name (it found ${discovered.join(', ') || 'none'}); docker run answers: unresolvable CDI devices ${dev}`,
        })
    } else if (!cdiOn(h))
      out.push({
        need: 'cdi',
        text: `--device ${dev}: CDI is off in docker (docker info lists no CDI spec directories); docker run answers: could not select device driver "cdi"`,
      })
    else if (!specKinds.includes(dev.split('=')[0]))
      out.push({ need: 'cdi', text: `--device ${dev}: no CDI spec on the node defines it; docker run answers: unresolvable CDI devices ${dev}` })
  }
  return out
}

function fixFor(node: ClusterNode, gaps: readonly Gap[]): string {
  const needs = new Set(gaps.map((g) => g.need))
  const steps = [
    ...(needs.has('toolkit') ? [install(node.name)] : []),
    ...(needs.has('hook-mode')
      ? [
          `set the NVIDIA runtime's mode back to auto on ${node.name} (sudo nvidia-ctk config --in-place --set nvidia-container-runtime.mode=auto), or add "--runtime", "nvidia" to container.extraArgs`,
        ]
      : []),
    ...(needs.has('cdi')
      ? [
          `generate the CDI spec on ${node.name} (sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml) and turn CDI on in docker (sudo nvidia-ctk runtime configure --runtime=docker --cdi.enabled, then sudo systemctl restart docker); check: nvidia-ctk cdi list`,
        ]
      : []),
  ]
  const text = steps.join('; and ')
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}; then check: ${checkCmd(node)}`
}

/** NVIDIA_RUNTIME_MISSING: a node that should run GPUs lacks the NVIDIA container tooling the container's GPU request needs. */
export function nvidiaRuntimeMissing(ctx: CheckContext): Finding[] {
  const req = ctx.expected?.gpuRequest
  return ctx.nodes.flatMap((node): Finding[] => {
    const h = node.facts?.host
    // The probe that reads the NVIDIA tooling (nvidiaContainer) ran, docker answers, and this node runs GPUs.
    if (!h?.nvidiaContainer || !h.docker?.ok || (node.expected?.gpus ?? 1) === 0) return []
    const gaps = unmet(req, h)
    if (gaps.length === 0) return []
    return [
      {
        code: 'NVIDIA_RUNTIME_MISSING',
        severity: 'error',
        node: node.name,
        message: `${node.name}'s docker cannot give the container its GPUs: ${gaps.map((g) => g.text).join('; ')}.`,
        evidence: tooling(h),
        fix: fixFor(node, gaps),
      },
    ]
  })
}

/** Why a spec is stale, in words; undefined when it matches the running driver and every file it mounts exists. */
function staleness(s: CdiSpecFacts, driver: string | undefined): string | undefined {
  const other = driver !== undefined && s.driverVersions.length > 0 && !s.driverVersions.includes(driver)
  if (!other && s.missingCount === 0) return undefined
  const parts = [
    ...(other ? [`it was generated for NVIDIA driver ${s.driverVersions.join(', ')}, but ${driver} runs`] : []),
    ...(s.missingCount > 0 ? [`${s.missingCount} of the ${s.hostPaths} host files it mounts are gone (${s.missing.slice(0, 3).join(', ')})`] : []),
  ]
  return parts.join(', and ')
}

/** CDI_SPEC_STALE: an NVIDIA CDI spec written for another driver, or mounting files that no longer exist. */
export function cdiSpecStale(ctx: CheckContext): Finding[] {
  const req = ctx.expected?.gpuRequest
  return ctx.nodes.flatMap((node): Finding[] => {
    const h = node.facts?.host
    if (!h?.nvidiaContainer) return []
    const specs = nvidiaSpecs(h)
    return specs.flatMap((s, i): Finding[] => {
      const why = staleness(s, h.driverVersion)
      if (!why) return []
      const readBy = cdiReadBy(req, h, s.kind)
      // A spec of the same kind in a later (higher-priority) directory that is current wins over this one.
      const shadowedBy = specs.slice(i + 1).find((t) => t.kind === s.kind && t.path !== s.path && !staleness(t, h.driverVersion))
      const error = readBy !== undefined && !shadowedBy
      const refresh = s.path.startsWith('/var/run/cdi/') || s.path.startsWith('/run/cdi/')
      return [
        {
          code: 'CDI_SPEC_STALE',
          severity: error ? 'error' : 'warning',
          node: node.name,
          message: `The CDI spec ${s.path} on ${node.name} is stale: ${why}. ${
            error
              ? `This deploy's container reads it (${readBy}), so it would not start, or start with the old driver's libraries ("driver/library version mismatch").`
              : shadowedBy
                ? `${shadowedBy.path} defines ${s.kind} too and is current, so it wins; remove the stale one.`
                : `This deploy's container does not read it now (${req?.known ? `--gpus through the prestart hook${req.runtime ? `, --runtime ${req.runtime}` : ''}` : 'the launch script decides'}), but anything that asks for ${s.kind ?? 'its devices'} by CDI fails.`
          }`,
          evidence: {
            'CDI spec': `${s.path} (${s.kind ?? 'no kind'}, ${s.hostPaths} host files)`,
            'Driver in the spec': s.driverVersions.join(', ') || '(no versioned file)',
            [`${node.name} driver`]: h.driverVersion ?? '?',
            ...(s.missingCount > 0 && {
              'Missing files': `${s.missing.join(', ')}${s.missingCount > s.missing.length ? ` and ${s.missingCount - s.missing.length} more` : ''}`,
            }),
            'Read by this deploy': readBy ?? 'no',
          },
          fix: `Regenerate it for the running driver on ${node.name}: sudo nvidia-ctk cdi generate --output=${s.path}${
            refresh ? ' (or sudo systemctl restart nvidia-cdi-refresh.service, which writes this file on toolkit 1.18+)' : ''
          }; check with nvidia-ctk cdi list. To keep it current after the next driver upgrade, enable the toolkit's refresh (sudo systemctl enable --now nvidia-cdi-refresh.path, toolkit 1.18+) or regenerate it in the upgrade's runbook.`,
        },
      ]
    })
  })
}
