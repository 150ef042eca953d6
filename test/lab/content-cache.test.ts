/**
 * The lab's images are reused by content (issue 40's fresh start): a build is kept under a content
 * tag, so a clone or lab instance whose content hashes the same takes it back with a `docker tag`
 * after another one moved the image's fixed name to other content. Driven through a stub docker
 * (a shell script) that keeps its tags in a file and answers `image inspect` from them.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { dockerCommands } from '../../src/lab/docker-commands.js'
import { cachedImage, contentRef, keepByContent } from '../../src/lab/images.js'
import type { LabContext } from '../../src/lab/lab-context.js'
import { LabRunner } from '../../src/lab/lab-runner.js'

/** tags file: one `ref<TAB>image id<TAB>hash label` line per tag. */
const STUB = `#!/bin/sh
tags="$(dirname "$0")/tags"
echo "$*" >>"$(dirname "$0")/calls"
case "$1 $2" in
  "image inspect")
    line=$(awk -F'\\t' -v r="$3" '$1 == r' "$tags")
    [ -n "$line" ] || { echo '[]'; echo "Error: No such image: $3" >&2; exit 1; }
    id=$(printf '%s' "$line" | cut -f2); hash=$(printf '%s' "$line" | cut -f3)
    names=$(awk -F'\\t' -v i="$id" '$2 == i { printf "%s\\"%s\\"", s, $1; s="," }' "$tags")
    printf '[{"Id":"%s","RepoTags":[%s],"Config":{"Labels":{"vrd-lab.hash":"%s"}}}]\\n' "$id" "$names" "$hash" ;;
  "tag "*)
    line=$(awk -F'\\t' -v r="$2" '$1 == r' "$tags")
    awk -F'\\t' -v r="$3" '$1 != r' "$tags" >"$tags.new"; mv "$tags.new" "$tags"
    printf '%s\\t%s\\n' "$3" "$(printf '%s' "$line" | cut -f2-)" >>"$tags" ;;
  *) exit 2 ;;
esac
`

describe('lab images cached by content', () => {
  let dir: string
  let ctx: LabContext
  const progress: string[] = []
  const calls = () => readFileSync(join(dir, 'calls'), 'utf8').trim().split('\n')
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'vrd-content-cache-'))
    writeFileSync(join(dir, 'docker'), STUB)
    chmodSync(join(dir, 'docker'), 0o755)
    writeFileSync(join(dir, 'calls'), '')
    progress.length = 0
    const docker = join(dir, 'docker')
    ctx = {
      runner: new LabRunner((m) => progress.push(m)),
      dockerBin: docker,
      docker: dockerCommands(docker),
      progress: (m: string) => progress.push(m),
    } as unknown as LabContext
  })
  afterEach(() => rmSync(dir, { recursive: true, force: true }))
  const tags = (lines: string[]) => writeFileSync(join(dir, 'tags'), lines.map((l) => `${l}\n`).join(''))

  const idOf = (r: Awaited<ReturnType<typeof cachedImage>>) => (r.ok ? r.value?.id : r.problem.message)

  it('names the content tag after the image and the hash', () => {
    expect(contentRef('vrd-lab/node:latest', 'abc123')).toBe('vrd-lab/node:h-abc123')
    expect(contentRef('127.0.0.1:5000/vrd-lab/x:latest', 'ff')).toBe('127.0.0.1:5000/vrd-lab/x:h-ff')
  })

  it('takes a build back from its content tag after another clone moved the name: a docker tag, no build', async () => {
    tags(['vrd-lab/node:latest\tsha256:other\tbbbb', 'vrd-lab/node:h-aaaa\tsha256:mine\taaaa'])
    const got = await cachedImage(ctx, 'vrd-lab/node:latest', 'aaaa')
    expect(got.ok && got.value?.id).toBe('sha256:mine')
    expect(calls()).toContain('tag vrd-lab/node:h-aaaa vrd-lab/node:latest')
    expect(readFileSync(join(dir, 'tags'), 'utf8')).toContain('vrd-lab/node:latest\tsha256:mine\taaaa')
  })

  it('is undefined when no image of this content is there under either name (it must be built)', async () => {
    tags(['vrd-lab/node:latest\tsha256:other\tbbbb'])
    expect(await cachedImage(ctx, 'vrd-lab/node:latest', 'aaaa')).toEqual({ ok: true, value: undefined })
    expect(calls().some((c) => c.startsWith('tag'))).toBe(false)
  })

  it('gives an image built before content tags its content tag, and reuses it', async () => {
    tags(['vrd-lab/node:latest\tsha256:mine\taaaa'])
    expect(idOf(await cachedImage(ctx, 'vrd-lab/node:latest', 'aaaa'))).toBe('sha256:mine')
    expect(calls()).toContain('tag vrd-lab/node:latest vrd-lab/node:h-aaaa')
    // The next time it is there already: no tag.
    writeFileSync(join(dir, 'calls'), '')
    expect(idOf(await cachedImage(ctx, 'vrd-lab/node:latest', 'aaaa'))).toBe('sha256:mine')
    expect(calls().some((c) => c.startsWith('tag'))).toBe(false)
  })

  it('keepByContent tags a fresh build with its content tag', async () => {
    tags(['vrd-lab/node:latest\tsha256:new\tcccc'])
    expect(await keepByContent(ctx, 'vrd-lab/node:latest', 'cccc')).toEqual({ ok: true, value: undefined })
    expect(calls()).toEqual(['tag vrd-lab/node:latest vrd-lab/node:h-cccc'])
  })
})
