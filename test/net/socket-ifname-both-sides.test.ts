/**
 * One reading of NCCL_SOCKET_IFNAME / GLOO_SOCKET_IFNAME on both sides: `validate` (the manifest
 * rule, against fabric.interfaces) and the preflight (the check, against the node's real
 * interfaces) agree on every value here, on a node whose fabric interface is enp1s0f1np1 and whose
 * management interface is enP7s7.
 */
import { describe, expect, it } from 'vitest'
import { parseManifest } from '../../src/manifest/load-manifest.js'
import { runChecks } from '../../src/preflight/checks/index.js'
import { BASE } from '../manifest/fixtures/base-manifest.js'
import { expectation, healthyFacts, withContainer } from '../preflight/fixtures/facts.js'

type Variable = 'NCCL_SOCKET_IFNAME' | 'GLOO_SOCKET_IFNAME'

const CASES: readonly { readonly variable: Variable; readonly value: string; readonly wrong: boolean; readonly why: string }[] = [
  { variable: 'NCCL_SOCKET_IFNAME', value: 'enp1s0f1np1', wrong: false, why: 'the fabric interface' },
  { variable: 'NCCL_SOCKET_IFNAME', value: 'enp1s0', wrong: false, why: 'NCCL matches name prefixes' },
  { variable: 'NCCL_SOCKET_IFNAME', value: '^docker,lo', wrong: false, why: 'an exclusion list leaves the fabric selected' },
  { variable: 'NCCL_SOCKET_IFNAME', value: '=enp1s0', wrong: true, why: '= makes the names exact' },
  { variable: 'NCCL_SOCKET_IFNAME', value: 'eth0', wrong: true, why: 'no such interface' },
  { variable: 'GLOO_SOCKET_IFNAME', value: 'enp1s0f1np1', wrong: false, why: 'the fabric interface' },
  { variable: 'GLOO_SOCKET_IFNAME', value: 'enp1s0', wrong: true, why: 'Gloo takes exact names, not prefixes' },
  { variable: 'GLOO_SOCKET_IFNAME', value: '^docker,lo', wrong: true, why: 'Gloo reads "^docker" as a name' },
  { variable: 'GLOO_SOCKET_IFNAME', value: 'enp1s0f1np1,eth9', wrong: true, why: 'every name must exist' },
]

const manifestWrong = (variable: Variable, value: string): boolean =>
  parseManifest(`${BASE}container:\n  env:\n    ${variable}: "${value}"\n`, 'm.yml').errors.some((e) => e.code === 'SOCKET_IFNAME_NOT_FABRIC')

const preflightWrong = (variable: Variable, value: string): boolean =>
  runChecks(
    withContainer(healthyFacts, 'spark-b', (c) => ({ ...c, env: { ...c.env, [variable]: value } })),
    expectation,
  ).some((f) => f.node === 'spark-b' && f.severity === 'error' && f.code.startsWith('SOCKET_IFNAME_'))

describe('validate and the preflight read socket interface lists the same way', () => {
  it.each(CASES)('$variable=$value: wrong=$wrong ($why)', ({ variable, value, wrong }) => {
    expect(manifestWrong(variable, value)).toBe(wrong)
    expect(preflightWrong(variable, value)).toBe(wrong)
  })
})
