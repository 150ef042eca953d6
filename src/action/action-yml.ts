/**
 * action.yml's text, as data: what each Action input and output says, and the file around them.
 * action.yml is generated from this and the command table (src/tasks/command-table.ts): the `command`
 * input lists the table's Action commands, and each description starts with the commands that read
 * the input or set the output ("(deploy, rollback) ..."; no list when every command does), computed
 * from the table, so adding a command changes no line here. Regenerate with `npm run schema`;
 * test/action/action-yml.test.ts fails while the committed action.yml differs.
 */
import { Document, type YAMLMap, isScalar } from 'yaml'
import { ACTION_COMMANDS, ACTION_INPUT_NAMES, commandsReadingInput, commandsSettingOutput } from '../tasks/command-table.js'
import type { OutputName } from '../tasks/outcome.js'

export interface InputText {
  readonly description: string
  /** The runner applies it when the workflow does not set the input ("" for none). */
  readonly default: string
}

/** Every Action input but `command` (its text is made from the table), by name. */
export const INPUT_TEXT: Readonly<Record<string, InputText>> = {
  manifest: {
    description:
      'Path of the cluster manifest (YAML), relative to the repository root. diagnose uses it when the file exists or when you set this input; without it diagnose checks what the files alone show.',
    default: '.github/vllm-ray-deploy.yml',
  },
  'ssh-private-key': { description: 'Private key (text) that logs in to every node. Store it in a secret. Never put keys in the manifest.', default: '' },
  'ssh-key-passphrase': { description: 'Passphrase of ssh-private-key, when the key has one. Store it in a secret; it is masked in the log.', default: '' },
  'hf-token': {
    description:
      "Hugging Face token for a model downloaded from the hub (model.source.hub), when the repo needs one. Store it in a secret; it is masked in the log, reaches the node on stdin only and lives there in a 0600 file for the download's duration.",
    default: '',
  },
  'known-hosts': {
    description:
      "known_hosts text with the nodes' host keys, for nodes whose keys the manifest does not pin (ssh.hostKeys). Connections to unpinned hosts are refused.",
    default: '',
  },
  image: { description: "Image reference that overrides the manifest's image.ref (e.g. a tag built earlier in the workflow).", default: '' },
  release: { description: 'Release id recorded on the containers (labels, rollback). Default: the commit SHA of the run.', default: '${{ github.sha }}' },
  'on-failure': {
    description: "What a failed deploy does: rollback | stop | keep. Empty: the manifest's deploy.onFailure decides; set, it overrides that for this run.",
    default: '',
  },
  force: { description: '"true" redeploys even when nothing changed (same fingerprint as the current release).', default: 'false' },
  'wait-lock': { description: '"true" waits for a held deploy lock (up to deploy.lockTtlMinutes) instead of failing at once.', default: 'false' },
  'rollback-to': { description: 'The release to go back to. Default: the one `previous` names on the head.', default: '' },
  facts: { description: 'Path of a facts bundle JSON saved by an earlier preflight.', default: '' },
  'ray-nodes': { description: 'Path of a file with Ray\'s node list (ray.nodes() as JSON or Python repr, or "ip {resources}" lines).', default: '' },
  'ray-status': { description: 'Path of a file with the text of `ray status`.', default: '' },
  logs: { description: 'Paths of log files to scan for known failure signatures, one per line.', default: '' },
  'launch-script': {
    description:
      'Path of a bash launch script to read before it runs (roles, ray start, VLLM_HOST_IP, socket interfaces); mechanical fixes come back as one patch in the fix-file output.',
    default: '',
  },
}

/** Every output, by name (the compiler holds this to OUTPUT_NAMES). */
export const OUTPUT_TEXT: Readonly<Record<OutputName, string>> = {
  result: 'valid | invalid | planned | passed | failed | error; deploy/rollback: deployed | unchanged | rolled-back | failed | cancelled',
  release: 'The release the rollout brought up (for an unchanged deploy, the release that keeps running).',
  'previous-release': 'The release `current` named before the rollout (empty on a first deploy).',
  'image-id': 'The image ID every node runs (sha256:...).',
  'weights-id':
    'With `model:` in the manifest, the identity of the model files every node was verified against (sha256:... of the weights manifest); empty without it.',
  'weights-bytes-moved': 'With `model:`, the model bytes this deploy moved (from the runner and over the fabric); "0" when every node already held every file.',
  'weights-files-skipped': 'With `model:`, how many node-file copies were already present and verified, so not moved.',
  'fabric-test':
    "The fabric test (an all-reduce over the fabric before anything changes): passed | failed | disabled (preflight.collective: false) | skipped (an unchanged release); empty when the deploy stopped before it, and for rollback. Per-node path, time and bandwidth are in the job summary and the JSON report's fabricTest.",
  changed: '"true" when containers were replaced; "false" for an unchanged deploy or one stopped before anything changed.',
  'rolled-back': '"true" when a release was rolled back to (on-failure rollback that passed every gate, or the rollback command).',
  summary: 'One line saying what happened.',
  'error-count': 'Number of errors (manifest errors or error findings).',
  'warning-count': 'Number of warning findings (for validate, manifest warnings such as a key the launch mode does not read).',
  findings: 'Findings as JSON: [{"code","severity","node","message","evidence","fix"}].',
  'facts-file': 'Path of the facts bundle JSON the run gathered or read (upload it as an artifact).',
  'fix-file':
    "Path of a unified diff of the launch script (the launch-script input, or the manifest's launch.path in script mode) with every mechanical fix; `git apply` or `patch -p1` it from the workspace root. Unset when there is none.",
  'summary-file': 'Path of a Markdown file holding the job summary this step wrote (upload it as an artifact with the facts bundle).',
  'report-dir':
    'Directory ($RUNNER_TEMP/vllm-ray-deploy) holding the failure report every step of this action in the job adds to: outcome.txt (one block per step), findings.json, the facts bundle and the summary. Upload it with actions/upload-artifact on failure(); nothing else to copy.',
  bundle:
    "Path of the diagnostics bundle's index (report-dir/bundle/bundle.json), written when a deploy or rollback failed: each node's last 64 KiB of its vLLM log and of Ray's logs, the facts, the findings, the start-up timeline with the first failure, the manifest's effective values; secrets removed, under 4 MiB. Empty when the rollout passed.",
  plan: 'The plan as JSON.',
  'plan-file': 'Path of the plan JSON.',
  cluster: 'Cluster name from the manifest.',
  verdict: "The smoke test's verdict: passed | failed (deploy, rollback: its smoke gate, when it ran)",
  model: 'The served model name the smoke test asked.',
  'ttft-ms': 'Time to first token of the streamed request, in milliseconds.',
  'itl-ms': 'Mean inter-token latency of the streamed request, in milliseconds.',
  'tokens-per-second': 'Output tokens per second (the burst, or the streamed request without a burst).',
  'p95-ms': '95th percentile request latency in milliseconds (the burst, or every smoke request without a burst).',
}

const HEADER = {
  name: 'vllm-ray-deploy',
  description:
    'Roll a vLLM server out across a Ray cluster of GPU machines over SSH, prove the Ray/vLLM wiring and the model, and fail the moment anything does not match.',
  author: 'vllm-ray-deploy',
  branding: { icon: 'cpu', color: 'green' },
}

const RUNS = { using: 'node24', main: 'dist/index.js', post: 'dist/index.js', 'post-if': 'always()' }

/** "(deploy, rollback) " when only some Action commands, nothing when all of them. */
function servedBy(commands: readonly string[]): string {
  return commands.length === ACTION_COMMANDS.length ? '' : `(${commands.join(', ')}) `
}

/** The action.yml text: the header, every input and output of the table with its text, and runs. */
export function renderActionYml(): string {
  const inputs: Record<string, { description: string; required: false; default: string }> = {
    command: { description: `What to do: ${ACTION_COMMANDS.join(' | ')}.`, required: false, default: 'validate' },
  }
  const undescribed = ACTION_INPUT_NAMES.filter((n) => n !== 'command' && !(n in INPUT_TEXT))
  // bug: INPUT_TEXT and the command table are this program's own data; a mismatch is caught by the tests and the schema script
  if (undescribed.length > 0) throw new Error(`INPUT_TEXT in src/action/action-yml.ts does not describe the Action input(s) ${undescribed.join(', ')}`)
  const unused = Object.keys(INPUT_TEXT).filter((n) => !ACTION_INPUT_NAMES.includes(n))
  // bug: as above: INPUT_TEXT names an input no command reads
  if (unused.length > 0) throw new Error(`INPUT_TEXT describes inputs no Action command reads: ${unused.join(', ')}`)
  // In INPUT_TEXT's order (related inputs together), outputs in OUTPUT_TEXT's.
  for (const [name, text] of Object.entries(INPUT_TEXT)) {
    inputs[name] = { description: `${servedBy(commandsReadingInput(name))}${text.description}`, required: false, default: text.default }
  }
  const outputs: Record<string, { description: string }> = {}
  for (const name of Object.keys(OUTPUT_TEXT) as OutputName[]) outputs[name] = { description: `${servedBy(commandsSettingOutput(name))}${OUTPUT_TEXT[name]}` }
  const doc = new Document({ ...HEADER, inputs, outputs, runs: RUNS })
  doc.commentBefore = ' Generated from src/action/action-yml.ts and the command table (src/tasks/command-table.ts): do not edit; run `npm run schema`.'
  for (const section of ['inputs', 'outputs', 'runs']) {
    const pair = (doc.contents as YAMLMap).items.find((p) => isScalar(p.key) && p.key.value === section)
    if (isScalar(pair?.key)) pair.key.spaceBefore = true
  }
  const post = (doc.getIn(['runs'], true) as YAMLMap).items.find((p) => isScalar(p.key) && p.key.value === 'post')
  if (isScalar(post?.key)) post.key.commentBefore = ' Releases a deploy lock the main step left behind (cancelled or failed run); never fails the job.'
  return doc.toString({ lineWidth: 0 })
}
