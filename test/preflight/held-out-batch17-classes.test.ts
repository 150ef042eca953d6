/**
 * The classes held-out batch 17 missed (issue 36; first score in fixtures/README.md), read from the program's own
 * wording and tried on several lines, with near misses. None of these lines is copied from batch 17's captures.
 */
import { describe, expect, it } from 'vitest'
import { scanLog } from '../../src/preflight/signatures.js'

const errors = (text: string) => scanLog(text, 'paste').filter((f) => f.severity === 'error' || f.code === 'UNRECOGNISED_FAILURE')

describe("CPython's site.py on a sitecustomize that failed to import: Python goes on, so its one message line is no failure", () => {
  it('the header then "<Exception>: <message>", for sitecustomize and usercustomize, before a start that goes on', () => {
    for (const [which, message] of [
      ['sitecustomize', "ModuleNotFoundError: No module named 'ddtrace'"],
      ['usercustomize', "AttributeError: module 'distutils' has no attribute 'version'"],
      ['sitecustomize', "ImportError: cannot import name 'sysconfig' from 'distutils' (/usr/lib/python3.12/distutils/__init__.py)"],
    ])
      expect(
        errors(
          `Error in ${which}; set PYTHONVERBOSE for traceback:\n${message}\nINFO 10-01 22:41:00 [__init__.py:216] Automatically detected platform cuda.\n(APIServer pid=1) INFO:     Application startup complete.\n`,
        ),
        message,
      ).toEqual([])
  })
  it("near misses: the same exception without site.py's header, or a line after the message, is still a failure", () => {
    expect(errors("ModuleNotFoundError: No module named 'ddtrace'\n").map((f) => f.code)).toEqual(['UNRECOGNISED_FAILURE'])
    const later = errors(
      'Error in sitecustomize; set PYTHONVERBOSE for traceback:\nModuleNotFoundError: No module named \'ddtrace\'\nINFO start\nTraceback (most recent call last):\n  File "/x.py", line 1, in <module>\nRuntimeError: the engine broke\n',
    )
    expect(later.map((f) => f.code)).toEqual(['UNRECOGNISED_FAILURE'])
    expect(later[0]!.evidence['First failing line']).not.toContain('ddtrace')
  })
})
