"use strict";
exports.id = 178;
exports.ids = [178];
exports.modules = {

/***/ 8178:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {


// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  SCENARIOS: () => (/* binding */ SCENARIOS),
  runLabScenario: () => (/* binding */ runLabScenario)
});

// UNUSED EXPORTS: labTransports, loadLabManifest, scenarioScript

// EXTERNAL MODULE: external "node:fs"
var external_node_fs_ = __webpack_require__(3024);
// EXTERNAL MODULE: external "node:path"
var external_node_path_ = __webpack_require__(6760);
// EXTERNAL MODULE: ./src/transport/transport.ts
var transport = __webpack_require__(1588);
;// CONCATENATED MODULE: ./src/execute/execute.ts

async function runStep(step, phase, opts) {
    const t = opts.transports.get(step.node);
    if (!t)
        return { step, phase, status: 'failed', detail: `no connection to ${step.node}` };
    let stdin;
    if (step.stdin) {
        try {
            stdin = await opts.stdinFor(step.stdin, step);
        }
        catch (err) {
            return { step, phase, status: 'failed', detail: `cannot prepare stdin (${step.stdin.kind}): ${err.message}` };
        }
    }
    opts.onProgress?.(`[${step.node}] ${step.action}: ${step.description}`);
    const result = await t.run(step.cmd, { timeoutMs: step.timeoutSeconds * 1000, ...(stdin !== undefined && { stdin }) });
    if ((0,transport/* succeeded */.g)(result)) {
        opts.onProgress?.(`[${step.node}] ${step.action}: ok in ${(result.durationMs / 1000).toFixed(1)} s`);
        return { step, phase, status: 'ok', result };
    }
    const tail = (result.stderr || result.stdout).trim().split('\n').slice(-5).join('\n');
    opts.onProgress?.(`[${step.node}] ${step.action}: FAILED (${(0,transport/* outcome */.b)(result)})${tail ? `\n${tail}` : ''}`);
    return { step, phase, status: 'failed', result, detail: `${(0,transport/* outcome */.b)(result)}${tail ? `: ${tail}` : ''}` };
}
/** One node's steps of a phase, in order, stopping at that node's first failure. */
async function runNodeSteps(steps, phase, opts) {
    const out = [];
    for (const s of steps) {
        if (out.some((r) => r.status === 'failed')) {
            out.push({ step: s, phase, status: 'skipped', detail: `an earlier step on ${s.node} failed` });
            continue;
        }
        out.push(await runStep(s, phase, opts));
    }
    return out;
}
async function executePlan(plan, opts) {
    const started = Date.now();
    const results = [];
    let stoppedAt;
    for (const phase of plan.phases) {
        if (stoppedAt) {
            results.push(...phase.steps.map((step) => ({ step, phase: phase.name, status: 'skipped', detail: `stopped at ${stoppedAt.phase}` })));
            continue;
        }
        opts.onProgress?.(`== ${phase.name}: ${phase.description}`);
        const byNode = new Map();
        for (const s of phase.steps)
            byNode.set(s.node, [...(byNode.get(s.node) ?? []), s]);
        const groups = [...byNode.values()];
        const phaseResults = phase.parallel
            ? (await Promise.all(groups.map((g) => runNodeSteps(g, phase.name, opts)))).flat()
            : await (async () => {
                const acc = [];
                for (const g of groups)
                    acc.push(...(await runNodeSteps(g, phase.name, opts)));
                return acc;
            })();
        // Report in plan order whatever order they finished in.
        const order = new Map(phase.steps.map((s, i) => [s.id, i]));
        phaseResults.sort((a, b) => (order.get(a.step.id) ?? 0) - (order.get(b.step.id) ?? 0));
        results.push(...phaseResults);
        const failed = phaseResults.filter((r) => r.status === 'failed');
        if (failed.length > 0) {
            stoppedAt = { phase: phase.name, reason: failed.map((r) => `${r.step.id}: ${r.detail}`).join('; ') };
        }
        else {
            const gate = await opts.afterPhase?.(phase.name, phaseResults);
            if (gate)
                stoppedAt = { phase: phase.name, reason: gate };
        }
        if (!stoppedAt && opts.untilPhase === phase.name)
            break;
    }
    return { ok: !stoppedAt, results, ...(stoppedAt && { stoppedAt }), durationMs: Date.now() - started };
}

// EXTERNAL MODULE: external "node:fs/promises"
var promises_ = __webpack_require__(1455);
// EXTERNAL MODULE: ./src/preflight/gather/gather.ts + 1 modules
var gather = __webpack_require__(3537);
;// CONCATENATED MODULE: ./src/execute/inputs.ts
/** Where each kind of step stdin comes from when a plan runs. */



function stdinProvider(manifestPath, env = process.env) {
    return async (input) => {
        switch (input.kind) {
            case 'file':
                // Paths in a manifest are relative to the manifest's own folder.
                return (0,promises_.readFile)((0,external_node_path_.resolve)((0,external_node_path_.dirname)(manifestPath), input.path), 'utf8');
            case 'probe':
                return gather/* PROBE_PROGRAM */.oO;
            case 'secret-env': {
                const missing = input.names.filter((n) => env[n] === undefined);
                if (missing.length > 0)
                    throw new Error(`secret environment variable(s) not set for this run: ${missing.join(', ')}`);
                return input.names.map((n) => `${n}=${env[n]}`).join('\n') + '\n';
            }
            case 'image-archive':
                throw new Error('image distribution "load" arrives with the rollout; use "pull" or "preloaded" for now');
        }
    };
}

// EXTERNAL MODULE: ./src/command/shell.ts
var shell = __webpack_require__(3999);
// EXTERNAL MODULE: ./src/preflight/signatures.ts + 1 modules
var signatures = __webpack_require__(6314);
// EXTERNAL MODULE: ./src/plan/node-commands.ts
var node_commands = __webpack_require__(6902);
;// CONCATENATED MODULE: ./src/execute/watch-vllm.ts



async function watchVllmStartup(head, m, opts) {
    const started = Date.now();
    const watcher = (0,signatures/* createLogWatcher */.T)({ source: `${head.label}:${node_commands/* VLLM_LOG */.VO}`, ...(opts.ray && { ray: opts.ray }) });
    const stopOn = opts.stopOn ?? ((f) => f.severity === 'error');
    let offset = 0;
    let text = '';
    const tail = () => text.split('\n').slice(-40).join('\n');
    for (;;) {
        const log = await head.run((0,shell/* argv */.vU)('docker', 'exec', m.container.name, 'tail', '-c', `+${offset + 1}`, node_commands/* VLLM_LOG */.VO), { timeoutMs: 15_000 });
        if (log.code === 0 && log.stdout.length > 0) {
            offset += Buffer.byteLength(log.stdout);
            text += log.stdout;
            const fresh = watcher.push(log.stdout);
            for (const f of fresh)
                opts.onProgress?.(`vllm log: ${f.code}: ${f.message}`);
            const stopping = watcher.findings.filter(stopOn);
            if (stopping.length > 0) {
                return { ready: false, findings: stopping, waitedMs: Date.now() - started, reason: `${stopping[0].code} after ${((Date.now() - started) / 1000).toFixed(1)} s`, logTail: tail() };
            }
        }
        const health = await head.run((0,node_commands/* vllmHealth */.YQ)(m), { timeoutMs: 10_000 });
        if (health.code === 0)
            return { ready: true, findings: watcher.findings, waitedMs: Date.now() - started, reason: 'GET /health answered 200', logTail: tail() };
        if (Date.now() - started > opts.deadlineMs) {
            return { ready: false, findings: watcher.findings, waitedMs: Date.now() - started, reason: `not ready after ${Math.round(opts.deadlineMs / 1000)} s`, logTail: tail() };
        }
        await new Promise((r) => setTimeout(r, opts.pollMs ?? 2000));
    }
}

// EXTERNAL MODULE: ./src/manifest/load.ts + 8 modules
var load = __webpack_require__(952);
// EXTERNAL MODULE: ./src/plan/plan.ts
var plan_plan = __webpack_require__(8720);
// EXTERNAL MODULE: ./src/transport/ssh.ts + 3 modules
var ssh = __webpack_require__(9096);
// EXTERNAL MODULE: ./src/transport/targets.ts
var targets = __webpack_require__(8687);
// EXTERNAL MODULE: ./src/lab/lab-error.ts
var lab_error = __webpack_require__(4227);
// EXTERNAL MODULE: ./src/lab/paths.ts + 1 modules
var lab_paths = __webpack_require__(2562);
;// CONCATENATED MODULE: ./src/lab/scenario.ts
/**
 * Lab scenarios: the lab's own cluster brought up by a launch script, the way users with their own
 * scripts do it (`launch.mode: script`). `healthy` is wired right; `seed-bug` is the incident (Ray
 * head without --node-ip-address, VLLM_HOST_IP on the fabric); `worker-override` is its second bug
 * (a stale VLLM_HOST_IP in the worker section). The run goes through the normal plan and executor,
 * up to the point where Ray has every node; `serve` then starts vLLM and watches it.
 */












const SCENARIOS = ['healthy', 'seed-bug', 'worker-override'];
function scenarioDir() {
    const root = (0,lab_paths/* repoRoot */.jv)();
    if (!root)
        throw new lab_error/* LabError */.o('not-ready', 'cannot find the lab scenarios (src/lab/scenarios) above this program');
    return (0,external_node_path_.join)(root, 'src', 'lab', 'scenarios');
}
/** One self-contained launch script: common.sh followed by the scenario body. */
function scenarioScript(name) {
    const dir = scenarioDir();
    const common = (0,external_node_fs_.readFileSync)((0,external_node_path_.join)(dir, 'common.sh'), 'utf8');
    const body = (0,external_node_fs_.readFileSync)((0,external_node_path_.join)(dir, `${name}.sh`), 'utf8')
        .split('\n')
        .filter((l) => !l.startsWith('. "$(dirname "$0")/common.sh"'));
    const [shebang, ...rest] = body;
    return [shebang, `# Generated from src/lab/scenarios/common.sh + ${name}.sh`, common, ...rest].join('\n');
}
/** Open one SSH transport per node with the lab's key and pinned host keys. */
async function labTransports(m, dir) {
    const paths = (0,lab_paths/* labPaths */.yS)((0,lab_paths/* resolveLabDir */.Ry)(dir));
    const privateKey = (0,external_node_fs_.readFileSync)(paths.sshKey, 'utf8');
    const knownHosts = (0,external_node_fs_.readFileSync)(paths.knownHosts, 'utf8');
    const entries = await Promise.all(m.nodes.map(async (n) => [n.name, await ssh/* SshTransport */.e.connect((0,targets/* sshTargetFor */.H)(m, n, { privateKey, knownHosts }))]));
    return new Map(entries);
}
async function loadLabManifest(dir) {
    const path = (0,lab_paths/* labPaths */.yS)((0,lab_paths/* resolveLabDir */.Ry)(dir)).manifest;
    const { manifest, errors } = await (0,load/* loadManifestFile */.K)(path);
    if (!manifest) {
        throw new lab_error/* LabError */.o('not-ready', `the lab's manifest ${path} is missing or invalid${errors[0] ? `: ${errors[0].message}` : ''}`, 'vllm-ray-deploy lab up');
    }
    return { manifest, path };
}
async function runLabScenario(name, opts = {}) {
    const { manifest, path } = await loadLabManifest(opts.dir);
    const root = (0,lab_paths/* resolveLabDir */.Ry)(opts.dir);
    (0,external_node_fs_.mkdirSync)((0,external_node_path_.join)(root, 'scenarios'), { recursive: true });
    const launchScript = (0,external_node_path_.join)(root, 'scenarios', `${name}.sh`);
    (0,external_node_fs_.writeFileSync)(launchScript, scenarioScript(name), { mode: 0o755 });
    const m = { ...manifest, launch: { mode: 'script', path: launchScript, args: [], env: {} } };
    const plan = (0,plan_plan/* planDeploy */.b)(m, { release: `lab-${name}` });
    const transports = await labTransports(m, opts.dir);
    try {
        const execution = await executePlan(plan, {
            transports,
            stdinFor: stdinProvider(path),
            untilPhase: 'ray-cluster',
            ...(opts.onProgress && { onProgress: opts.onProgress }),
        });
        if (!opts.serve || !execution.ok)
            return { scenario: name, manifestPath: path, launchScript, execution };
        const head = transports.get((0,node_commands/* headOf */.Uo)(m).name);
        opts.onProgress?.(`== vllm: start vllm serve on ${(0,node_commands/* headOf */.Uo)(m).name} and watch its log`);
        const start = await head.run((0,node_commands/* startVllm */.qH)(m), { timeoutMs: 60_000 });
        if (start.code !== 0) {
            return {
                scenario: name,
                manifestPath: path,
                launchScript,
                execution,
                vllm: { started: false, ready: false, findings: [], waitedMs: 0, reason: `vllm serve did not start: ${start.stderr.trim()}`, logTail: '' },
            };
        }
        const watch = await watchVllmStartup(head, m, { deadlineMs: opts.serveDeadlineMs ?? 180_000, ...(opts.onProgress && { onProgress: opts.onProgress }) });
        return { scenario: name, manifestPath: path, launchScript, execution, vllm: { started: true, ...watch } };
    }
    finally {
        await Promise.all([...transports.values()].map((t) => t.close()));
    }
}


/***/ })

};
;
//# sourceMappingURL=178.index.js.map