import { describe, expect, it } from 'vitest'
import { findProgram, requireProgram } from '../../src/lab/preconditions.js'

describe('lab preconditions', () => {
  it('finds programs on PATH and by absolute path', () => {
    expect(findProgram('sh', '/nonexistent:/bin:/usr/bin')).toMatch(/\/sh$/)
    expect(findProgram('/bin/sh')).toBe('/bin/sh')
    expect(findProgram('vrd-lab-no-such-program', '/bin:/usr/bin')).toBeUndefined()
  })

  it('says exactly what to install when a tool is missing, and installs nothing', () => {
    const saved = process.env.PATH
    process.env.PATH = '/nonexistent'
    try {
      expect(requireProgram('debootstrap', 'build the node images')).toEqual({
        ok: false,
        problem: {
          code: 'missing-tool',
          message: 'debootstrap is not installed; the lab needs it to build the node images',
          fix: 'apt-get install -y debootstrap',
          evidence: {},
        },
      })
    } finally {
      process.env.PATH = saved
    }
    expect(requireProgram('sh', 'run scripts')).toMatchObject({ ok: true, value: expect.stringMatching(/\/sh$/) })
  })
})

describe('lab without a usable docker', () => {
  const withDocker = async <T>(bin: string, fn: () => Promise<T>): Promise<T> => {
    const saved = process.env.VRD_DOCKER
    process.env.VRD_DOCKER = bin
    try {
      return await fn()
    } finally {
      if (saved === undefined) delete process.env.VRD_DOCKER
      else process.env.VRD_DOCKER = saved
    }
  }

  it('up fails before changing anything, saying what to install', async () => {
    const { labUp } = await import('../../src/lab/index.js')
    const r = await withDocker('/nonexistent/docker', () => labUp({ dir: '/tmp/vrd-lab-precondition-test' }))
    if (r.ok) return expect.unreachable()
    expect(r.problem.code).toBe(process.getuid?.() === 0 ? 'missing-tool' : 'not-root')
    if (process.getuid?.() === 0) expect(r.problem.fix).toBe('apt-get install -y docker.io debootstrap')
  })

  it('up says how to start dockerd when the daemon does not answer', async () => {
    if (process.getuid?.() !== 0) return
    const { labUp } = await import('../../src/lab/index.js')
    const r = await withDocker('/bin/false', () => labUp({ dir: '/tmp/vrd-lab-precondition-test' }))
    if (r.ok) return expect.unreachable()
    expect(r.problem.code).toBe('docker-unreachable')
    expect(r.problem.fix).toMatch(/^start it: dockerd /)
  })

  it('status reports docker as unusable instead of throwing', async () => {
    const { labStatus } = await import('../../src/lab/index.js')
    const s = await withDocker('/bin/false', () => labStatus({ dir: '/tmp/vrd-lab-precondition-test' }))
    if (!s.ok) return expect.unreachable()
    expect(s.value.docker.ok).toBe(false)
    expect(s.value.healthy).toBe(false)
  })
})
