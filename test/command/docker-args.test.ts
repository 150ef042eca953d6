/**
 * One reader of docker's command line for everything that reads one (issue 33): every spelling
 * docker's flag library (pflag) accepts for -e/--env, tried through the reader itself, the
 * manifest's container.extraArgs (validate refuses VLLM_HOST_IP there) and a launch script's
 * `docker run` (the script check reads the override); and vLLM's `--flag_name` spelling through
 * vllm.args and the native flags.
 */
import { describe, expect, it } from 'vitest'
import { readDockerArgs } from '../../src/command/docker-args.js'
import { vllmFlagName } from '../../src/command/vllm-flags.js'
import { parseManifest } from '../../src/manifest/load-manifest.js'
import { serveFlags } from '../../src/preflight/native-launch.js'
import { checkLaunchScript } from '../../src/script-check/index.js'
import { BASE } from '../manifest/fixtures/base-manifest.js'

/** Each spelling of `VLLM_HOST_IP=10.1.230.180` docker accepts, as argv words. */
const SPELLINGS: readonly (readonly string[])[] = [
  ['-e', 'VLLM_HOST_IP=10.1.230.180'],
  ['--env', 'VLLM_HOST_IP=10.1.230.180'],
  ['--env=VLLM_HOST_IP=10.1.230.180'],
  ['-eVLLM_HOST_IP=10.1.230.180'],
  ['-e=VLLM_HOST_IP=10.1.230.180'],
  ['-te=VLLM_HOST_IP=10.1.230.180'],
  ['-qeVLLM_HOST_IP=10.1.230.180'],
  ['-itdeVLLM_HOST_IP=10.1.230.180'],
  ['-Pe', 'VLLM_HOST_IP=10.1.230.180'],
  ['-de=VLLM_HOST_IP=10.1.230.180'],
]

describe('readDockerArgs', () => {
  it.each(SPELLINGS.map((s) => [s.join(' '), s]))('%s is --env VLLM_HOST_IP=10.1.230.180', (_s, words) => {
    const r = readDockerArgs([...words, 'vllm/vllm-openai', 'serve'], (w) => w)
    expect(r.options.filter((o) => o.name === '--env').map((o) => o.value)).toEqual(['VLLM_HOST_IP=10.1.230.180'])
    expect(r.target).toBe(words.length)
  })
  it('value-taking shorthands take the rest of their word or the next; booleans do not; -- ends the options', () => {
    const r = readDockerArgs(['-v/a:/b', '-p', '8000:8000', '-it', '--rm', '--ulimit', 'memlock=-1', '--', '-image-like', 'cmd'], (w) => w)
    expect(r.options.map((o) => [o.name, o.value])).toEqual([
      ['--volume', '/a:/b'],
      ['--publish', '8000:8000'],
      ['-i', undefined],
      ['-t', undefined],
      ['--rm', undefined],
      ['--ulimit', 'memlock=-1'],
    ])
    expect(r.target).toBe(8)
  })
})

describe('every reader of a docker command line sees the override in each spelling', () => {
  it.each(SPELLINGS.map((s) => [s.join(' '), s]))('container.extraArgs %s: refused at validate, at the argument', (_s, words) => {
    const text = BASE.replace('vllm:\n', `container:\n  extraArgs: ${JSON.stringify(['--ipc=host', ...words])}\nvllm:\n`)
    const errs = parseManifest(text, 'cluster.yml').errors
    expect(errs.find((e) => e.code === 'PER_NODE_ENV')?.path).toEqual(['container', 'extraArgs', 1])
  })

  it.each(SPELLINGS.map((s) => [s.join(' '), s]))("a launch script's docker run %s: the script check reads VLLM_HOST_IP", (_s, words) => {
    const script = [
      '#!/bin/bash',
      `docker run -d --network host ${words.join(' ')} vllm/vllm-openai:latest ray start --head --node-ip-address=192.168.200.12 --block`,
      '',
    ].join('\n')
    const r = checkLaunchScript(script, { path: 'l.sh' })
    expect(r.findings.map((f) => f.code)).toContain('SCRIPT_VLLM_HOST_IP_OVERRIDE')
  })
})

describe("vLLM's --flag_name spelling", () => {
  it('is the flag it spells, for vllm.args and the native flags alike', () => {
    expect(vllmFlagName('--tensor_parallel_size=2')).toBe('--tensor-parallel-size')
    expect(vllmFlagName('-tp')).toBe('-tp')
    for (const arg of ['--tensor_parallel_size', '--master_addr=10.0.0.1', '--pipeline_parallel_size']) {
      const text = BASE.replace('vllm:\n', `vllm:\n  args: ${JSON.stringify([arg, '2'])}\n`)
      expect(parseManifest(text, 'cluster.yml').errors.map((e) => [e.code, e.path])).toContainEqual(['MANAGED_FLAG_IN_ARGS', ['vllm', 'args', 0]])
    }
    expect(serveFlags(['--master_addr', '10.0.0.1', '--node_rank=1'], (w) => w)).toMatchObject({
      '--master-addr': { value: '10.0.0.1' },
      '--node-rank': { value: '1' },
    })
  })
})
