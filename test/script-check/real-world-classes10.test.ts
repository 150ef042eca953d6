/**
 * The class held-out10's real launch files (fixtures/real/README.md) showed, beside held-out9's one lost `\`: a multi-line
 * command bash does not read as one because no line of it has a `\` (a GB10 pair's Compose `command:` folded block, `- >-`,
 * whose more-indented flag lines keep their line breaks when YAML gives the string to `bash -c`), a `\` followed by a space (an
 * escaped space, not a continuation), and lines that start with `&&`/`||`/`|` after a line without `\` (bash's syntax error:
 * nothing in the script runs). SCRIPT_CONTINUATION_BROKEN names the lines, with one patch that puts every `\` back; a script
 * bash refuses only for that is read with them put back, so its other findings are there too.
 */
import { describe, expect, it } from 'vitest'
import { check, errors } from './support/launch-check.js'
import { parseDocument } from 'yaml'
import { applied } from './support/apply-patch.js'

describe('a command written over lines with no `\\`: SCRIPT_CONTINUATION_BROKEN from its first line, every `\\` in one patch', () => {
  it.each([
    // held-out10/timothystewart6's worker block, shape kept: `ray start` then each flag on a more-indented line
    [
      '        ray start\n          --address=${HEAD_IP}:6379\n          --node-ip-address=${WORKER_IP}\n          --block\n',
      1,
      4,
      '--address=${HEAD_IP}:6379',
    ],
    // a README's block pasted without its `\` (vllm serve, the flags under it)
    ['vllm serve Qwen/Qwen3-8B\n  --tensor-parallel-size 2\n  --distributed-executor-backend ray\n', 1, 3, '--tensor-parallel-size'],
    // a docker run whose options are each on a line, the last line the image and its command, written after a first command
    ['docker rm -f head || true\ndocker run -d --name head\n  --network host\n  -e VLLM_HOST_IP=10.0.0.1\n', 2, 4, '--network'],
  ])('%#', (text, first, last, option) => {
    const r = check(text)
    const f = r.findings.find((x) => x.code === 'SCRIPT_CONTINUATION_BROKEN')
    expect(f?.severity).toBe('error')
    expect(f?.evidence['Script line']).toBe(`launch.sh:${first}`)
    expect(f?.evidence['Command written over lines']).toBe(`${first}–${last}`)
    expect(f?.message).toContain(`named \`${option}\``)
    const fixed = applied(text, r.patch!)
    const lines = fixed.split('\n')
    for (let i = first; i < last; i++) expect(lines[i - 1]).toMatch(/ \\$/)
    expect(lines[last - 1]).not.toMatch(/\\$/)
    expect(errors(fixed).filter((e) => e.startsWith('SCRIPT_CONTINUATION_BROKEN'))).toEqual([])
  })

  it('once patched, the start it hid is read: its own bug is found (the head unpinned while VLLM_HOST_IP is set)', () => {
    const text = 'export VLLM_HOST_IP=192.168.200.12\nray start\n  --head\n  --port=6379\n'
    expect(errors(text)).toEqual(['SCRIPT_CONTINUATION_BROKEN@2'])
    // (the start's line is its last, where the pin goes)
    expect(errors(applied(text, check(text).patch!))).toEqual(['SCRIPT_HEAD_IDENTITY_UNPINNED@4'])
  })

  it('several lines lost their `\\` in a command that has some: one finding naming each, one patch', () => {
    const text = 'docker run -d \\\n  --network host\n  --name ray-head\n  --gpus all \\\n  img:latest ray start --head --node-ip-address=10.0.0.1 --block\n'
    const f = check(text).findings.find((x) => x.code === 'SCRIPT_CONTINUATION_BROKEN')
    expect(f?.evidence['Script line']).toBe('launch.sh:2')
    expect(f?.evidence['Lines without their \\']).toBe('2: --network host\n3: --name ray-head')
    expect(check(text).findings.filter((x) => x.code === 'SCRIPT_CONTINUATION_BROKEN')).toHaveLength(1)
    expect(errors(applied(text, check(text).patch!))).toEqual([])
  })
})

describe('a `\\` followed by a space or a tab: an escaped space, not a continuation', () => {
  it.each([
    ['docker run -d \\ \n  --name ray-head \\\n  img:latest ray start --head --node-ip-address=10.0.0.1 --block\n', 1, '--name'],
    ['ray start --head \\\n  --node-ip-address=10.0.0.1 \\\t\n  --port=6379\n', 2, '--port=6379'],
  ])('%#', (text, line, option) => {
    const r = check(text)
    const f = r.findings.find((x) => x.code === 'SCRIPT_CONTINUATION_BROKEN')
    expect(f?.evidence['Script line']).toBe(`launch.sh:${line}`)
    expect(f?.message).toContain('escaped space')
    expect(f?.message).toContain(`named \`${option}\``)
    const fixed = applied(text, r.patch!)
    expect(fixed.split('\n')[line - 1]).toMatch(/\\$/)
    expect(errors(fixed)).toEqual([])
  })
})

describe('lines that start with `&&`, `||` or `|` after a line without `\\`: bash refuses the script; read with the `\\` put back', () => {
  // held-out10/timothystewart6's head block as YAML gives it to `bash -c` (the folded block read by the yaml package itself)
  const compose = `services:\n  head:\n    entrypoint: ["/bin/bash", "-c"]\n    command:\n      - >-\n        ray start\n          --head\n          --port=6379\n        && sleep 60\n        && vllm serve m\n          --tensor-parallel-size 2\n          --distributed-executor-backend ray\n`
  const folded = String((parseDocument(compose).toJS() as { services: { head: { command: string[] } } }).services.head.command[0])

  it('the folded block as bash gets it: not SCRIPT_UNREADABLE but where each `\\` goes, and the patched block is read', () => {
    expect(folded).toContain('\n&& sleep 60 && vllm serve m\n')
    const r = check(folded)
    expect(r.findings.map((f) => f.code)).not.toContain('SCRIPT_UNREADABLE')
    expect(r.findings.every((f) => f.code === 'SCRIPT_CONTINUATION_BROKEN')).toBe(true)
    const fixed = applied(folded, r.patch!)
    expect(fixed).toBe(
      'ray start \\\n  --head \\\n  --port=6379 \\\n&& sleep 60 && vllm serve m \\\n  --tensor-parallel-size 2 \\\n  --distributed-executor-backend ray',
    )
    expect(errors(fixed)).toEqual([])
  })

  it.each([
    ['ray start --head --node-ip-address=10.0.0.1\n  && echo started\n', 2],
    ['ray status\n  || ray start --head --node-ip-address=10.0.0.1\n', 2],
    ['ray list nodes\n  | grep ALIVE\n', 2],
  ])('operator %#: the line before it gets its `\\`', (text, line) => {
    const r = check(text)
    const f = r.findings.find((x) => x.code === 'SCRIPT_CONTINUATION_BROKEN')
    expect(f?.evidence['Script line']).toBe(`launch.sh:${line}`)
    expect(f?.message).toContain('nothing in it runs')
    expect(errors(applied(text, r.patch!))).toEqual([])
  })

  it('the other findings of a script read so are there, each edit on the script as written', () => {
    // the seed incident behind the operator line: VLLM_HOST_IP set, the head's ray start not pinned
    const text = 'export VLLM_HOST_IP=192.168.200.12\nray start --head --port=6379\n  && sleep 5\n'
    const r = check(text)
    expect(errors(text)).toEqual(['SCRIPT_CONTINUATION_BROKEN@3', 'SCRIPT_HEAD_IDENTITY_UNPINNED@2'])
    const fixed = applied(text, r.patch!)
    expect(fixed).toBe('export VLLM_HOST_IP=192.168.200.12\nray start --head --port=6379 --node-ip-address=192.168.200.12 \\\n  && sleep 5\n')
    expect(errors(fixed)).toEqual([])
  })

  it.each([
    // another syntax error: still SCRIPT_UNREADABLE at bash's line
    ['if true; then\n  echo x\n', 'SCRIPT_UNREADABLE'],
    // an operator line after a blank line: not a command cut, bash's error stands
    ['ray start --head --node-ip-address=10.0.0.1\n\n&& echo started\n', 'SCRIPT_UNREADABLE'],
  ])('near miss %#: %s', (text, code) => {
    expect(check(text).findings.map((f) => f.code)).toEqual([code])
  })

  it.each([
    // an operator at the end of the line, the command going on below: valid bash
    'ray status ||\n  ray start --head --node-ip-address=10.0.0.1\n',
    // a `\` before the operator line: valid bash
    'ray status \\\n  || ray start --head --node-ip-address=10.0.0.1\n',
    // a here-document whose text has lines starting with options or pipes
    'cat > notes.md <<EOF\n| node | ip |\n--port 8000\nEOF\nray start --head --node-ip-address=10.0.0.1\n',
  ])('valid bash %#: no SCRIPT_CONTINUATION_BROKEN', (text) => {
    expect(check(text).findings.map((f) => f.code)).not.toContain('SCRIPT_CONTINUATION_BROKEN')
    expect(check(text).findings.map((f) => f.code)).not.toContain('SCRIPT_UNREADABLE')
  })
})

describe("the node's own host name against a name the job passes in: not known to differ (held-out12's oumi Polaris worker)", () => {
  it('export VLLM_HOST_IP="$(hostname -f)" beside --node-ip-address=${OUMI_MASTER_ADDR} (the job\'s first node name): no error', () => {
    const text =
      'export HOSTNAME=$(hostname -f)\nexport VLLM_HOST_IP="$HOSTNAME"\nray start -v --block --head --node-ip-address=${OUMI_MASTER_ADDR} --port=6379 &\n'
    expect(errors(text)).toEqual([])
  })
  it.each([
    // an address the node computes against an input: the seed incident's second bug (the lab's worker-override scenario's shape)
    'export VLLM_HOST_IP="$(hostname -I | awk \'{print $1}\')"\nray start --address=${HEAD_IP}:6379 --node-ip-address=${FABRIC_IP} --block\n',
    // a literal against the host name: still compared
    'export VLLM_HOST_IP=10.0.0.9\nray start --head --node-ip-address="$(hostname -f)" --port=6379\n',
  ])('near miss %#: still an override', (text) => {
    expect(errors(text).map((e) => e.split('@')[0])).toContain('SCRIPT_VLLM_HOST_IP_OVERRIDE')
  })
})

describe("a published template's angle-bracket placeholders: said once, the rest read with each as an input (held-out13)", () => {
  it.each([
    // ms-swift's multi-node rollout example (`--port <node1_port>`), OpenRLHF's Slurm example (`OPENRLHF_PATH=<OPENRLHF_ROOT_PATH>`)
    ['swift rollout \\\n    --model Qwen/Qwen3-8B \\\n    --port <node1_port>\n', 3, '<node1_port>'],
    ['OPENRLHF_PATH=<OPENRLHF_ROOT_PATH>\nMOUNT="$OPENRLHF_PATH:/openrlhf"\n', 1, '<OPENRLHF_ROOT_PATH>'],
  ])('%#', (text, line, placeholder) => {
    const f = check(text).findings.filter((x) => x.severity === 'error')
    expect(f.map((x) => `${x.code}@${x.evidence['Script line']?.split(':')[1]}`)).toEqual([`SCRIPT_UNREADABLE@${line}`])
    expect(f[0]?.message).toContain(placeholder)
    expect(f[0]?.message).toContain('template')
  })

  it("the template's own bug is still found, quoting the placeholder as written", () => {
    const text = 'export VLLM_HOST_IP=<head_fabric_ip>\nray start --head --port=6379 --block\n'
    const r = check(text)
    const head = r.findings.find((x) => x.code === 'SCRIPT_HEAD_IDENTITY_UNPINNED')
    expect(head?.severity).toBe('error')
    expect(head?.message).toContain('<head_fabric_ip>')
  })

  it.each([
    // a real redirection pair bash reads (`<in >out`), and a here-string: valid bash, nothing said
    'sort <hosts.txt >sorted.txt\nray start --head --node-ip-address=10.0.0.1\n',
    'read -r ip <<< "10.0.0.1"\nray start --head --node-ip-address="$ip"\n',
  ])('near miss %#: valid bash keeps its redirections', (text) => {
    expect(check(text).findings.map((f) => f.code)).not.toContain('SCRIPT_UNREADABLE')
  })

  it("other syntax errors beside a placeholder stay SCRIPT_UNREADABLE at bash's line", () => {
    const f = check('vllm serve m --port <port>\nif true; then\n').findings
    expect(f.map((x) => x.code)).toEqual(['SCRIPT_UNREADABLE'])
    expect(f[0]?.message).not.toContain('template')
  })
})
