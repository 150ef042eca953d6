/**
 * Container image references, following the grammar of distribution/reference (what `docker pull`
 * accepts): `[registry-host[:port]/]path/components[:tag][@sha256:<64 hex>]`.
 * Pure; `parseImageReference` says what is wrong, `IMAGE_REFERENCE_PATTERN` is the same grammar
 * as one regular expression for the JSON Schema.
 */
import { fail, ok, type Parsed, problem } from '../result/result.js'

export interface ImageReference {
  /** Registry host (and port) when the reference names one, e.g. `ghcr.io` or `localhost:5000`. */
  readonly registry?: string
  /** Repository path without the registry, e.g. `hellohal2064/vllm-qwen3.5-gb10`. */
  readonly repository: string
  readonly tag?: string
  /** `sha256:<64 hex>` when the reference pins one. */
  readonly digest?: string
}

const ALNUM = '[a-z0-9]+'
const SEPARATOR = '(?:[._]|__|[-]+)'
const PATH_COMPONENT = `${ALNUM}(?:${SEPARATOR}${ALNUM})*`
const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])'
const HOST = `(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|\\[[0-9a-fA-F:.]+\\])`
const DOMAIN = `${HOST}(?::[0-9]+)?`
const TAG = '[\\w][\\w.-]{0,127}'
const DIGEST = 'sha256:[0-9a-f]{64}'

/** The whole grammar as one anchored pattern (registry detection aside, which a regex cannot express). */
export const IMAGE_REFERENCE_PATTERN = `^(?:${DOMAIN}/)?${PATH_COMPONENT}(?:/${PATH_COMPONENT})*(?::${TAG})?(?:@${DIGEST})?$`

/** `sha256:` followed by 64 lowercase hex digits. */
export const DIGEST_PATTERN = `^${DIGEST}$`

const whole = (pattern: string): RegExp => new RegExp(`^${pattern}$`)
const PATH_COMPONENT_RE = whole(PATH_COMPONENT)
const DOMAIN_RE = whole(DOMAIN)
const TAG_RE = whole(TAG)
const DIGEST_RE = whole(DIGEST)

/**
 * The first path component is a registry host when it looks like one. Docker also counts a component
 * with capitals as a host; here it is reported as a non-lowercase path instead, which is what the
 * person almost always meant.
 */
const looksLikeRegistry = (component: string): boolean => component.includes('.') || component.includes(':') || component === 'localhost'

/** Why the text is not an image reference, as a phrase (the manifest and imageRefProblem put it in their messages). */
const bad = (reason: string) => fail(problem('INVALID_IMAGE_REF', reason))

export function parseImageReference(text: string): Parsed<ImageReference> {
  if (text === '') return bad('it is empty')
  if (/\s/.test(text)) return bad('it contains whitespace')
  if (/^[a-z]+:\/\//i.test(text)) return bad('it starts with a URL scheme; write the registry host without it')

  let rest = text
  let digest: string | undefined
  const at = rest.indexOf('@')
  if (at >= 0) {
    digest = rest.slice(at + 1)
    rest = rest.slice(0, at)
    if (!DIGEST_RE.test(digest)) {
      return bad(`the digest "${digest}" is not sha256: followed by 64 lowercase hex digits`)
    }
  }

  let tag: string | undefined
  const lastColon = rest.lastIndexOf(':')
  if (lastColon > rest.lastIndexOf('/')) {
    tag = rest.slice(lastColon + 1)
    rest = rest.slice(0, lastColon)
    if (!TAG_RE.test(tag)) {
      return bad(
        tag.length > 128
          ? `the tag is ${tag.length} characters long; at most 128 are allowed`
          : `the tag "${tag}" may only hold letters, digits, "_", "." and "-", and must not start with "." or "-"`,
      )
    }
  }

  const components = rest.split('/')
  let registry: string | undefined
  if (components.length > 1 && looksLikeRegistry(components[0] ?? '')) {
    registry = components.shift()
    if (!DOMAIN_RE.test(registry ?? '')) return bad(`the registry "${registry}" is not a valid host[:port]`)
  }
  for (const component of components) {
    if (component === '') return bad('it has an empty path component (a leading, trailing or doubled "/")')
    if (component !== component.toLowerCase()) {
      return bad(`the repository path must be lowercase, but has "${component}"`)
    }
    if (!PATH_COMPONENT_RE.test(component)) {
      return bad(`the path component "${component}" may only hold a-z, 0-9 and single ".", "_", "__" or "-" separators between them`)
    }
  }
  const repository = components.join('/')
  if ((registry ? registry.length + 1 : 0) + repository.length > 255) {
    return bad('the name is longer than 255 characters')
  }
  return ok({
    ...(registry !== undefined && { registry }),
    repository,
    ...(tag !== undefined && { tag }),
    ...(digest !== undefined && { digest }),
  })
}
