/**
 * The class held-out9's real scripts (fixtures/real/README.md) showed: a multi-line command whose `\` went missing on one
 * line. bash ends the command at that line and runs the next as a command of its own, named by an option (`--name: command
 * not found`; held-out batch 18's capture of the same mistake: `bash: 行 9: -e: 未找到命令` after `docker: 'docker run' requires
 * at least 1 argument`), so the container starts without the rest: its name, its image, the `ray start` or `vllm serve` it
 * was given. SCRIPT_CONTINUATION_BROKEN names the line that lost its `\`, with a patch that puts it back.
 */
import { describe, expect, it } from 'vitest'
import { checkLaunchScript } from '../../src/script-check/index.js'
import { ok } from '../../src/result/result.js'
import { applied } from './support/apply-patch.js'

const check = (text: string) => checkLaunchScript(text, { path: 'launch.sh' })
const errors = (text: string) =>
  check(text)
    .findings.filter((f) => f.severity === 'error')
    .map((f) => `${f.code}@${f.evidence['Script line']?.split(':')[1]}`)

describe('a multi-line command cut by a missing `\\`: SCRIPT_CONTINUATION_BROKEN at the line, with a patch', () => {
  it.each([
    [
      // held-out9/makiisthenes-run_cluster_persistent.sh's shape: the docker run of vLLM's run_cluster.sh, one `\` lost
      'docker run -d \\\n    --entrypoint /bin/bash \\\n    --network host \\\n    --ulimit stack=67108864\n    --name "${CONTAINER_NAME}" \\\n    --gpus all \\\n    "${DOCKER_IMAGE}" \\\n    -c "ray start --head --node-ip-address=10.0.0.1 --block"\n',
      4,
      '--name',
    ],
    [
      // held-out batch 18's (richard0571, a four-Spark native start): `-e` run as a command after the volume line
      'docker run -d --name vllm --network host --gpus all \\\n  -v /models:/models\n  -e VLLM_HOST_IP=10.0.0.2 \\\n  vllm/vllm-openai:latest --nnodes 2 --node-rank 1 --master-addr 10.0.0.1 --headless\n',
      2,
      '-e',
    ],
    [
      // a bare ray start whose port line lost its `\` (the head then starts on the default port, and `--port=6379` fails)
      'ray start --head \\\n  --node-ip-address=10.0.0.1\n  --port=6379 \\\n  --block\n',
      2,
      '--port=6379',
    ],
  ])('%#', (text, line, option) => {
    const r = check(text)
    const f = r.findings.find((x) => x.code === 'SCRIPT_CONTINUATION_BROKEN')
    expect(f?.severity).toBe('error')
    expect(f?.evidence['Script line']).toBe(`launch.sh:${line}`)
    expect(f?.message).toContain(`named \`${option}\``)
    expect(f?.patch).toBeDefined()
    const fixed = applied(text, f!.patch!)
    expect(fixed.split('\n')[line - 1]).toMatch(/ \\$/)
    expect(errors(fixed).filter((e) => e.startsWith('SCRIPT_CONTINUATION_BROKEN'))).toEqual([])
  })

  it('the cut hides the start: once patched, the head it starts is read (here pinned: no error at all)', () => {
    const text = 'docker run -d \\\n  --network host\n  --name ray-head \\\n  img:latest \\\n  ray start --head --node-ip-address=10.0.0.1 --block\n'
    expect(errors(text)).toEqual(['SCRIPT_CONTINUATION_BROKEN@2'])
    expect(errors(applied(text, check(text).patch!))).toEqual([])
  })

  it("in a sourced file: the file's own line, and the patch edits that file", () => {
    const lib =
      'start_head() {\n  docker run -d \\\n    --network host\n    --name ray-head \\\n    img:latest ray start --head --node-ip-address=10.0.0.1 --block\n}\n'
    const r = checkLaunchScript('source ./lib.sh\nstart_head\n', { path: 'launch.sh', readSourced: (p) => ok(p === './lib.sh' || p === 'lib.sh' ? lib : '') })
    const f = r.findings.find((x) => x.code === 'SCRIPT_CONTINUATION_BROKEN')
    expect(f?.evidence['Script line']).toBe('lib.sh:3')
    expect(f?.message).toContain('line 3 of lib.sh ends without')
    expect(f?.patch).toMatch(/^\+\+\+ b\/lib\.sh$/m)
  })

  it.each([
    // a here-document's lines that start with options are its text, not commands
    'cat > args.txt <<EOF\n--tensor-parallel-size 2 \\\n--max-model-len 8192\n--port 8000\nEOF\n',
    // a string over several lines
    'ARGS="--tensor-parallel-size 2 \\\n  --max-model-len 8192\n  --port 8000"\nvllm serve m $ARGS\n',
    // a command that ended (no `\` on the line before it either) and a next line that is a real command
    'docker pull img:latest\ndocker run -d --network host img:latest ray start --head --node-ip-address=10.0.0.1\n',
    // a comment between the lines of a command ends it in bash too, but that is a different mistake; a commented option line is none
    'vllm serve m \\\n  --port 8000\n# --enforce-eager\necho done\n',
  ])('near miss %#: no SCRIPT_CONTINUATION_BROKEN', (text) => {
    expect(check(text).findings.map((f) => f.code)).not.toContain('SCRIPT_CONTINUATION_BROKEN')
  })
})

describe("a template engine's placeholder is one word, an input, quoted as written (Ansible `shell:` blocks, Helm, `.j2` scripts)", () => {
  it("held-out9/ladam's worker block: `--name ray-worker-{{ inventory_hostname }}` no longer makes `inventory_hostname` the image", () => {
    // (the block as published, with a second VLLM_HOST_IP put in the container's command)
    const text =
      'docker run -d --gpus all --network host --ipc=host \\\n-v /models:/models \\\n--name ray-worker-{{ inventory_hostname }} \\\nvllm-node:latest \\\nbash -c "VLLM_HOST_IP=10.99.0.2 ray start \\\n--node-ip-address=$(hostname -I | awk \'{print $1}\') \\\n--address={{ ray_head_ip }}:{{ ray_port }} \\\n--num-gpus=1 \\\n--block"\n'
    expect(errors(text)).toEqual(['SCRIPT_VLLM_HOST_IP_OVERRIDE@5'])
  })

  it('a placeholder in a value is quoted and patched as written', () => {
    const text = 'docker run -d --network host -e VLLM_HOST_IP={{ fabric_ip }} --name ray-head img bash -c "ray start --head --port=6379 --block"\n'
    const r = check(text)
    const f = r.findings.find((x) => x.code === 'SCRIPT_HEAD_IDENTITY_UNPINNED')
    expect(f?.message).toContain('VLLM_HOST_IP is {{ fabric_ip }}')
    expect(r.patch).toContain('--node-ip-address={{ fabric_ip }}"')
    expect(errors(applied(text, r.patch!))).toEqual([])
  })

  it("Helm's `{{ .Values.… }}` in a container command's script: the head's start is read", () => {
    const text = 'export VLLM_HOST_IP={{ .Values.fabric.headIp }}\nray start --head --port={{ .Values.ray.port | default 6379 }} --dashboard-host=0.0.0.0\n'
    expect(errors(text)).toEqual(['SCRIPT_HEAD_IDENTITY_UNPINNED@2'])
  })

  it("near miss: docker's Go format string in single quotes stays a format (an address the node computes, pinned: no error)", () => {
    const text =
      "HEAD_IP=$(docker inspect -f '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}' ray-head)\nexport VLLM_HOST_IP=$HEAD_IP\nray start --head --node-ip-address=$HEAD_IP --port=6379\n"
    expect(errors(text)).toEqual([])
  })
})
