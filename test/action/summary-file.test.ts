/** The Action leaves its job summary as a file too, byte for byte, so a failure artifact can carry it. */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { runAction } from '../support/action.js'

describe('summary-file output', () => {
  it('holds exactly what the step appended to GITHUB_STEP_SUMMARY, named after the command', () => {
    const r = runAction({ command: 'plan', manifest: '.github/vllm-ray-deploy.yml' })
    expect(r.status, r.stdout + r.stderr).toBe(0)
    const path = r.outputs['summary-file']!
    expect(path).toMatch(/vllm-ray-deploy\/vllm-ray-deploy-plan-summary\.md$/)
    expect(r.summary.length).toBeGreaterThan(0)
    expect(readFileSync(path, 'utf8') + '\n').toBe(r.summary)
  })
})
