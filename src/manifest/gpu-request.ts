/**
 * How the node's container asks docker for its GPUs, read from the manifest: the built-in launcher's
 * `docker run --gpus <container.gpus>`, and what container.extraArgs adds (`--runtime nvidia`,
 * `--device nvidia.com/gpu=all`, another `--gpus`). Under `launch.mode: script` the script runs
 * `docker run` itself, so the request is not known here. Pure; the host checks read it to tell
 * whether a node's NVIDIA container tooling serves this request, and whether a stale CDI spec is read.
 */
import type { Manifest } from './schema.js'

export interface GpuRequest {
  /** False under launch.mode script: the launch script's own `docker run` decides. */
  readonly known: boolean
  /** The value of `--gpus` (docker's NVIDIA device driver), when given. */
  readonly gpus?: string
  /** The value of `--runtime` (e.g. `nvidia`), when given. */
  readonly runtime?: string
  /** Fully qualified CDI device names passed with `--device` (`nvidia.com/gpu=all`). */
  readonly cdiDevices: readonly string[]
}

/** `vendor.com/class=name`: a CDI device name, not a device path. */
export const isCdiDeviceName = (s: string): boolean => /^[A-Za-z0-9][A-Za-z0-9.-]*\/[A-Za-z0-9][A-Za-z0-9._-]*=\S+$/.test(s)

/** The values of one `docker run` flag in an argument list: `--flag v` and `--flag=v`. */
function flagValues(args: readonly string[], flag: string): string[] {
  return args.flatMap((a, i) => (a === flag && i + 1 < args.length ? [args[i + 1]!] : a.startsWith(`${flag}=`) ? [a.slice(flag.length + 1)] : []))
}

export function gpuRequestOf(m: Manifest): GpuRequest {
  if (m.launch.mode === 'script') return { known: false, cdiDevices: [] }
  const extra = m.container.extraArgs
  const gpus = flagValues(extra, '--gpus').pop() ?? String(m.container.gpus)
  const runtime = flagValues(extra, '--runtime').pop()
  const cdiDevices = flagValues(extra, '--device').filter(isCdiDeviceName)
  return { known: true, gpus, ...(runtime !== undefined && { runtime }), cdiDevices }
}
