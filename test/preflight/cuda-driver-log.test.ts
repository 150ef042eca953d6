/**
 * A node's driver older than the image's CUDA, read from a log (issue 36): the same family the image-contents stage
 * finds before a deploy (cuda-driver.test.ts), here in each program's own words — libnvidia-container's requirement
 * check, NGC images' entrypoint, torch's driver check, CUDA's errors 804 and 35 — from different public sources, with
 * the versions as evidence, and the near misses that are other families.
 */
import { describe, expect, it } from 'vitest'
import { scan } from './support/paste-scan.js'

const codes = (text: string) => scan(text).map((f) => `${f.severity}:${f.code}`)
const tooOld = (text: string) => {
  const f = scan(text).filter((x) => x.code === 'CUDA_DRIVER_TOO_OLD')
  expect(f, text).toHaveLength(1)
  expect(f[0]!.severity).toBe('error')
  return f[0]!
}

describe('CUDA_DRIVER_TOO_OLD from a log', () => {
  it("libnvidia-container's requirement error, in the wordings of several years (tabbyAPI#324, nvidia-docker#1442, #536)", () => {
    const f = tooOld(
      "Error response from daemon: failed to create task for container: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: error during container init: error running prestart hook #0: exit status 1, stdout: , stderr: Auto-detected mode as 'legacy'\nnvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.8, please update your driver to a newer version, or use an earlier cuda container: unknown\n",
    )
    expect(f.evidence['Image requires']).toBe('cuda>=12.8')
    expect(tooOld('nvidia-container-cli: requirement error: unsatisfied condition: cuda >= 9.0\\\\n').evidence['Image requires']).toBe('cuda>=9.0')
  })
  it("NGC's entrypoint, wrapped over two lines (nvidia-docker#1479) or joined by a page (LlamaFactory#5962)", () => {
    const wrapped = tooOld(
      'ERROR: This container was built for NVIDIA Driver Release 450.51 or later, but\n       version 440.33.01 was detected and compatibility mode is UNAVAILABLE.\n\n       [[CUDA Driver UNAVAILABLE (cuInit(0) returned 804)]]\n',
    )
    expect(wrapped.evidence).toMatchObject({ 'Driver the image needs': '450.51 or later', 'Driver on the node': '440.33.01' })
    const joined = tooOld(
      'This container was built for NVIDIA Driver Release 545.23 or later, butversion 535.104.05 was detected and compatibility mode is UNAVAILABLE',
    )
    expect(joined.evidence).toMatchObject({ 'Driver the image needs': '545.23 or later', 'Driver on the node': '535.104.05' })
    expect(
      codes(
        'ERROR: This container was built for NVIDIA Driver Release 590.48 or later, but\n       version 580.95.05 was detected and compatibility mode is UNAVAILABLE.\n',
      ),
    ).not.toContain('error:UNRECOGNISED_FAILURE')
  })
  it("torch's driver check, as an error or as its CUDA-initialisation warning, with the driver's CUDA", () => {
    expect(tooOld('AssertionError: \nThe NVIDIA driver on your system is too old (found version 11040).').evidence['Driver supports CUDA']).toBe(
      '11.4 (found version 11040)',
    )
    expect(
      tooOld(
        '/usr/local/lib/python3.12/dist-packages/torch/cuda/__init__.py:174: UserWarning: CUDA initialization: The NVIDIA driver on your system is too old (found version 12020). Please update your GPU driver by downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx',
      ).evidence['Driver supports CUDA'],
    ).toBe('12.2 (found version 12020)')
  })
  it("CUDA's 804 through torch or vLLM's engine (gpustack#1540, TensorRT-LLM#1806), and 35", () => {
    for (const line of [
      'ERROR 03-26 05:25:01 engine.py:389] Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have already set an error? Error 804: forward compatibility was attempted on non supported HW',
      '[TensorRT-LLM][ERROR] CUDA runtime error in cudaGetDevice(&device): forward compatibility was attempted on non supported HW',
      'CUDA failure 804: forward compatibility was attempted on non supported HW ; GPU=0 ; hostname=spark-a',
      'RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version',
    ]) {
      tooOld(line)
      expect(codes(line), line).not.toContain('error:UNRECOGNISED_FAILURE')
    }
  })
  it('near misses: no driver at all, a stub library, an NVSwitch system without its fabric manager, a healthy NGC banner', () => {
    for (const line of [
      'RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver',
      'RuntimeError: CUDA error: CUDA driver is a stub library',
      'RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have already set an error? Error 802: system not yet initialized',
      'nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1: cannot open shared object file: no such file or directory: unknown',
      'NOTE: CUDA Forward Compatibility mode ENABLED.\n  Using CUDA 13.0 driver version 580.65.06 with kernel driver version 570.172.08.',
    ])
      expect(codes(line), line).not.toContain('error:CUDA_DRIVER_TOO_OLD')
  })
})
