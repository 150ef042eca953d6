/**
 * The Action's contract as GitHub reads it: action.yml parses, every input the code reads is
 * declared there (with its default there and nowhere in src/action), every output the code sets is
 * declared, and every declared output is set by some command. Each scenario runs `node dist/index.js`
 * with INPUT_* built from action.yml (test/support/action.ts applies the defaults, as the runner does).
 *
 * Adding a command's scenario is one row in SCENARIOS.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { COMMANDS as ACTION_COMMANDS, INPUT_NAMES } from '../../src/action/action-inputs.js'
import { COMMON_OUTPUTS, type CommandSpec, actionOutputsOf, commandSpec, commandsReadingInput, commandsSettingOutput } from '../../src/tasks/command-table.js'
import { OUTPUT_NAMES } from '../../src/tasks/outcome.js'
import { type ActionRun, TEST_GITHUB_CONTEXT, loadActionMetadata, runAction } from '../support/action.js'
import { type LoopbackSshd, startLoopbackSshd } from '../support/sshd.js'

const EXAMPLE = 'src/manifest/examples/dgx-spark-pair.yml'
const meta = loadActionMetadata()

/** What a scenario may use: a real OpenSSH server on loopback, and a scratch folder. */
interface Fixtures {
  readonly sshd: LoopbackSshd
  readonly dir: string
}

interface Scenario {
  readonly name: string
  /** The `with:` of the workflow step; every other input gets action.yml's default. */
  readonly with: (f: Fixtures) => Record<string, string>
  readonly exit: 0 | 1 | 2
  readonly result: string
}

/** A one-node cluster on this machine, reached through the loopback sshd: the probe really runs. */
function loopbackManifest(f: Fixtures): string {
  const path = join(f.dir, 'loopback.yml')
  writeFileSync(
    path,
    [
      'version: 1',
      'cluster: loopback',
      'fabric: { interfaces: [lo], subnet: 127.0.0.0/8 }',
      'nodes:',
      '  - name: here',
      '    role: head',
      `    ssh: { host: 127.0.0.1, port: ${f.sshd.port}, hostKeys: ["${f.sshd.hostPublicKey}"] }`,
      '    fabricIp: 127.0.0.1',
      '    gpus: 1',
      'image: { ref: "vrd-contract/absent:1" }',
      'container: { name: vrd-contract-no-such-container }',
      'vllm: { model: m, tensorParallelSize: 1 }',
      '',
    ].join('\n'),
  )
  return path
}

const SCENARIOS: readonly Scenario[] = [
  { name: 'validate, a valid manifest', with: () => ({ command: 'validate', manifest: EXAMPLE }), exit: 0, result: 'valid' },
  { name: 'validate, an invalid manifest', with: () => ({ command: 'validate', manifest: 'test/fixtures/three-mistakes.yml' }), exit: 1, result: 'invalid' },
  { name: 'plan', with: () => ({ command: 'plan', manifest: EXAMPLE }), exit: 0, result: 'planned' },
  {
    name: 'preflight through a real sshd (no container, no Ray: error findings)',
    with: (f) => ({ command: 'preflight', manifest: loopbackManifest(f), 'ssh-private-key': f.sshd.clientKey }),
    exit: 1,
    result: 'failed',
  },
  {
    name: 'smoke through a real sshd (no container, so no vllm serve: SMOKE_SERVER_NOT_STARTED at the first poll)',
    with: (f) => ({ command: 'smoke', manifest: loopbackManifest(f), 'ssh-private-key': f.sshd.clientKey }),
    exit: 1,
    result: 'failed',
  },
  {
    name: 'deploy through a real sshd: the host checks stop it before anything changes (no GPU, no Ray)',
    with: (f) => ({ command: 'deploy', manifest: loopbackManifest(f), 'ssh-private-key': f.sshd.clientKey }),
    exit: 1,
    result: 'failed',
  },
  {
    name: 'diagnose with only ray-nodes (the default manifest does not exist)',
    with: () => ({ command: 'diagnose', 'ray-nodes': 'test/preflight/fixtures/ray/ray-nodes-healthy.json' }),
    exit: 0,
    result: 'passed',
  },
  {
    name: 'diagnose, the seed bug from a ray-nodes paste and a vLLM log (no manifest)',
    with: () => ({
      command: 'diagnose',
      'ray-nodes': 'test/preflight/fixtures/ray/seed-ray-nodes.txt',
      logs: 'test/preflight/fixtures/logs/vllm-pg-wait-new.txt\n',
    }),
    exit: 1,
    result: 'failed',
  },
  {
    name: 'diagnose with a manifest the workflow names that does not exist',
    with: () => ({ command: 'diagnose', 'ray-nodes': 'test/preflight/fixtures/ray/seed-ray-nodes.txt', manifest: 'no/such/manifest.yml' }),
    exit: 1,
    result: 'invalid',
  },
  {
    name: "diagnose the seeds' launch script: both bugs, with the patch as a file",
    with: () => ({
      command: 'diagnose',
      'launch-script': 'test/script-check/fixtures/spark-vllm-qwen35.sh',
      manifest: 'src/manifest/examples/dgx-spark-pair.yml',
    }),
    exit: 1,
    result: 'failed',
  },
  {
    name: 'a wrong on-failure is a usage error naming the input',
    with: () => ({ command: 'validate', manifest: EXAMPLE, 'on-failure': 'explode' }),
    exit: 1,
    result: 'error',
  },
]

describe('action.yml', () => {
  it('declares every input with a description and a default, and nothing the code does not read', () => {
    for (const [name, spec] of Object.entries(meta.inputs)) {
      expect(spec.description, `input ${name}`).toBeTruthy()
      expect(spec.default, `input ${name} has no default (write default: "" for none)`).not.toBeUndefined()
    }
    expect(
      INPUT_NAMES.filter((n) => !(n in meta.inputs)),
      'inputs of the command table missing from action.yml',
    ).toEqual([])
    // An input outside the table (one no command reads: the post step's) must be read by name in src/action.
    const actionSources = readdirSync('src/action')
      .map((f) => readFileSync(join('src/action', f), 'utf8'))
      .join('\n')
    const unread = Object.keys(meta.inputs).filter((n) => !INPUT_NAMES.includes(n) && !actionSources.includes(`'${n}'`))
    expect(unread, 'declared in action.yml but read by no command of the table and not by src/action').toEqual([])
  })

  /**
   * A description says which commands an input or output serves, from the table: "(deploy,
   * rollback) ..." when some commands, no such prefix when every command. So no description can
   * claim the wrong commands.
   */
  const prefixOf = (description: string): string[] | undefined => {
    const m = /^\(([a-z, -]+)\)/.exec(description)
    const names = m?.[1]?.split(',').map((s) => s.trim())
    return names?.every((n) => (ACTION_COMMANDS as readonly string[]).includes(n)) ? names : undefined
  }
  const expectServes = (kind: string, name: string, description: string, serves: string[]) => {
    const want = serves.length === ACTION_COMMANDS.length ? undefined : serves
    expect(
      prefixOf(description),
      `${kind} ${name}: description should start with ${want ? `"(${want.join(', ')})"` : 'no command list (every command)'}`,
    ).toEqual(want)
  }

  it("says in each input's description which commands read it, as the command table says", () => {
    for (const name of INPUT_NAMES) expectServes('input', name, meta.inputs[name]!.description, commandsReadingInput(name))
  })

  it("says in each output's description which commands set it, as the command table says", () => {
    for (const name of OUTPUT_NAMES) expectServes('output', name, meta.outputs[name]!.description, commandsSettingOutput(name))
  })

  it('the description prefix test fails on a wrong or missing command list', () => {
    expect(() => expectServes('input', 'x', '(diagnose) y', ['preflight', 'smoke'])).toThrow()
    expect(() => expectServes('input', 'x', 'y', ['deploy'])).toThrow()
    expect(() => expectServes('input', 'x', '(deploy) y', [...ACTION_COMMANDS])).toThrow()
    expect(() => expectServes('input', 'x', '(deploy, rollback) y', ['deploy', 'rollback'])).not.toThrow()
  })

  it('declares every output the tasks know by name', () => {
    for (const [name, spec] of Object.entries(meta.outputs)) expect(spec.description, `output ${name}`).toBeTruthy()
    expect(Object.keys(meta.outputs).sort()).toEqual([...OUTPUT_NAMES].sort())
  })

  it('repeats no default in src/action: the runner applies them', () => {
    const dir = 'src/action'
    const sources = readdirSync(dir).map((f) => ({ file: join(dir, f), text: readFileSync(join(dir, f), 'utf8') }))
    const problems: string[] = []
    for (const { file, text } of sources) {
      // An input read with a fallback (`getInput('x') || 'y'`, `input('x') ?? ...`) is a second default.
      for (const m of text.matchAll(/\b(?:getInput|input|get)\((['"])([a-z-]+)\1\)\s*(\|\||\?\?)/g))
        problems.push(`${file}: input ${m[2]} read with a fallback (${m[3]})`)
      for (const [name, spec] of Object.entries(meta.inputs)) {
        const value = spec.default ?? ''
        if (value === '') continue
        const literal = new RegExp(`(\\|\\||\\?\\?)\\s*(['"\`])${value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\2`)
        if (literal.test(text)) problems.push(`${file}: repeats the default of ${name} (${value})`)
      }
      if (/GITHUB_SHA/.test(text)) problems.push(`${file}: reads GITHUB_SHA (the release input's default is \${{ github.sha }})`)
    }
    expect(problems).toEqual([])
  })
})

describe('node dist/index.js for every command, inputs from action.yml', () => {
  let fixtures: Fixtures
  const runs = new Map<string, ActionRun>()
  beforeAll(async () => {
    fixtures = { sshd: await startLoopbackSshd(), dir: mkdtempSync(join(tmpdir(), 'vrd-contract-')) }
  })
  afterAll(async () => {
    await fixtures?.sshd.stop()
  })

  it.each(SCENARIOS)('$name', (s) => {
    const r = runAction(s.with(fixtures))
    runs.set(s.name, r)
    expect(r.stderr).toBe('')
    expect(r.status, r.stdout).toBe(s.exit)
    expect(r.outputs['result']).toBe(s.result)
    const undeclared = Object.keys(r.outputs).filter((o) => !(o in meta.outputs))
    expect(undeclared, 'outputs set by the code but not declared in action.yml').toEqual([])
    const command = s.with(fixtures).command ?? 'validate'
    // A usage error sets only what every command sets (COMMON_OUTPUTS).
    const allowed: readonly string[] = r.outputs['result'] === 'error' ? COMMON_OUTPUTS : actionOutputsOf(commandSpec(command) as CommandSpec)
    const unlisted = Object.keys(r.outputs).filter((o) => !allowed.includes(o))
    expect(unlisted, `outputs ${command} set that its row in the command table does not list`).toEqual([])
    expect(r.outputs['summary']).toBeTruthy()
  })

  it('sets every declared output in some scenario', () => {
    const set = new Set([...runs.values()].flatMap((r) => Object.keys(r.outputs)))
    expect(
      Object.keys(meta.outputs).filter((o) => !set.has(o)),
      'declared in action.yml but set by no scenario',
    ).toEqual([])
  })

  it('diagnose with only ray-nodes reads the paste and names the seed bug without any manifest', () => {
    const r = runs.get('diagnose, the seed bug from a ray-nodes paste and a vLLM log (no manifest)')!
    expect(r.stdout).not.toMatch(/does not exist/)
    expect((JSON.parse(r.outputs['findings']!) as { code: string }[]).map((f) => f.code)).toContain('PLACEMENT_GROUP_PENDING')
    const missing = runs.get('diagnose with a manifest the workflow names that does not exist')!
    expect(missing.stdout).toMatch(/manifest file no\/such\/manifest\.yml does not exist/)
  })

  it("plan records the release from action.yml's default, the run's commit SHA", () => {
    const plan = JSON.parse(runs.get('plan')!.outputs['plan']!) as { release: string }
    expect(plan.release).toBe(TEST_GITHUB_CONTEXT.sha)
  })

  it('preflight through the real sshd writes the facts bundle it gathered', () => {
    const r = runs.get('preflight through a real sshd (no container, no Ray: error findings)')!
    const facts = JSON.parse(readFileSync(r.outputs['facts-file']!, 'utf8')) as {
      cluster: string
      nodes: { node: string; ok: boolean; interfaces: { name: string }[] }[]
    }
    expect(facts.cluster).toBe('loopback')
    expect(facts.nodes[0]).toMatchObject({ node: 'here', ok: true })
    expect(facts.nodes[0]!.interfaces.map((i) => i.name)).toContain('lo')
    expect(r.outputs['error-count']).not.toBe('0')
  })
})
