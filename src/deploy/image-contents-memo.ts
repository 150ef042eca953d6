/**
 * What the image-contents probe said about one image, kept with the release (its
 * `image-contents.json`, beside `image-id`), so a deploy of the same image ID reads it back from the
 * node state instead of starting a throw-away container again (issue 40: an unchanged redeploy ran
 * the probe every time, 0.4 s of a 3.5 s redeploy on the lab).
 *
 * What the probe prints depends only on the image's content (the image ID is its content's hash)
 * and on the probe program itself: the record names both, and is used only when both match. A new
 * image ID, or a probe program changed by an upgrade of this tool, reads the image again. The
 * record comes from a node, so it is checked like any document from outside; one that does not
 * fit is not used (the probe runs as before).
 */
import { createHash } from 'node:crypto'
import { z } from 'zod'
import { checkDocument } from '../manifest/external-document.js'
import { IMAGE_CONTENTS_PY, type ImageContents, ImageContentsSchema } from '../probe/image-contents-probe.js'

/** The probe program's identity: a record made by another program is not this program's answer. */
export const IMAGE_CONTENTS_PROBE_ID = `sha256:${createHash('sha256').update(IMAGE_CONTENTS_PY).digest('hex').slice(0, 16)}`

const RecordSchema = z
  .object({
    v: z.literal(1),
    imageId: z.string().max(200),
    probe: z.string().max(80),
    contents: ImageContentsSchema,
  })
  .strict()

/** The record for a release's `image-contents.json`: one JSON line. */
export const imageContentsRecord = (imageId: string, contents: ImageContents): string =>
  `${JSON.stringify({ v: 1, imageId, probe: IMAGE_CONTENTS_PROBE_ID, contents })}\n`

/**
 * The contents a node's current release recorded for `imageId`, or undefined when there is no
 * record, it is for another image ID or another probe program, or it does not fit its schema.
 */
export function rememberedImageContents(record: string | undefined, imageId: string): ImageContents | undefined {
  if (!record) return undefined
  let json: unknown
  try {
    json = JSON.parse(record)
  } catch {
    return undefined
  }
  const checked = checkDocument(RecordSchema, json)
  if (!checked.ok) return undefined
  const r = checked.value
  return r.imageId === imageId && r.probe === IMAGE_CONTENTS_PROBE_ID ? r.contents : undefined
}
