/**
 * The manifest's constants that code outside the schema reads (the Action's inputs, the facts'
 * bounds, the parse), in a module without zod: importing them does not build the schema.
 */

/** What a failed deploy does (also the Action's `on-failure` input, which overrides it). */
export const ON_FAILURE = ['rollback', 'stop', 'keep'] as const
export type OnFailure = (typeof ON_FAILURE)[number]

/**
 * The most nodes a manifest or a facts bundle may name: far past any cluster rolled out over SSH
 * (vLLM's largest published multi-node set-ups are tens of nodes), and what keeps the checks over
 * the largest accepted input bounded in memory and time (their pairwise comparisons grow with it).
 */
export const MAX_CLUSTER_NODES = 512
/** Ray keeps dead nodes in ray.nodes() while the head lives: room for many restarts of each node. */
export const MAX_RAY_NODES = 8 * MAX_CLUSTER_NODES

/** Top-level keys with this prefix are set aside before validation (YAML anchors, notes). */
export const EXTENSION_KEY_PREFIX = 'x-'
