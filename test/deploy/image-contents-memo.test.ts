/** The image-contents record kept with a release: used only for its own image ID and probe program, and only when it fits. */
import { describe, expect, it } from 'vitest'
import { IMAGE_CONTENTS_PROBE_ID, imageContentsRecord, rememberedImageContents } from '../../src/deploy/image-contents-memo.js'
import { parseNodeState } from '../../src/deploy/node-state.js'
import type { ImageContents } from '../../src/probe/image-contents-probe.js'
import { STANDIN_CONTENTS as STANDIN } from './support/sim-cluster.js'

const STANDIN_CONTENTS = STANDIN as ImageContents

const ID = `sha256:${'a'.repeat(64)}`

describe('rememberedImageContents', () => {
  it('gives back what the record holds for the same image ID, through the node-state line', () => {
    const record = imageContentsRecord(ID, STANDIN_CONTENTS)
    expect(record.endsWith('\n')).toBe(true)
    const state = parseNodeState('spark-a', `current=r1\nimage-id=${ID}\nimage-contents=${record.trim()}\n`)
    expect(rememberedImageContents(state.imageContentsRecord, ID)).toEqual(STANDIN_CONTENTS)
  })

  it('is undefined for another image ID, another probe program, no record, or one that is not the record', () => {
    const record = JSON.parse(imageContentsRecord(ID, STANDIN_CONTENTS)) as Record<string, unknown>
    expect(rememberedImageContents(JSON.stringify(record), `sha256:${'b'.repeat(64)}`)).toBeUndefined()
    expect(rememberedImageContents(JSON.stringify({ ...record, probe: 'sha256:0' }), ID)).toBeUndefined()
    expect(record.probe).toBe(IMAGE_CONTENTS_PROBE_ID)
    expect(rememberedImageContents(undefined, ID)).toBeUndefined()
    expect(rememberedImageContents('not json', ID)).toBeUndefined()
    expect(rememberedImageContents(JSON.stringify({ ...record, extra: 1 }), ID)).toBeUndefined()
    expect(rememberedImageContents(JSON.stringify({ ...record, contents: { ...STANDIN_CONTENTS, ray: 'yes' } }), ID)).toBeUndefined()
  })
})
