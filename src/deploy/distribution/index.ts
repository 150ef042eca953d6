/**
 * The registry of image distribution modes, one entry per value of `image.distribution` (a test
 * holds it against the manifest schema's enum). A new mode is a new module here and its enum value.
 */
import type { Manifest } from '../../manifest/schema.js'
import { load } from './load.js'
import { preloaded } from './preloaded.js'
import { pull } from './pull.js'
import { relay } from './relay.js'
import type { Distribution } from './types.js'

export const DISTRIBUTIONS: { readonly [K in Manifest['image']['distribution']]: Distribution } = { pull, load, relay, preloaded }

export const distributionOf = (m: Manifest): Distribution => DISTRIBUTIONS[m.image.distribution]

export type { Distribution } from './types.js'
