import { execFileSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { and, argv, pipe, quote, render, renderScript, seq, toFile, withEnv, group, mergeStderr } from '../../src/command/shell.js'

const HOSTILE = [
  'plain',
  '',
  'with space',
  "it's",
  '"double"',
  '$(touch /tmp/vrd-pwned)',
  '`id`',
  'a;b',
  'line1\nline2',
  '\ttab',
  '$HOME',
  '${HOME}',
  '!bang',
  '*',
  '~',
  '--flag=value with space',
  "''''",
  '\\',
  'back\\slash\\n',
  '|&<>(){}[]#',
  'ünïcødé ✓',
  '-n',
  '-e',
]

/** Run a rendered line in a real shell and return what `printf '%s\0'` received. */
function throughShell(shell: string, line: string): string[] {
  const out = execFileSync(shell, ['-c', line], { encoding: 'utf8' })
  return out.split('\0').slice(0, -1)
}

describe('quote/render', () => {
  for (const shell of ['sh', 'bash', 'dash']) {
    it(`every hostile argument survives ${shell} byte for byte`, () => {
      const line = render(argv('printf', '%s\\0', ...HOSTILE))
      expect(throughShell(shell, line)).toEqual(HOSTILE)
    })
  }

  it('survives random strings (fuzz, 500 cases, fixed seed)', () => {
    let seed = 42
    const rand = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff
      return seed / 0x7fffffff
    }
    const alphabet = ' \t\n\'"`$\\;|&<>(){}[]*?~!#=%-_.,:/aZ09é'
    const cases = Array.from({ length: 500 }, () =>
      Array.from({ length: Math.floor(rand() * 12) }, () => alphabet[Math.floor(rand() * alphabet.length)]).join(''),
    )
    const line = render(argv('printf', '%s\\0', ...cases))
    expect(throughShell('sh', line)).toEqual(cases)
  })

  it('keeps safe words bare and quotes the rest', () => {
    expect(quote('docker')).toBe('docker')
    expect(quote('--node-ip-address=192.168.200.12')).toBe('--node-ip-address=192.168.200.12')
    expect(quote('a b')).toBe("'a b'")
    expect(quote("it's")).toBe("'it'\\''s'")
    expect(quote('')).toBe("''")
  })

  it('rejects NUL bytes and bad env names instead of producing a broken line', () => {
    expect(() => quote('a\0b')).toThrow(/NUL/)
    expect(() => render(withEnv({ 'BAD NAME': 'x' }, 'true'))).toThrow(/invalid environment variable name/)
  })

  it('renders env assignments whose values survive the shell', () => {
    const line = render(withEnv({ VLLM_HOST_IP: '192.168.200.12; rm -rf /', X: '$(id)' }, 'sh', '-c', 'printf "%s|%s" "$VLLM_HOST_IP" "$X"'))
    expect(execFileSync('sh', ['-c', line], { encoding: 'utf8' })).toBe('192.168.200.12; rm -rf /|$(id)')
  })

  it('renders sequences, pipes, groups and redirects with the right structure', () => {
    const cmd = and(argv('mkdir', '-p', '/tmp/a b'), pipe(argv('echo', 'x y'), argv('tr', 'a-z', 'A-Z')))
    expect(render(cmd)).toBe("mkdir -p '/tmp/a b' && ( echo 'x y' | tr a-z A-Z )")
    expect(render(toFile(argv('echo', 'hi'), '/tmp/o u t', true))).toBe("echo hi >> '/tmp/o u t'")
    expect(render(mergeStderr(seq(argv('false'), argv('true'))))).toBe('( false; true ) 2>&1')
    expect(render(group(argv('true')))).toBe('( true )')
  })

  it('renderScript fails the whole script on a failing step or pipeline stage', () => {
    const failingPipe = renderScript(seq(pipe(argv('false'), argv('cat')), argv('echo', 'reached')))
    expect(() => execFileSync('bash', ['-c', failingPipe], { encoding: 'utf8', stdio: 'pipe' })).toThrow()
    const ok = renderScript(and(argv('true'), argv('echo', 'done')))
    expect(execFileSync('sh', ['-c', ok], { encoding: 'utf8' })).toBe('done\n')
  })
})
