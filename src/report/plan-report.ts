import type { AroundStage, Plan, PlanPhase, PlannedStep } from '../plan/plan.js'
import { stepsByNode } from '../plan/plan.js'
import { escapeMarkdownCell } from './findings.js'

/** A phase or a stage around the phases: its steps, each with its node and the exact command. */
function phaseText(phase: Omit<PlanPhase, 'name'> & { name: string }, label: string): string[] {
  const out = [`${label}${phase.name}${phase.parallel ? ' (nodes in parallel)' : ''}: ${phase.description}`]
  for (const s of phase.steps) {
    out.push(`   [${s.node}] ${s.action}: ${s.description}${s.stdin ? `  (stdin: ${s.stdin.kind})` : ''}`)
    out.push(`     $ ${s.command}`)
    if (s.runs) out.push(`     which runs: ${s.runs.command}`)
  }
  return out
}

/** Phase by phase, each step with its node and the exact command; the stages around them alike. */
export function renderPlanText(plan: Plan): string {
  const out = [
    `Plan for cluster ${plan.cluster}: image ${plan.image}, release ${plan.release}, launch ${plan.launch}`,
    ...plan.nodes.map((n) => `  ${n.name.padEnd(12)} ${n.role.padEnd(6)} ssh ${n.ssh}  fabric ${n.fabricIp}`),
    '',
  ]
  if (plan.around) out.push('Before the phases:', ...plan.around.before.flatMap((x) => [...phaseText(x, '   - '), '']))
  plan.phases.forEach((phase, i) => {
    out.push(...phaseText(phase, `${i + 1}. `), '')
  })
  if (plan.around) out.push('After the phases:', ...plan.around.after.flatMap((x) => [...phaseText(x, '   - '), '']))
  return out.join('\n')
}

export function renderPlanMarkdown(plan: Plan): string {
  const out = [`### Plan for \`${plan.cluster}\``, '', `Image \`${plan.image}\`, release \`${plan.release}\`.`, '']
  out.push('| stage | node | step | timeout |', '| --- | --- | --- | --- |')
  const rows = (phase: { name: string; description: string; steps: Plan['phases'][number]['steps'] }) => {
    if (phase.steps.length === 0) out.push(`| ${phase.name} | all | ${escapeMarkdownCell(phase.description)} | |`)
    for (const s of phase.steps) out.push(`| ${phase.name} | ${s.node} | ${escapeMarkdownCell(s.description)} | ${s.timeoutSeconds} s |`)
  }
  for (const phase of [...(plan.around?.before ?? []), ...plan.phases, ...(plan.around?.after ?? [])]) rows(phase)
  return out.join('\n') + '\n'
}

const stepJson = (s: PlannedStep) => ({
  id: s.id,
  node: s.node,
  action: s.action,
  description: s.description,
  command: s.command,
  timeoutSeconds: s.timeoutSeconds,
  cmd: s.cmd,
})

const aroundJson = (a: AroundStage) => ({ name: a.name, description: a.description, parallel: a.parallel, steps: a.steps.map(stepJson) })

/** JSON view: phases plus, per node, the ordered commands (argv kept as data); the stages around them with theirs. */
export function planJson(plan: Plan) {
  return {
    cluster: plan.cluster,
    image: plan.image,
    release: plan.release,
    head: plan.head,
    launch: plan.launch,
    nodes: plan.nodes.map((n) => ({
      ...n,
      steps: (stepsByNode(plan).get(n.name) ?? []).map((s) => ({
        id: s.id,
        action: s.action,
        description: s.description,
        command: s.command,
        timeoutSeconds: s.timeoutSeconds,
        ...(s.stdin && { stdin: s.stdin }),
        ...(s.runs && { runs: s.runs }),
        cmd: s.cmd,
      })),
    })),
    phases: plan.phases.map((p) => ({ name: p.name, description: p.description, parallel: p.parallel, steps: p.steps.map((s) => s.id) })),
    ...(plan.around && {
      around: {
        before: plan.around.before.map(aroundJson),
        after: plan.around.after.map(aroundJson),
      },
    }),
  }
}
