/**
 * The image-contents probe: a small Python program run in the release's own image (a throw-away
 * `docker run --rm`, before anything changes) that prints one JSON line saying what the image
 * holds: Ray (module, `ray` command, version), vLLM (module, `vllm` command, version), torch and the
 * NCCL it was built with, and Python. Versions come from package metadata (importlib.metadata), so
 * nothing heavy is imported; only torch's NCCL version needs `import torch`, and only when torch is
 * there, guarded. What comes back is still a document from outside: checked by a zod schema.
 *
 * Why: since vLLM 0.19 the stock vllm/vllm-openai image no longer ships Ray (vllm-project/vllm#33445;
 * NVIDIA/dgx-spark-playbooks#109), and `ray start` in such an image exits 127 — after the running
 * release was stopped, unless this is read first.
 */
import { z } from 'zod'
import { checkDocument } from '../manifest/external-document.js'
import { fail, type Parsed, problem } from '../result/result.js'

/** One JSON line on stdout; every string cut to 200 characters, so the answer stays small. */
export const IMAGE_CONTENTS_PY = `import json, platform, shutil, sys
from importlib import metadata, util
def cut(v):
    return None if v is None else str(v)[:200]
def version(dist):
    try:
        return cut(metadata.version(dist))
    except Exception:
        return None
def spec(name):
    try:
        return util.find_spec(name) is not None
    except Exception:
        return False
out = {"probe": "image-contents/1", "python": platform.python_version(), "executable": cut(sys.executable)}
out["ray"] = {"module": spec("ray"), "version": version("ray"), "cli": cut(shutil.which("ray"))}
out["vllm"] = {"module": spec("vllm"), "version": version("vllm"), "cli": cut(shutil.which("vllm"))}
torch = {"version": version("torch"), "nccl": None}
if torch["version"] is not None:
    try:
        import torch as t
        v = t.cuda.nccl.version()
        torch["nccl"] = ".".join(str(x) for x in v) if isinstance(v, (tuple, list)) else cut(v)
    except Exception as e:
        torch["ncclError"] = cut(type(e).__name__ + ": " + str(e))
out["torch"] = torch
import glob, os
cuda = {"runtime": cut(os.environ.get("CUDA_VERSION")), "torch": None, "compat": bool(glob.glob("/usr/local/cuda/compat/libcuda.so*") or glob.glob("/usr/local/cuda/compat/lib*/libcuda.so*")), "ngcEntrypoint": os.path.exists("/opt/nvidia/nvidia_entrypoint.sh")}
if torch["version"] is not None:
    try:
        import torch as t
        cuda["torch"] = cut(t.version.cuda)
    except Exception:
        pass
out["cuda"] = cuda
print(json.dumps(out))
`

const text = z.string().max(400)

const PackageSchema = z.object({ module: z.boolean(), version: text.nullable(), cli: text.nullable() }).strict().readonly()

export const ImageContentsSchema = z
  .object({
    probe: z.literal('image-contents/1'),
    python: text,
    executable: text.nullable(),
    ray: PackageSchema,
    vllm: PackageSchema,
    torch: z.object({ version: text.nullable(), nccl: text.nullable(), ncclError: text.optional() }).strict().readonly(),
    /** The CUDA the image was built for (its CUDA_VERSION, torch's CUDA) and its forward-compatibility parts (absent from probes before they were read). */
    cuda: z.object({ runtime: text.nullable(), torch: text.nullable(), compat: z.boolean(), ngcEntrypoint: z.boolean() }).strict().readonly().optional(),
  })
  .strict()
  .readonly()

export type ImageContents = z.output<typeof ImageContentsSchema>

/** The probe's output, or why it is not one (IMAGE_PROBE_FAILED; evidence.output: what the probe printed, when it is kept). */
export type ImageContentsParse = Parsed<ImageContents>

const probeFailed = (message: string) => fail(problem('IMAGE_PROBE_FAILED', message))

/** The probe's last stdout line as its document, checked; anything else is an error in words. */
export function parseImageContents(stdout: string): ImageContentsParse {
  const last = stdout.trim().split('\n').pop() ?? ''
  let json: unknown
  try {
    json = JSON.parse(last)
  } catch {
    return probeFailed(`the image-contents probe printed no JSON${last ? `: ${JSON.stringify(last.slice(-200))}` : ' (empty output)'}`)
  }
  const checked = checkDocument(ImageContentsSchema, json)
  return checked.ok ? checked : probeFailed(`the image-contents probe's output does not fit its schema: ${checked.problem.message}`)
}
