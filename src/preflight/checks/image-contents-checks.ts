/**
 * What the release's image holds, against what the executor needs: pure, from the image-contents
 * probe's answer (src/probe/image-contents-probe.ts). Runs before anything changes, so an image that
 * cannot start is refused while the running release still serves.
 *
 * - IMAGE_LACKS_RAY: the Ray executor runs `ray start` in the image (exit 127 without the `ray`
 *   command) and vLLM imports `ray`; since vLLM 0.19 the stock vllm/vllm-openai image has neither
 *   (vllm-project/vllm#33445; NVIDIA/dgx-spark-playbooks#109).
 * - IMAGE_LACKS_VLLM: `vllm serve` needs the `vllm` command and module.
 * - IMAGE_PROBE_FAILED: the probe did not run or its answer was not the document it prints.
 * - VLLM_FLAG_NOT_IN_VERSION (warning): `vllm.args` names a flag the image's vLLM release does not
 *   have (src/command/vllm-contract.ts, read from the wheels); vLLM would stop with "unrecognized
 *   arguments" once started. A warning: the flag lists are read, not run, and a patched image may differ.
 * - VLLM_VERSION_NOT_STATED (warning): `vllm.version` (or the image tag) names another vLLM than the
 *   image reports, so `validate`/`plan` checked the flags against the wrong release.
 */
import { contractFor, unknownVllmFlags } from '../../command/vllm-contract.js'
import type { ImageContents } from '../../probe/image-contents-probe.js'
import type { Parsed } from '../../result/result.js'
import type { Finding } from '../finding.js'

export interface ImageContentsInput {
  /** `vllm.executorBackend`. */
  readonly executor: string
  readonly imageRef: string
  readonly imageId: string
  /** The node the probe ran on. */
  readonly node: string
  /** The probe's document, or why there is none (its message; evidence.output: what the probe printed). */
  readonly probe: Parsed<ImageContents>
  /** `vllm.args`, checked against the flags of the vLLM release the image reports. */
  readonly vllmArgs?: readonly string[]
  /** Every word the tool gives `vllm serve` on any node (its own flags and `vllm.args`), checked the same way. */
  readonly serveWords?: readonly string[]
  /** The vLLM version the manifest names (`vllm.version`, else the image tag) and where, when it names one. */
  readonly statedVersion?: { readonly version: string; readonly from: string }
}

const yesNo = (b: boolean): string => (b ? 'yes' : 'no')
const orNone = (v: string | null): string => v ?? '(none)'

/** What the probe found, as evidence every finding here carries. */
export function contentsEvidence(input: ImageContentsInput, c: ImageContents): Record<string, string> {
  return {
    image: input.imageRef,
    'image ID': input.imageId,
    'probed on': input.node,
    python: `${c.python} (${orNone(c.executable)})`,
    'ray module': yesNo(c.ray.module),
    'ray command': orNone(c.ray.cli),
    'ray version': orNone(c.ray.version),
    'vllm module': yesNo(c.vllm.module),
    'vllm command': orNone(c.vllm.cli),
    'vllm version': orNone(c.vllm.version),
    torch: orNone(c.torch.version),
    "torch's NCCL": c.torch.nccl ?? c.torch.ncclError ?? '(none)',
  }
}

/** One line of versions, for progress and the report. */
export const contentsSummary = (c: ImageContents): string =>
  [
    `vLLM ${orNone(c.vllm.version)}`,
    `Ray ${c.ray.module ? orNone(c.ray.version) : '(absent)'}`,
    `torch ${orNone(c.torch.version)}${c.torch.nccl ? ` (NCCL ${c.torch.nccl})` : ''}`,
    `Python ${c.python}`,
  ].join(', ')

export function imageContentsFindings(input: ImageContentsInput): Finding[] {
  const { probe } = input
  if (!probe.ok) {
    return [
      {
        code: 'IMAGE_PROBE_FAILED',
        severity: 'error',
        node: input.node,
        message: `Could not read what image ${input.imageRef} holds on ${input.node}: ${probe.problem.message}.`,
        evidence: {
          image: input.imageRef,
          'image ID': input.imageId,
          'probed on': input.node,
          error: probe.problem.message,
          ...(probe.problem.evidence.output && { output: probe.problem.evidence.output }),
        },
        fix: `Run the image-contents command that \`vllm-ray-deploy plan\` shows on ${input.node} by hand; the image needs python3 on its PATH.`,
      },
    ]
  }
  const c = probe.value
  const evidence = contentsEvidence(input, c)
  const out: Finding[] = []
  if (input.executor === 'ray' && (!c.ray.module || c.ray.cli === null)) {
    const missing = [!c.ray.module && 'the `ray` module', c.ray.cli === null && 'the `ray` command'].filter(Boolean).join(' and ')
    const matching = c.vllm.version ? ` matching vLLM ${c.vllm.version}` : ''
    out.push({
      code: 'IMAGE_LACKS_RAY',
      severity: 'error',
      node: input.node,
      message: `Image ${input.imageRef} has no Ray (${missing} missing), but vllm.executorBackend is ray: \`ray start\` would fail in it (exit 127) after the running release was stopped. Since vLLM 0.19 the stock vllm/vllm-openai image ships without Ray.`,
      evidence,
      fix: `Use an image with Ray: build one FROM ${input.imageRef} with \`RUN pip install "ray[default]"\` at the Ray version${matching} expects (vLLM's requirements/cuda.txt names it), or set vllm.executorBackend: mp (vLLM's native multi-node mode, no Ray).`,
    })
  }
  if (!c.vllm.module || c.vllm.cli === null) {
    const missing = [!c.vllm.module && 'the `vllm` module', c.vllm.cli === null && 'the `vllm` command'].filter(Boolean).join(' and ')
    out.push({
      code: 'IMAGE_LACKS_VLLM',
      severity: 'error',
      node: input.node,
      message: `Image ${input.imageRef} has no vLLM (${missing} missing): \`vllm serve\` cannot start in it.`,
      evidence,
      fix: 'Point image.ref at a vLLM image (e.g. vllm/vllm-openai, with Ray added when the executor is Ray).',
    })
  }
  out.push(...versionFindings(input, c, evidence))
  return out
}

/** The image's vLLM release against the manifest: its flags, and the version the manifest named. */
function versionFindings(input: ImageContentsInput, c: ImageContents, evidence: Record<string, string>): Finding[] {
  const version = c.vllm.version
  if (!version) return []
  const out: Finding[] = []
  const stated = input.statedVersion
  if (stated && stated.version.replace(/^v/, '') !== version.replace(/^v/, '').replace(/\+.*$/, '')) {
    out.push({
      code: 'VLLM_VERSION_NOT_STATED',
      severity: 'warning',
      node: input.node,
      message: `Image ${input.imageRef} holds vLLM ${version}, but the manifest names ${stated.version} (${stated.from}): validate and plan checked vllm.args against the wrong release.`,
      evidence: { ...evidence, 'manifest names': `${stated.version} (${stated.from})` },
      fix: `Set vllm.version: ${version.replace(/\+.*$/, '')} (or use an image whose tag names the vLLM it holds).`,
    })
  }
  const contract = contractFor(version)
  if (!contract) return out
  const as = contract.vllm === version.replace(/\+.*$/, '') ? '' : ` (flags as of ${contract.vllm}, the nearest release read)`
  const user = new Set(unknownVllmFlags(input.vllmArgs ?? [], contract).map((u) => u.flag))
  const tools = unknownVllmFlags(input.serveWords ?? [], contract).filter((u) => !user.has(u.flag))
  const flags = [...user, ...new Set(tools.map((u) => u.flag))]
  for (const flag of flags) {
    const own = !user.has(flag)
    out.push({
      code: 'VLLM_FLAG_NOT_IN_VERSION',
      severity: 'warning',
      node: input.node,
      message: `${own ? `The tool passes ${flag} (for vllm.executorBackend ${input.executor})` : `vllm.args passes ${flag}`}, which \`vllm serve\` of vLLM ${version}${as} in image ${input.imageRef} does not have: it would stop with "unrecognized arguments".`,
      evidence: { ...evidence, flag, 'flags read from': `vllm ${contract.vllm} wheel (${contract.flags.files.join(', ')})` },
      fix: own
        ? `Use an image with a vLLM that has ${flag} (the contract releases 0.19.1 to 0.34.0 all do), or another vllm.executorBackend.`
        : `Remove ${flag} from vllm.args or spell it as vLLM ${version} does (\`vllm serve --help\` in the image).`,
    })
  }
  return out
}
