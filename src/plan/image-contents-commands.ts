/**
 * The image-contents probe as a command: a throw-away container of the release's image (named by
 * its image ID once the image gate has it) running src/probe/image-contents-probe.ts's program, with no
 * network, removed when it exits, and bounded by `timeout` on the node (the transport bounds the
 * bytes that come back).
 */
import { type Argv, argv } from '../command/shell.js'
import { IMAGE_CONTENTS_PY } from '../probe/image-contents-probe.js'

/** Seconds the probe's container may take: start, import metadata, torch's NCCL version. */
export const IMAGE_CONTENTS_TIMEOUT_SECONDS = 90

/** `timeout … docker run --rm --network none --entrypoint python3 IMAGE -c PROGRAM`. */
export const imageContentsProbe = (image: string): Argv =>
  argv(
    'timeout',
    '--kill-after=10',
    String(IMAGE_CONTENTS_TIMEOUT_SECONDS),
    'docker',
    'run',
    '--rm',
    '--network',
    'none',
    '--entrypoint',
    'python3',
    image,
    '-c',
    IMAGE_CONTENTS_PY,
  )
