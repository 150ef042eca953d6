/**
 * What a deploy will hand the nodes from this run's environment, checked before the first node
 * command: each secret named in container.secretEnv (written one `NAME=value` line per secret to a
 * root-only env file docker reads with --env-file) and the hub token. A value that is unset, empty,
 * carries a line break or NUL, or is larger than a node can take is a finding naming the variable
 * and the fix, found in the first second, not after the image pull and the fabric test. Pure.
 */
import { option } from '../command/option-words.js'
import type { Manifest } from '../manifest/schema.js'
import type { Finding } from '../preflight/finding.js'
import { secretValueProblem } from '../execute/secret-value.js'
import { HF_TOKEN_ENV } from './weights/hub.js'

const fixFor = (name: string, problem: string): string =>
  problem.startsWith('is not set') || problem.startsWith('is empty')
    ? `Set ${name} in the environment of this run (in a workflow: env: ${name}: \${{ secrets.${name} }}), or remove it from container.secretEnv.`
    : problem.startsWith('has')
      ? `Store ${name} without the line break: a secret saved from a file or \`echo\` often ends in one (save it with \`printf %s "$VALUE"\`, or \`gh secret set ${name} < file\` after \`truncate -s -1 file\`).`
      : `Pass ${name} as a file on the nodes (a container.volumes mount) instead of an environment value.`

/** One error finding per secret value this run cannot hand the nodes. */
export function checkRunInputs(m: Manifest, env: NodeJS.ProcessEnv): Finding[] {
  const out: Finding[] = []
  for (const name of m.container.secretEnv) {
    const problem = secretValueProblem(env[name])
    if (!problem) continue
    out.push({
      code: 'SECRET_INVALID',
      severity: 'error',
      node: null,
      message: `The secret ${name} (container.secretEnv) ${problem}.`,
      evidence: { Secret: name, Length: env[name] === undefined ? 'unset' : `${env[name]!.length} characters` },
      fix: fixFor(name, problem),
    })
  }
  // The hub token is read with white space around it trimmed (a public repo needs none); what is left must be one line.
  const token = env[HF_TOKEN_ENV]
  if (m.model?.source.hub && token !== undefined && token.trim() !== '') {
    const problem = secretValueProblem(token.trim())
    if (problem)
      out.push({
        code: 'SECRET_INVALID',
        severity: 'error',
        node: null,
        message: `The hub token ${HF_TOKEN_ENV} (model.source.hub) ${problem}.`,
        evidence: { Secret: HF_TOKEN_ENV, Length: `${token.length} characters` },
        fix: `Give one token, on one line (${HF_TOKEN_ENV} or ${option('hf-token-file', 'F')}).`,
      })
  }
  return out
}
