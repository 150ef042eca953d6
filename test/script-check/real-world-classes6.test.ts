/**
 * The classes held-out6's real scripts (fixtures/real/README.md) showed, each in several styles and with near misses that
 * must stay as they were: Ray's CLI run as its module (`python -m ray.scripts.scripts start`); tmux panes that run a
 * shell-command (`new-session`/`new-window … "cmd"`, `-e NAME=value`) or read typed keys (`send-keys 'cmd' Enter`); a template
 * placeholder (`'{{ ray_head_address }}'`, filled in by Ansible before the shell runs) is an input, not a bad address; a
 * VLLM_HOST_IP the node computes is not known to differ from a literal Ray identity; a variable that holds a start's whole
 * command line takes the missing pin in its own definition.
 */
import { describe, expect, it } from 'vitest'
import { checkLaunchScript } from '../../src/script-check/index.js'
import { applied } from './support/apply-patch.js'

const check = (text: string) => checkLaunchScript(text, { path: 'launch.sh' })
const errors = (text: string) =>
  check(text)
    .findings.filter((f) => f.severity === 'error')
    .map((f) => `${f.code}@${f.evidence['Script line']?.split(':')[1]}`)

/** The finding's patch applies and leaves no error. */
function fixes(text: string): string {
  const r = check(text)
  expect(r.patch, 'a patch').toBeDefined()
  const after = applied(text, r.patch!)
  expect(errors(after)).toEqual([])
  return after
}

describe("Ray's CLI run as its module is `ray start`", () => {
  // abdshomad/learn-vllm-from-pavlo scripts/04_start_ray_head.sh and 05_start_ray_worker.sh: `uv run python -m
  // ray.scripts.scripts start --head --node-ip-address "$NODE_IP" …` (ray's console script is ray=ray.scripts.scripts:main).
  it('a head run through uv, unpinned while VLLM_HOST_IP is set: the seed incident, pinned by the patch', () => {
    const text = 'export VLLM_HOST_IP=10.0.0.1\nuv run python -m ray.scripts.scripts start --head --port 6379 --dashboard-host 0.0.0.0\n'
    expect(errors(text)).toEqual(['SCRIPT_HEAD_IDENTITY_UNPINNED@2'])
    expect(fixes(text)).toContain('ray.scripts.scripts start --head --port 6379 --dashboard-host 0.0.0.0 --node-ip-address=10.0.0.1')
  })
  it('python3 directly, a worker whose VLLM_HOST_IP differs from its identity', () => {
    const text = 'VLLM_HOST_IP=10.0.0.7 python3 -m ray.scripts.scripts start --address=10.0.0.1:6379 --node-ip-address=10.0.0.2\n'
    expect(errors(text)).toEqual(['SCRIPT_VLLM_HOST_IP_OVERRIDE@1'])
  })
  it('under nohup, with -u before -m, pinned to the same address: clean', () => {
    expect(
      errors('export VLLM_HOST_IP=10.0.0.2\nnohup python3.11 -u -m ray.scripts.scripts start --address=10.0.0.1:6379 --node-ip-address=10.0.0.2 &\n'),
    ).toEqual([])
  })
  it('near misses: another subcommand, another module, and text that only prints the words start nothing', () => {
    for (const line of [
      'uv run python -m ray.scripts.scripts status --address 10.0.0.1:6379',
      'python -m ray_scripts start --head',
      'echo python -m ray.scripts.scripts start --head',
      'python -c "import ray.scripts.scripts" start --head',
    ])
      expect(errors(`export VLLM_HOST_IP=10.0.0.1\n${line}\n`), line).toEqual([])
  })
})

describe('tmux panes run their shell-command, and a pane reads the keys sent to it', () => {
  // chrisyeh96/sustaingym examples/run_tmux_template.sh: `cmd="ray start --head"`, then `tmux new-session -d -s $sessionname -n
  // main -d "$start $cmd $end"` with start="bash -i -c \"conda activate … && " and end="; bash\"".
  const sustaingym = (cmd: string) =>
    `start="bash -i -c \\"conda activate env && "\nend="; bash\\""\nsessionname=s\ncmd="${cmd}"\ntmux new-session -d -s $sessionname -n main -d "$start $cmd $end"\n`
  it('new-session with a command built from variables: found, pinned in the variable that holds the start', () => {
    const text = sustaingym('VLLM_HOST_IP=10.0.0.1 ray start --head')
    expect(errors(text)).toEqual(['SCRIPT_HEAD_IDENTITY_UNPINNED@4'])
    expect(fixes(text)).toContain('cmd="VLLM_HOST_IP=10.0.0.1 ray start --head --node-ip-address=10.0.0.1"')
  })
  it('as published (no VLLM_HOST_IP): clean', () => {
    expect(errors(sustaingym('ray start --head'))).toEqual([])
  })
  it("new-window's -e setting reaches the pane's shell; grouped flags and -c take their values", () => {
    const text = 'tmux new-window -d -t ray:1 -c /srv -e VLLM_HOST_IP=10.0.0.1 "ray start --head --port 6379 --block"\n'
    expect(errors(text)).toEqual(['SCRIPT_HEAD_IDENTITY_UNPINNED@1'])
    fixes(text)
    expect(errors('tmux split-window -dh -eVLLM_HOST_IP=10.0.0.2 "ray start --address=10.0.0.1:6379 --node-ip-address=10.0.0.9"\n')).toEqual([
      'SCRIPT_VLLM_HOST_IP_OVERRIDE@1',
    ])
  })
  it("the script's exports reach a pane the script's new-session starts", () => {
    expect(errors('export VLLM_HOST_IP=10.0.0.1\ntmux new-session -d -s ray "ray start --head --block"\n')).toEqual(['SCRIPT_HEAD_IDENTITY_UNPINNED@2'])
  })
  it('send-keys: the typed line runs at Enter/C-m, in a shell that has none of this shell’s variables', () => {
    expect(errors("tmux send-keys -t ray:head 'VLLM_HOST_IP=10.0.0.1 ray start --head --port 6379' C-m\n")).toEqual(['SCRIPT_HEAD_IDENTITY_UNPINNED@1'])
    expect(errors('tmux send-keys -t ray:w1 "VLLM_HOST_IP=10.0.0.5 ray start --address=10.0.0.1:6379 --node-ip-address=10.0.0.2" Enter\n')).toEqual([
      'SCRIPT_VLLM_HOST_IP_OVERRIDE@1',
    ])
    // The pane's shell was started before; this script's export is not its environment.
    expect(errors('export VLLM_HOST_IP=10.0.0.1\ntmux send-keys -t "$SESSION:head" "ray start --head --port $PORT" C-m\n')).toEqual([])
  })
  it('near misses: literal keys (-l), keys never entered, and tmux commands that run nothing read no start', () => {
    for (const line of [
      "tmux send-keys -l -t ray 'VLLM_HOST_IP=10.0.0.1 ray start --head' Enter",
      "tmux send-keys -t ray 'VLLM_HOST_IP=10.0.0.1 ray start --head'",
      'tmux display-message "VLLM_HOST_IP=10.0.0.1 ray start --head"',
      'tmux rename-window -t 0 "VLLM_HOST_IP=10.0.0.1 ray start --head"',
      'tmux new-session -d -s ray',
    ])
      expect(errors(`${line}\n`), line).toEqual([])
  })
})

describe('a template placeholder is an input filled in before the shell runs, not a bad address', () => {
  // Szymongr14/JunkClusterBenchmark ansible/roles/ray/tasks/start_ray_on_worker_nodes.yaml: the `shell: |` block `nohup …/poetry
  // run ray start --address='{{ ray_head_address }}' > … 2>&1 &`, which Ansible (Jinja2) fills in from group_vars.
  it('Ansible/Jinja2 in single quotes, double quotes, unquoted without blanks, and split by blanks: no loopback error', () => {
    for (const line of [
      "nohup poetry run ray start --address='{{ ray_head_address }}' > ray.log 2>&1 &",
      'ray start --address="{{ head_ip }}:6379" --node-ip-address="{{ ansible_host }}"',
      'ray start --address={{head_ip}}:6379',
      'ray start --address={{ head_ip }}:6379',
      'ray start --head --node-ip-address={{ .Values.head.ip }} --port=6379',
    ])
      expect(errors(`${line}\n`), line).toEqual([])
  })
  it('two different placeholders for one node are compared as two inputs are', () => {
    expect(errors('VLLM_HOST_IP="{{ fabric_ip }}" ray start --address=10.0.0.1:6379 --node-ip-address="{{ mgmt_ip }}"\n')).toEqual([
      'SCRIPT_VLLM_HOST_IP_OVERRIDE@1',
    ])
    expect(errors('VLLM_HOST_IP="{{ node_ip }}" ray start --address=10.0.0.1:6379 --node-ip-address="{{ node_ip }}"\n')).toEqual([])
  })
  it('near misses: words that are no address are still named, and a placeholder beside a known bad value does not hide it', () => {
    expect(errors("ray start --address='head node:6379'\n")).toEqual(['SCRIPT_LOOPBACK_IDENTITY@1'])
    expect(errors('ray start --address=127.0.0.1:6379 --resources=\'{"{{ x }}": 1}\'\n')).toEqual(['SCRIPT_LOOPBACK_IDENTITY@1'])
  })
})

describe('a VLLM_HOST_IP the node computes is not known to differ from a literal Ray identity', () => {
  // LQR471814/x.vllm-distributed Makefile: `export VLLM_HOST_IP := $(shell ip -j addr show | jq … startswith("192.168.20") …)`
  // for every recipe, the head pinned to 192.168.20.1 and the worker to 192.168.20.2.
  const exp = `export VLLM_HOST_IP="$(ip -j addr show | jq -r '.[ ] | .addr_info[] | select(.local | startswith("192.168.20")) | .local')"\n`
  it('the Makefile style (both roles, one computed setting), hostname -I, and backquotes: clean', () => {
    expect(
      errors(
        `${exp}uv run ray start --head --port 6379 --node-ip-address 192.168.20.1 --block\nuv run ray start --node-ip-address 192.168.20.2 --address 192.168.20.1:6379 --block\n`,
      ),
    ).toEqual([])
    expect(errors("export VLLM_HOST_IP=$(hostname -I | awk '{print $1}')\nray start --head --node-ip-address 10.0.0.1\n")).toEqual([])
    expect(errors('export VLLM_HOST_IP=`hostname -i`\nray start --address=10.0.0.1:6379 --node-ip-address=10.0.0.2\n')).toEqual([])
  })
  it('near misses: a literal VLLM_HOST_IP against a computed identity, two literals, and an injected literal stay errors', () => {
    expect(errors('export VLLM_HOST_IP=10.0.0.9\nray start --head --node-ip-address=$(hostname -I | cut -d" " -f1)\n')).toEqual([
      'SCRIPT_VLLM_HOST_IP_OVERRIDE@1',
    ])
    expect(errors('export VLLM_HOST_IP=10.0.0.9\nray start --head --node-ip-address=10.0.0.1\n')).toEqual(['SCRIPT_VLLM_HOST_IP_OVERRIDE@1'])
    expect(
      errors(
        `${exp}uv run ray start --head --port 6379 --node-ip-address 192.168.20.1 --block\nexport VLLM_HOST_IP=10.99.0.2\nuv run ray start --node-ip-address 192.168.20.2 --address 192.168.20.1:6379 --block\n`,
      ),
    ).toEqual(['SCRIPT_VLLM_HOST_IP_OVERRIDE@3'])
  })
})

describe("a variable that holds a start's whole command line takes the missing pin in its definition", () => {
  it('a command variable inside a larger string another shell runs: the edit is in the variable', () => {
    const text = 'export VLLM_HOST_IP=10.0.0.1\nCMD="ray start --head --port=6379"\nbash -lc "source env.sh && $CMD --block"\n'
    expect(errors(text)).toEqual(['SCRIPT_HEAD_IDENTITY_UNPINNED@3'])
    fixes(text)
    const text2 = 'export VLLM_HOST_IP=10.0.0.1\nCMD="ray start --head --port=6379"\nbash -lc "source env.sh && $CMD"\n'
    expect(fixes(text2)).toContain('CMD="ray start --head --port=6379 --node-ip-address=10.0.0.1"')
  })
  it('near miss: a variable that holds one value keeps the pin after its reference, never in its definition', () => {
    const text = 'export VLLM_HOST_IP=10.0.0.1\nPORT=6379\nbash -c "ray start --head --port=$PORT"\n'
    const after = fixes(text)
    expect(after).toContain('PORT=6379\n')
    expect(after).toContain('--port=$PORT --node-ip-address=10.0.0.1"')
  })
})
