/**
 * Helpers of the contract tests: the releases' contracts, which log wordings the tool needs in which
 * release, and lines rendered from vLLM's own format strings.
 */
import { VLLM_CONTRACTS, type LogFormat, type VllmContract } from '../../src/command/vllm-contract.js'
import type { FindingCode } from '../../src/preflight/finding.js'

export { VLLM_CONTRACTS, type VllmContract }

const hasClassic = (c: VllmContract) => c.executor.classic_executor_file !== null

/**
 * The vLLM wordings the tool's signatures match (extract.py LOGS ids), the finding each must give,
 * and in which releases the wording must exist. A rule whose wording a release lacks fails the
 * coverage test naming the release; one only the classic executor prints is needed only where it exists.
 */
export const NEEDED_WORDINGS: readonly {
  readonly id: string
  readonly code: FindingCode
  readonly needed: (c: VllmContract) => boolean
  /** Which of the id's formats to render (all by default). */
  readonly pick?: (f: LogFormat) => boolean
  /** The `%` arguments, when the default samples do not fit. */
  readonly args?: readonly string[]
}[] = [
  { id: 'pg-wait', code: 'PLACEMENT_GROUP_PENDING', needed: () => true },
  { id: 'pg-timeout', code: 'PLACEMENT_GROUP_TIMEOUT', needed: () => true },
  { id: 'unique-ip', code: 'UNIQUE_IP_ERROR', needed: hasClassic },
  { id: 'driver-no-device', code: 'DRIVER_NO_GPU', needed: hasClassic },
  { id: 'engine-core-failed', code: 'ENGINE_DEAD', needed: () => true },
  { id: 'engine-init-failed', code: 'ENGINE_DEAD', needed: () => true },
  { id: 'free-memory', code: 'GPU_OUT_OF_MEMORY', needed: () => true, pick: (f) => f.call === 'ValueError' },
  { id: 'no-cache-memory', code: 'GPU_OUT_OF_MEMORY', needed: () => true },
  { id: 'headless', code: 'MASTER_ADDR_LOOPBACK', needed: () => true, args: ['0.24.0', '127.0.0.1:29501'] },
]

/**
 * Wordings a release prints that the tool's rule does not match yet: reported to the owner of
 * src/preflight/signature-rules*.ts (issue 37), and asserted to still miss, so the entry must go
 * when the rule learns it.
 */
export const KNOWN_GAPS: readonly { readonly vllm: string; readonly id: string; readonly contains: string; readonly why: string }[] = []

/** Sample values for the expressions vLLM interpolates, by name (anything else gets `x`). */
const SAMPLES: Readonly<Record<string, string>> = {
  total_gpu_required: '2',
  placement_group_specs: "[{'GPU': 1.0, 'node:192.168.200.12': 0.001}, {'GPU': 1.0}]",
  PG_WAIT_TIMEOUT: '1800',
  n_nodes: '2',
  'list(node_workers.keys())': "['a1b2c3', 'd4e5f6']",
  n_ips: '1',
  all_ips: "{'10.0.0.1'}",
  'list(all_ips)': "['10.0.0.1']",
  device_str: 'GPU',
  current_node_resource: "{'CPU': 20.0, 'memory': 1e11}",
  current_node_id: "'a1b2c3'",
  current_ip: "'10.0.0.1'",
  finished: "{'EngineCore_DP0': 1}",
  'init_snapshot.device_': 'cuda:0',
  'format_gib(init_snapshot.free_memory)': '10.5',
  'format_gib(init_snapshot.total_memory)': '119.7',
  'cache_config.gpu_memory_utilization': '0.9',
  gpu_memory_utilization: '0.9',
  'format_gib(engine_memory)': '100.2',
  'format_gib(requested_memory)': '107.73',
  hint: 'Try increasing `gpu_memory_utilization`.',
}

const PERCENT = ['10', "[{'GPU': 1.0, 'node:192.168.200.12': 0.001}, {'GPU': 1.0}]", '2', '1']

/** One log line from a format string: `%d`/`%s`/`%.1f` in order from PERCENT, `{expr}` from SAMPLES. */
export function render(format: string, args: readonly string[] = PERCENT): string {
  let i = 0
  return format
    .replace(/%(?:\.\d+)?[sdfr]|%%/g, (m) => (m === '%%' ? '%' : (args[i++] ?? 'x')))
    .replace(/\{([^{}]+)\}/g, (_m, expr: string) => {
      const name = expr.replace(/=$/, '').replace(/!r$/, '')
      const value = SAMPLES[name] ?? 'x'
      // `{placement_group_specs=}` prints `placement_group_specs=<repr>`.
      return expr.endsWith('=') ? `${name}=${value}` : value
    })
}

/** A regular expression any rendering of `format` matches: its literal text, each interpolation any text. */
export function formatPattern(format: string): RegExp {
  const parts = format.split(/%(?:\.\d+)?[sdfr]|\{[^{}]+\}/)
  return new RegExp(`^${parts.map((p) => p.replace(/%%/g, '%').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[\\s\\S]*?')}$`)
}

/** `logger.info` → info; exceptions → error (what a user sees of a raised error). */
export function levelOf(call: string | null): string | null {
  if (call === null) return null
  const m = /^logger\.(\w+?)(?:_once)?$/.exec(call)
  if (m) return m[1] === 'exception' ? 'error' : m[1] === 'warn' ? 'warning' : m[1]!
  return /(Error|Exception)$/.test(call) ? 'error' : null
}
