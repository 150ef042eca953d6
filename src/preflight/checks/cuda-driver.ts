/**
 * The image's CUDA against each node's driver (issue 38, host readiness): a CUDA runtime newer than
 * the driver supports runs only through CUDA forward compatibility, which GB10 (DGX Spark) and
 * GeForce parts do not have ("Error 804: forward compatibility was attempted on non supported HW";
 * NGC's entrypoint: "This container was built for NVIDIA Driver Release 590.48 or later, but version
 * 580.159.03 was detected and compatibility mode is UNAVAILABLE", eugr/spark-vllm-docker#266), and
 * which on data-centre GPUs an NGC image enables in its entrypoint, the entrypoint a launcher that
 * sets `--entrypoint` bypasses. Read before anything changes: the image-contents stage gives the
 * image's CUDA, the host checks each node's (`nvidia-smi`'s "CUDA Version").
 */
import type { ImageContents } from '../../probe/image-contents-probe.js'
import type { Finding } from '../finding.js'

export interface NodeDriver {
  readonly node: string
  readonly driverVersion?: string
  /** The highest CUDA the driver supports (nvidia-smi's header). */
  readonly cudaVersion?: string
  readonly gpuName?: string
}

/** `13.0` < `13.2`: major.minor compared as numbers; undefined when either cannot be read. */
function older(driver: string, image: string): boolean | undefined {
  const p = (v: string) => /^(\d+)\.(\d+)/.exec(v)?.slice(1, 3).map(Number)
  const d = p(driver)
  const i = p(image)
  if (!d || !i) return undefined
  return d[0]! < i[0]! || (d[0] === i[0] && d[1]! < i[1]!)
}

/** Forward compatibility exists on data-centre GPUs only: not on GB10 (DGX Spark) or GeForce/RTX consumer parts. */
const forwardCompatible = (gpu: string | undefined): boolean => !!gpu && !/GB10|GeForce|RTX|TITAN|Quadro/i.test(gpu)

/** The CUDA the image needs the driver to support: torch's (it brings its own runtime), else the image's CUDA_VERSION. */
export const imageCuda = (c: ImageContents): string | undefined => c.cuda?.torch ?? c.cuda?.runtime ?? undefined

export function cudaDriverFindings(imageRef: string, c: ImageContents, drivers: readonly NodeDriver[], launcherSetsEntrypoint: boolean): Finding[] {
  const need = imageCuda(c)
  if (!need) return []
  return drivers.flatMap((d): Finding[] => {
    if (!d.cudaVersion || older(d.cudaVersion, need) !== true) return []
    const evidence = {
      image: imageRef,
      "image's CUDA": `${need}${c.cuda?.torch ? ` (torch ${c.torch.version ?? ''} built for CUDA ${c.cuda.torch})` : ''}${c.cuda?.runtime ? `; CUDA_VERSION ${c.cuda.runtime}` : ''}`,
      [`${d.node} driver`]: `${d.driverVersion ?? '?'} (supports CUDA ${d.cudaVersion})`,
      GPU: d.gpuName ?? '?',
      'forward compatibility in the image': c.cuda?.compat
        ? `yes${c.cuda.ngcEntrypoint ? ' (NGC entrypoint /opt/nvidia/nvidia_entrypoint.sh enables it)' : ''}`
        : 'no',
    }
    const upgrade = `Upgrade ${d.node}'s NVIDIA driver to one that supports CUDA ${need} (on DGX Spark: the DGX OS update), or use an image built for CUDA ${d.cudaVersion} or older (e.g. vLLM's cu${d.cudaVersion.replace('.', '')} wheels).`
    // A data-centre GPU and an NGC image: its entrypoint turns forward compatibility on, unless the launch bypasses it.
    if (forwardCompatible(d.gpuName) && c.cuda?.compat && c.cuda.ngcEntrypoint && !launcherSetsEntrypoint) return []
    if (forwardCompatible(d.gpuName) && c.cuda?.compat && c.cuda.ngcEntrypoint)
      return [
        {
          code: 'NGC_ENTRYPOINT_BYPASSED',
          severity: 'error',
          node: d.node,
          message: `Image ${imageRef} needs CUDA ${need}, newer than ${d.node}'s driver ${d.driverVersion ?? '?'} supports (CUDA ${d.cudaVersion}); it carries CUDA forward compatibility, which its NGC entrypoint enables, but the launch starts the container with its own --entrypoint, so CUDA would fail to initialise.`,
          evidence,
          fix: `${upgrade} Or keep the image and put its compatibility libraries first: container.env LD_LIBRARY_PATH=/usr/local/cuda/compat/lib.real:/usr/local/cuda/compat/lib (what the NGC entrypoint does), or launch through the image's entrypoint (launch.mode: script).`,
        },
      ]
    return [
      {
        code: 'CUDA_DRIVER_TOO_OLD',
        severity: 'error',
        node: d.node,
        message: `Image ${imageRef} needs CUDA ${need}, but ${d.node}'s driver ${d.driverVersion ?? '?'} supports CUDA ${d.cudaVersion}${forwardCompatible(d.gpuName) ? (c.cuda?.compat ? ' and nothing in the image turns its forward-compatibility libraries on (LD_LIBRARY_PATH)' : ' and the image carries no forward-compatibility libraries') : ` and ${d.gpuName ?? 'this GPU'} has no CUDA forward compatibility`}: torch would fail to initialise CUDA ("forward compatibility was attempted on non supported HW", error 804, or "CUDA driver version is insufficient").`,
        evidence,
        fix: upgrade,
      },
    ]
  })
}
