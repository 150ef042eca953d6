"use strict";
exports.id = 995;
exports.ids = [995];
exports.modules = {

/***/ 9995:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

// ESM COMPAT FLAG
__webpack_require__.r(__webpack_exports__);

// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  labDownTask: () => (/* binding */ labDownTask),
  labHubTask: () => (/* binding */ labHubTask),
  labScenarioTask: () => (/* binding */ labScenarioTask),
  labStatusTask: () => (/* binding */ labStatusTask),
  labUpTask: () => (/* binding */ labUpTask)
});

// EXTERNAL MODULE: external "node:fs"
var external_node_fs_ = __webpack_require__(3024);
// EXTERNAL MODULE: external "node:fs/promises"
var promises_ = __webpack_require__(1455);
// EXTERNAL MODULE: ./src/command/shell.ts
var shell = __webpack_require__(3999);
;// CONCATENATED MODULE: ./src/lab/docker-commands.ts
/**
 * Docker commands the lab runs on this machine, as data (argv arrays, see src/command/shell.ts).
 * Pure: nothing here runs anything. The docker binary is a parameter (see `dockerBinary()`).
 */

const labelArgs = (labels = {}) => Object.entries(labels).flatMap(([k, v]) => ['--label', `${k}=${v}`]);
/** `--mount` value; docker's csv syntax, so paths holding `,` or `"` cannot be expressed. */
function mountArg(m) {
    for (const part of [m.source, m.target]) {
        if (/[,"\n]/.test(part))
            throw new Error(`a docker mount path cannot contain a comma, quote or newline: ${JSON.stringify(part)}`);
    }
    const base = `type=${m.type},source=${m.source},target=${m.target}`;
    return m.type === 'bind' && m.readonly ? `${base},readonly` : base;
}
function dockerCommands(docker) {
    const d = (...args) => (0,shell/* argv */.vU)(docker, ...args);
    return {
        /** Server version; fails when the daemon is not reachable. */
        serverVersion: () => d('version', '--format', '{{.Server.Version}}'),
        info: (format) => d('info', '--format', format),
        // ---- images
        imageInspect: (ref) => d('image', 'inspect', ref),
        /** Reads a rootfs tarball on stdin and makes an image of it. */
        importImage: (ref, changes = []) => d('import', ...changes.flatMap((c) => ['--change', c]), '-', ref),
        /** Legacy builder, no network at all during RUN steps, never pulls. */
        build: (spec) => (0,shell/* withEnv */.Eh)({ DOCKER_BUILDKIT: '0' }, docker, 'build', '--network', 'none', '--force-rm', '-f', spec.dockerfile, '-t', spec.tag, ...Object.entries(spec.buildArgs ?? {}).flatMap(([k, v]) => ['--build-arg', `${k}=${v}`]), ...labelArgs(spec.labels), spec.context),
        tag: (source, target) => d('tag', source, target),
        push: (ref) => d('push', ref),
        removeImages: (refs) => d('image', 'rm', '--force', ...refs),
        /** Image ids carrying a label (`key` or `key=value`), including intermediate build layers. */
        imagesByLabel: (label) => d('images', '--all', '--quiet', '--no-trunc', '--filter', `label=${label}`),
        /** `repository:tag` names matching a reference pattern such as `vrd-lab/*`. */
        imagesByReference: (pattern) => d('images', '--filter', `reference=${pattern}`, '--format', '{{.Repository}}:{{.Tag}}'),
        imageSizes: (pattern) => d('images', '--filter', `reference=${pattern}`, '--format', '{{.Repository}}:{{.Tag}}\t{{.Size}}'),
        // ---- networks
        networkInspect: (name) => d('network', 'inspect', name),
        networkCreate: (net, labels) => d('network', 'create', '--driver', 'bridge', '--subnet', net.subnet, '--gateway', net.gateway, '--opt', `com.docker.network.bridge.name=${net.bridge}`, ...(net.internal ? ['--internal'] : []), ...labelArgs(labels), net.name),
        networkConnect: (network, container, ip, aliases = []) => d('network', 'connect', '--ip', ip, ...aliases.flatMap((a) => ['--alias', a]), network, container),
        networkRemove: (names) => d('network', 'rm', ...names),
        networksByFilter: (filter) => d('network', 'ls', '--quiet', '--no-trunc', '--filter', filter),
        networkNamesByFilter: (filter) => d('network', 'ls', '--filter', filter, '--format', '{{.Name}}'),
        // ---- volumes
        volumeCreate: (name, labels) => d('volume', 'create', ...labelArgs(labels), name),
        volumeRemove: (names) => d('volume', 'rm', '--force', ...names),
        volumesByFilter: (filter) => d('volume', 'ls', '--quiet', '--filter', filter),
        // ---- containers
        containerInspect: (names) => d('container', 'inspect', ...names),
        containersByFilter: (filter) => d('ps', '--all', '--filter', filter, '--format', '{{.Names}}'),
        create: (spec) => d('create', ...containerArgs(spec), spec.image, ...(spec.cmd ?? [])),
        /** Run a throw-away container (`--rm`), e.g. to probe whether `--privileged` works here. */
        runOnce: (spec, entrypoint) => d('run', '--rm', ...(entrypoint ? ['--entrypoint', entrypoint] : []), ...containerArgs(spec), spec.image, ...(spec.cmd ?? [])),
        start: (name) => d('start', name),
        removeContainers: (names) => d('rm', '--force', '--volumes', ...names),
        exec: (container, ...args) => d('exec', container, ...args),
        logs: (container, tail) => d('logs', '--tail', String(tail), container),
        stats: (names) => d('stats', '--no-stream', '--format', '{{.Name}}\t{{.MemUsage}}\t{{.CPUPerc}}', ...names),
    };
}
/** The flags of `docker create` / `docker run` for a spec, in a fixed order. */
function containerArgs(spec) {
    const a = ['--name', spec.name];
    if (spec.hostname)
        a.push('--hostname', spec.hostname);
    if (spec.init)
        a.push('--init');
    if (spec.cgroupns)
        a.push(`--cgroupns=${spec.cgroupns}`);
    if (spec.privileged)
        a.push('--privileged');
    for (const c of spec.capAdd ?? [])
        a.push('--cap-add', c);
    for (const c of spec.capDrop ?? [])
        a.push('--cap-drop', c);
    for (const o of spec.securityOpts ?? [])
        a.push('--security-opt', o);
    for (const r of spec.deviceCgroupRules ?? [])
        a.push('--device-cgroup-rule', r);
    if (spec.network)
        a.push('--network', spec.network);
    if (spec.ip)
        a.push('--ip', spec.ip);
    for (const alias of spec.aliases ?? [])
        a.push('--network-alias', alias);
    for (const s of spec.dns ?? [])
        a.push('--dns', s);
    for (const o of spec.dnsOptions ?? [])
        a.push('--dns-option', o);
    for (const p of spec.publish ?? [])
        a.push('--publish', p);
    for (const m of spec.mounts ?? [])
        a.push('--mount', mountArg(m));
    for (const [k, v] of Object.entries(spec.env ?? {}))
        a.push('--env', `${k}=${v}`);
    a.push(...labelArgs(spec.labels));
    if (spec.stopTimeoutSeconds !== undefined)
        a.push('--stop-timeout', String(spec.stopTimeoutSeconds));
    if (spec.restart)
        a.push('--restart', spec.restart);
    return a;
}

// EXTERNAL MODULE: external "node:path"
var external_node_path_ = __webpack_require__(6760);
// EXTERNAL MODULE: external "node:url"
var external_node_url_ = __webpack_require__(3136);
;// CONCATENATED MODULE: ./src/lab/lab-error.ts
class lab_error_LabError extends Error {
    code;
    fix;
    detail;
    name = 'LabError';
    constructor(code, message, 
    /** What the person should run or change. */
    fix, 
    /** Output of the failing command, trimmed. */
    detail) {
        super([message, fix ? `fix: ${fix}` : '', detail ? `output:\n${detail}` : ''].filter(Boolean).join('\n'));
        this.code = code;
        this.fix = fix;
        this.detail = detail;
    }
}
/** The last `lines` lines of a command's output, for error messages. */
function tail(text, lines = 20) {
    const all = text.trimEnd().split('\n');
    return all.slice(-lines).join('\n');
}

;// CONCATENATED MODULE: ./src/lab/layout.ts
/**
 * The lab's fixed shape, as data: names, subnets, addresses, interface names.
 *
 * Everything the lab creates on this machine carries the `vrd-lab-` prefix (containers, networks,
 * volumes, bridges, the iptables comment) or the `vrd-lab/` repository (images), so that nothing
 * collides with other work on the machine and `down` can find every object it made.
 *
 * One machine can hold several labs side by side: `$VRD_LAB_INSTANCE` (1, the default, to
 * MAX_INSTANCES) picks one. Each has its own prefix (`vrd-lab-`, `vrd-lab2-`, ...), subnets, registry
 * port and lab dir; the images (`vrd-lab/...`) and the build cache are shared. Instance 1 is exactly
 * the lab of earlier releases, so an existing lab keeps working.
 */
const MAX_INSTANCES = 8;
/** Label put on every container, network, volume and image the lab creates (value: the instance). */
const LABEL = 'vrd-lab';
/**
 * The instance `$VRD_LAB_INSTANCE` names (1 when unset or empty). A bad value is an error, never a
 * quiet fall-back to another lab's containers.
 */
function labInstance(env = process.env) {
    const raw = env.VRD_LAB_INSTANCE?.trim();
    if (!raw)
        return 1;
    const n = /^[0-9]+$/.test(raw) ? Number(raw) : Number.NaN;
    if (!Number.isInteger(n) || n < 1 || n > MAX_INSTANCES) {
        throw new RangeError(`VRD_LAB_INSTANCE must be a whole number from 1 to ${MAX_INSTANCES}; got ${JSON.stringify(env.VRD_LAB_INSTANCE)}`);
    }
    return n;
}
function instanceNames(instance) {
    if (!Number.isInteger(instance) || instance < 1 || instance > MAX_INSTANCES) {
        throw new RangeError(`the lab instance is 1 to ${MAX_INSTANCES}; got ${JSON.stringify(instance)}`);
    }
    const prefix = instance === 1 ? 'vrd-lab' : `vrd-lab${instance}`;
    return {
        instance,
        prefix,
        labelValue: String(instance),
        labelFilter: `label=${LABEL}=${instance}`,
        guardComment: `${prefix}-egress-guard`,
        dirName: instance === 1 ? '.lab' : `.lab-${instance}`,
    };
}
/**
 * This process's instance. A bad `$VRD_LAB_INSTANCE` leaves instance 1's names here and the error in
 * INSTANCE_ERROR: every lab command checks it first (labContext), and nothing else reads the lab.
 */
const current = (() => {
    try {
        return { names: instanceNames(labInstance()) };
    }
    catch (e) {
        return { names: instanceNames(1), error: e };
    }
})();
const INSTANCE = current.names;
const INSTANCE_ERROR = current.error;
const PREFIX = INSTANCE.prefix;
const MAX_NODES = 4;
const DEFAULT_NODES = 2;
/** Interface names a DGX Spark shows (management NIC and the RoCE port used as fabric). */
const MGMT_IFNAME = 'enP7s7';
const FABRIC_IFNAME = 'enp1s0f0np0';
/** Instance N: mgmt 172.30.(229+N).0/24, fabric 172.30.(199+N).0/24, registry on 127.0.0.1:(4999+N). */
function instanceNetworks(names) {
    const mgmtNet = `172.30.${229 + names.instance}`;
    const fabricNet = `172.30.${199 + names.instance}`;
    const port = 5000;
    const hostPort = 4999 + names.instance;
    return {
        mgmt: { name: `${names.prefix}-mgmt`, bridge: `${names.prefix}-mgmt0`, subnet: `${mgmtNet}.0/24`, gateway: `${mgmtNet}.1`, internal: false },
        fabric: { name: `${names.prefix}-fabric`, bridge: `${names.prefix}-fab0`, subnet: `${fabricNet}.0/24`, gateway: `${fabricNet}.1`, internal: true },
        registry: {
            container: `${names.prefix}-registry`,
            volume: `${names.prefix}-registry-data`,
            ip: `${mgmtNet}.5`,
            port,
            nodeHost: `${mgmtNet}.5:${port}`,
            hostHost: `127.0.0.1:${hostPort}`,
        },
    };
}
const nets = instanceNetworks(INSTANCE);
const layout_MGMT_NETWORK = nets.mgmt;
const FABRIC_NETWORK = nets.fabric;
const REGISTRY = nets.registry;
/** Images the lab builds. All live under the `vrd-lab/` repository prefix. */
const IMAGES = {
    /** debootstrap minbase + node packages (sshd, docker.io, python3, iproute2, ...), by `docker import`. */
    nodeBase: 'vrd-lab/node-base:bookworm',
    /** node-base + the lab's init, fake GPU tools and runtime wrapper (thin `docker build` layer). */
    node: 'vrd-lab/node:latest',
    /** Debian's docker-registry binary with its libraries, nothing else. */
    registry: 'vrd-lab/registry:latest',
    /** debootstrap minbase + python3, python3-venv, iproute2, procps, curl, ca-certificates. */
    workloadBase: 'vrd-lab/workload-base:bookworm',
    /** workload-base + Ray wheels in /opt/venv + the vLLM stand-in package. */
    workload: 'vrd-lab/vllm-standin:latest',
};
/** The workload image's repository path inside the lab registry. */
const WORKLOAD_REPOSITORY = 'vrd-lab/vllm-standin';
const WORKLOAD_TAG = 'latest';
const nodeName = (index) => `spark-${String.fromCharCode(97 + index)}`;
/** Address of node `index` (0-based) on a /24 whose network address is `subnet`: `.12 + index`. */
function hostAddress(subnet, index) {
    const base = subnet.split('/')[0].split('.');
    return [...base.slice(0, 3), String(12 + index)].join('.');
}
function validateNodeCount(n) {
    if (!Number.isInteger(n) || n < 1 || n > MAX_NODES) {
        throw new RangeError(`the lab has 1 to ${MAX_NODES} nodes; got ${JSON.stringify(n)}`);
    }
    return n;
}
function labLayout(nodes, names = INSTANCE) {
    validateNodeCount(nodes);
    const { mgmt, fabric, registry } = instanceNetworks(names);
    return {
        mgmt,
        fabric,
        registry,
        mgmtIfname: MGMT_IFNAME,
        fabricIfname: FABRIC_IFNAME,
        nodes: Array.from({ length: nodes }, (_, i) => {
            const name = nodeName(i);
            return {
                name,
                role: i === 0 ? 'head' : 'worker',
                container: `${names.prefix}-${name}`,
                dockerVolume: `${names.prefix}-${name}-docker`,
                mgmtIp: hostAddress(mgmt.subnet, i),
                fabricIp: hostAddress(fabric.subnet, i),
                fabricAlias: `${name}-fabric`,
            };
        }),
    };
}

;// CONCATENATED MODULE: ./src/lab/paths.ts
/**
 * Where the lab keeps its files on this machine, and where it finds its own assets.
 *
 * Lab state (keys, caches, rootfs trees, the generated manifest) lives in the lab dir:
 * `opts.dir`, else `$VRD_LAB_DIR`, else `<repo>/.lab` (gitignored; `<repo>/.lab-<N>` for lab
 * instance N, see layout.ts). The build cache (Debian packages, the minbase tree, wheels) is the
 * lab dir's `cache/`, except that every instance with a default lab dir shares `<repo>/.lab/cache`:
 * the images it feeds are shared too.
 */





/** Directory of one node's own files (its host key) under nodeFiles. */
const nodeFilesDir = (paths, node) => (0,external_node_path_.join)(paths.nodeFiles, node);
function labPaths(root, cache = (0,external_node_path_.join)(root, 'cache')) {
    const nodeFiles = (0,external_node_path_.join)(root, 'nodes');
    return {
        root,
        sshKey: (0,external_node_path_.join)(root, 'id_ed25519'),
        sshPublicKey: (0,external_node_path_.join)(root, 'id_ed25519.pub'),
        knownHosts: (0,external_node_path_.join)(root, 'known_hosts'),
        sshConfig: (0,external_node_path_.join)(root, 'ssh_config'),
        manifest: (0,external_node_path_.join)(root, 'manifest.yml'),
        state: (0,external_node_path_.join)(root, 'lab.json'),
        nodeFiles,
        clusterFiles: (0,external_node_path_.join)(nodeFiles, 'cluster'),
        cache,
        debCache: (0,external_node_path_.join)(cache, 'debs'),
        minbaseRootfs: (0,external_node_path_.join)(cache, 'rootfs', 'bookworm-minbase'),
        wheels: (0,external_node_path_.join)(cache, 'wheels'),
        build: (0,external_node_path_.join)(root, 'build'),
        lock: (0,external_node_path_.join)(root, 'lock'),
        imagesLock: '/tmp/vrd-lab-images.lock',
    };
}
const here = (0,external_node_path_.dirname)((0,external_node_url_.fileURLToPath)(require("url").pathToFileURL(__filename).href));
/**
 * The repository root: the nearest directory above this module holding `src/lab/assets`
 * (works from the sources and from a bundle in `dist/`).
 */
function repoRoot() {
    let dir = here;
    for (;;) {
        if ((0,external_node_fs_.existsSync)((0,external_node_path_.join)(dir, 'src', 'lab', 'assets')))
            return dir;
        const up = (0,external_node_path_.dirname)(dir);
        if (up === dir)
            return undefined;
        dir = up;
    }
}
function resolveLabDir(dir) {
    if (dir)
        return (0,external_node_path_.resolve)(dir);
    const fromEnv = process.env.VRD_LAB_DIR;
    if (fromEnv)
        return (0,external_node_path_.resolve)(fromEnv);
    requireLabInstance();
    return (0,external_node_path_.join)(repoRoot() ?? process.cwd(), INSTANCE.dirName);
}
/** Throws the `bad-input` LabError for a bad `$VRD_LAB_INSTANCE` (layout.ts keeps it). */
function requireLabInstance() {
    if (INSTANCE_ERROR) {
        throw new lab_error_LabError('bad-input', INSTANCE_ERROR.message, 'unset VRD_LAB_INSTANCE for the default lab, or set it to the number of the lab to use');
    }
}
/**
 * The build cache for a lab dir: its own `cache/` when the dir was chosen (`opts.dir`, `$VRD_LAB_DIR`),
 * else the one every default lab dir shares, `<repo>/.lab/cache`.
 */
function labCacheDir(dir) {
    if (dir || process.env.VRD_LAB_DIR)
        return (0,external_node_path_.join)(resolveLabDir(dir), 'cache');
    return (0,external_node_path_.join)(repoRoot() ?? process.cwd(), '.lab', 'cache');
}
/** The lab's assets: scripts and Dockerfiles that run inside images and containers. */
function assetsDir() {
    const fromEnv = process.env.VRD_LAB_ASSETS;
    if (fromEnv)
        return (0,external_node_path_.resolve)(fromEnv);
    const root = repoRoot();
    if (!root)
        throw new Error(`cannot find src/lab/assets above ${here}; set VRD_LAB_ASSETS to its path`);
    return (0,external_node_path_.join)(root, 'src', 'lab', 'assets');
}
/** The vLLM stand-in delivered in src/lab/workload (may not exist yet). */
function workloadSourceDir() {
    const fromEnv = process.env.VRD_LAB_WORKLOAD;
    if (fromEnv)
        return (0,external_node_path_.resolve)(fromEnv);
    return (0,external_node_path_.join)(repoRoot() ?? process.cwd(), 'src', 'lab', 'workload');
}
/**
 * The docker client to use: `$VRD_DOCKER`, else `/usr/bin/docker` when it exists (Debian's
 * docker.io, matching the daemon), else `docker` from PATH.
 */
function dockerBinary() {
    const fromEnv = process.env.VRD_DOCKER;
    if (fromEnv)
        return fromEnv;
    return (0,external_node_fs_.existsSync)('/usr/bin/docker') ? '/usr/bin/docker' : 'docker';
}

// EXTERNAL MODULE: ./src/transport/local.ts
var local = __webpack_require__(2042);
// EXTERNAL MODULE: ./src/transport/transport.ts
var transport = __webpack_require__(1588);
;// CONCATENATED MODULE: ./src/lab/runner.ts
/**
 * The lab's only way to run a command: through a Transport (LocalTransport: this machine).
 * Adds what a lab step needs on top: a deadline, an error that names the step and shows the
 * command and its output, and a heartbeat for long steps.
 */




class LabRunner {
    progress;
    transport;
    constructor(progress = () => { }, transport = new local/* LocalTransport */.V()) {
        this.progress = progress;
        this.transport = transport;
    }
    /** Run and return the result whatever the exit status (for probes). */
    probe(cmd, timeoutMs = 30_000, stdin) {
        return this.transport.run(cmd, { timeoutMs, ...(stdin !== undefined ? { stdin } : {}) });
    }
    /** Run a step; a failure becomes a LabError saying what was being done. */
    async step(what, cmd, opts = {}) {
        const started = Date.now();
        const beat = opts.heartbeatMs
            ? setInterval(() => this.progress(`  still ${what} (${Math.round((Date.now() - started) / 1000)} s)`), opts.heartbeatMs)
            : undefined;
        try {
            const r = await this.transport.run(cmd, {
                timeoutMs: opts.timeoutMs ?? 60_000,
                ...(opts.stdin !== undefined ? { stdin: opts.stdin } : {}),
            });
            if (!(0,transport/* succeeded */.gq)(r)) {
                throw new lab_error_LabError('command-failed', `${what} failed (${(0,transport/* outcome */.bu)(r)}): ${(0,shell/* render */.XX)(cmd)}`, opts.fix, tail(`${r.stdout}\n${r.stderr}`, 25));
            }
            return r;
        }
        finally {
            if (beat)
                clearInterval(beat);
        }
    }
    /** stdout of a step, trimmed. */
    async text(what, cmd, opts = {}) {
        return (await this.step(what, cmd, opts)).stdout.trim();
    }
}
/** Lines of a command's stdout, empty ones dropped. */
const lines = (text) => text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);

;// CONCATENATED MODULE: ./src/lab/context.ts
/**
 * What every lab step needs: where the lab lives, how to run commands, how to report progress.
 */



function labContext(opts) {
    const progress = opts.onProgress ?? (() => { });
    const dockerBin = dockerBinary();
    // A bad $VRD_LAB_INSTANCE is an error even with an explicit lab dir: the names would be wrong.
    requireLabInstance();
    const root = resolveLabDir(opts.dir);
    if (/[,:"\n]/.test(root)) {
        throw new Error(`the lab dir is bind-mounted into the nodes, so its path cannot contain ',', ':', '"' or a newline: ${root}`);
    }
    return {
        paths: labPaths(root, labCacheDir(opts.dir)),
        runner: new LabRunner(progress),
        dockerBin,
        docker: dockerCommands(dockerBin),
        progress,
        assets: assetsDir(),
        mirror: process.env.VRD_LAB_MIRROR ?? 'http://deb.debian.org/debian',
    };
}

;// CONCATENATED MODULE: ./src/lab/docker-inspect.ts
/**
 * Reading what `docker ... inspect` prints. Pure: JSON text in, small typed views out.
 */
const obj = (v) => (v && typeof v === 'object' ? v : {});
const str = (v) => (typeof v === 'string' ? v : '');
const labelsOf = (v) => Object.fromEntries(Object.entries(obj(v)).filter(([, x]) => typeof x === 'string'));
/** `docker ... inspect` prints a JSON array (even when some names were not found: `[]`). */
function parseArray(text) {
    const t = text.trim();
    if (!t)
        return [];
    const parsed = JSON.parse(t);
    return Array.isArray(parsed) ? parsed.map(obj) : [];
}
function parseImageInspect(text) {
    return parseArray(text).map((i) => ({
        id: str(i.Id),
        labels: labelsOf(obj(i.Config).Labels),
        repoDigests: Array.isArray(i.RepoDigests) ? i.RepoDigests.map(str) : [],
        sizeBytes: typeof i.Size === 'number' ? i.Size : 0,
    }));
}
function parseContainerInspect(text) {
    return parseArray(text).map((c) => {
        const state = obj(c.State);
        const nets = obj(obj(c.NetworkSettings).Networks);
        return {
            name: str(c.Name).replace(/^\//, ''),
            id: str(c.Id),
            state: str(state.Status) || 'unknown',
            running: state.Running === true,
            imageId: str(c.Image),
            labels: labelsOf(obj(c.Config).Labels),
            networks: Object.fromEntries(Object.entries(nets).map(([name, n]) => {
                const net = obj(n);
                // A stopped container has no IPAddress; the fixed address it asked for stays in IPAMConfig.
                const ip = str(net.IPAddress) || str(obj(net.IPAMConfig).IPv4Address);
                return [name, { ip, aliases: Array.isArray(net.Aliases) ? net.Aliases.map(str) : [] }];
            })),
        };
    });
}
function parseNetworkInspect(text) {
    return parseArray(text).map((n) => {
        const options = labelsOf(n.Options);
        const bridge = options['com.docker.network.bridge.name'];
        return {
            name: str(n.Name),
            subnets: (Array.isArray(obj(n.IPAM).Config) ? obj(n.IPAM).Config : []).map((c) => str(obj(c).Subnet)),
            internal: n.Internal === true,
            ...(bridge ? { bridge } : {}),
            labels: labelsOf(n.Labels),
        };
    });
}

;// CONCATENATED MODULE: ./src/lab/host-commands.ts
/**
 * Commands the lab runs on this machine besides docker: the egress guard (iptables), rootfs
 * building (debootstrap, chroot, tar), keys (ssh-keygen) and wheels (pip). Pure data.
 */


const GUARD_CHAIN = 'DOCKER-USER';
/** The comment that marks this lab instance's rules (`vrd-lab-egress-guard` for instance 1). */
const GUARD_COMMENT = INSTANCE.guardComment;
/**
 * The egress guard: nothing that enters this machine from a lab bridge may be forwarded to any
 * other interface. Node-to-node traffic stays on the bridge; this machine talks to the nodes
 * directly (INPUT/OUTPUT, not FORWARD), so the guard never gets in the way of the lab itself.
 * One rule per bridge, as the rule spec without the chain operation.
 */
function guardRules(networks, comment = GUARD_COMMENT) {
    return networks.map((n) => ['-i', n.bridge, '!', '-o', n.bridge, '-m', 'comment', '--comment', comment, '-j', 'DROP']);
}
const iptables = (...args) => (0,shell/* argv */.vU)('iptables', '-w', '5', ...args);
const iptablesCommands = {
    /** Exit 0 when the rule is present. */
    check: (rule) => iptables('-C', GUARD_CHAIN, ...rule),
    /** Insert at the top, before docker's own RETURN. */
    insert: (rule) => iptables('-I', GUARD_CHAIN, '1', ...rule),
    remove: (rule) => iptables('-D', GUARD_CHAIN, ...rule),
    list: () => iptables('-S', GUARD_CHAIN),
};
/**
 * Rules of `iptables -S <chain>` output that carry the lab's comment, as specs ready for `-D`.
 * iptables prints our rules without quotes (the comment has no spaces), so splitting on
 * whitespace is exact for them.
 */
function labRulesIn(listing, chain = GUARD_CHAIN, comment = GUARD_COMMENT) {
    return listing
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l.startsWith(`-A ${chain} `) && l.split(/\s+/).includes(comment))
        .map((l) => l.split(/\s+/).slice(2));
}
/**
 * What runs inside a chroot gets this machine's environment: a `$TMPDIR` of the host (a test run's
 * own temp folder) names no directory in the new root, and dpkg's maintainer scripts then fail on
 * mktemp. Every command that runs programs in a chroot (debootstrap's second stage, chroot) gets
 * the root's own /tmp.
 */
const IN_ROOT_ENV = { TMPDIR: '/tmp' };
const debootstrap = (s) => (0,shell/* withEnv */.Eh)(IN_ROOT_ENV, 'debootstrap', '--variant=minbase', `--cache-dir=${s.cacheDir}`, s.suite, s.target, s.mirror);
/** Run a program inside a rootfs tree. */
const chroot = (root, ...args) => (0,shell/* withEnv */.Eh)(IN_ROOT_ENV, 'chroot', root, ...args);
const copyTree = (source, target) => (0,shell/* argv */.vU)('cp', '-a', '--', source, target);
/** `tar` of a directory's contents, numeric owners, to stdout. */
const tarDir = (dir) => (0,shell/* argv */.vU)('tar', '-C', dir, '--numeric-owner', '-cf', '-', '.');
/** `tar -C dir -cf - . | <importer>` (the importer reads the tarball on stdin). */
const tarInto = (dir, importer) => (0,shell/* pipe */.Fs)(tarDir(dir), importer);
const sshKeygen = (path, comment) => (0,shell/* argv */.vU)('ssh-keygen', '-q', '-t', 'ed25519', '-N', '', '-C', comment, '-f', path);
/** Wheels for the workload, for a given interpreter and platform, binary only. */
const pipDownload = (s) => (0,shell/* argv */.vU)(s.python, '-m', 'pip', 'download', '--disable-pip-version-check', '--progress-bar', 'off', '--only-binary=:all:', '--python-version', s.pythonVersion, ...s.platforms.flatMap((p) => ['--platform', p]), ...s.requirements.flatMap((r) => ['-r', r]), ...(s.extra ?? []), '-d', s.dest);

// EXTERNAL MODULE: external "node:crypto"
var external_node_crypto_ = __webpack_require__(7598);
;// CONCATENATED MODULE: ./src/lab/content-hash.ts
/**
 * Content hashes that decide whether a cached image is still good: an image is rebuilt exactly
 * when the hash of what it is made of changes. The hash is stored as an image label.
 */



const HASH_LABEL = 'vrd-lab.hash';
/** Files under `dir` (recursively), sorted, skipping caches that do not change behaviour. */
function listFiles(dir) {
    const out = [];
    const walk = (d) => {
        for (const e of (0,external_node_fs_.readdirSync)(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
            if (e.name === '__pycache__' || e.name === '.pytest_cache' || e.name.endsWith('.pyc') || e.name.endsWith('.egg-info'))
                continue;
            const p = (0,external_node_path_.join)(d, e.name);
            if (e.isDirectory())
                walk(p);
            else if (e.isFile())
                out.push(p);
        }
    };
    walk(dir);
    return out;
}
function contentHash(input) {
    const h = (0,external_node_crypto_.createHash)('sha256');
    for (const v of input.values ?? [])
        h.update(`v\0${v}\0`);
    const files = [...(input.files ?? []), ...(input.dirs ?? []).flatMap(listFiles)];
    for (const f of files) {
        const name = input.base ? (0,external_node_path_.relative)(input.base, f) : f;
        const exec = ((0,external_node_fs_.statSync)(f).mode & 0o111) !== 0;
        h.update(`f\0${name}\0${exec ? 'x' : '-'}\0`);
        h.update((0,external_node_fs_.readFileSync)(f));
        h.update('\0');
    }
    return h.digest('hex').slice(0, 16);
}

;// CONCATENATED MODULE: ./src/lab/images.ts
/**
 * The lab's images, built from nothing on this machine (no container registry is reachable):
 *
 *   debootstrap bookworm minbase (cached tree) ─┬─ chroot: node packages ──── import → vrd-lab/node-base
 *                                               │     └─ docker build --network none (assets) → vrd-lab/node
 *                                               ├─ chroot: python3 & co ───── import → vrd-lab/workload-base
 *                                               └─ chroot: docker-registry ── binary + libs → vrd-lab/registry
 *
 * Each image carries a content hash label; a cached image is reused exactly when its hash still
 * matches what it is made of.
 */







/** Bumped when the recipe changes in a way the hashed files do not show. */
const RECIPE = 'vrd-lab-images-1';
const SUITE = 'bookworm';
/** Packages of each chroot profile (recommends off). */
const PROFILE_PACKAGES = {
    node: [
        'openssh-server',
        'docker.io',
        'python3',
        'iproute2',
        'iptables',
        'procps',
        'sudo',
        'curl',
        'ca-certificates',
        'less',
        'iputils-ping',
        'netcat-openbsd',
        'jq',
    ],
    workload: ['python3', 'python3-venv', 'iproute2', 'procps', 'curl', 'ca-certificates'],
    registry: ['docker-registry'],
};
const MINUTE = 60_000;
async function inspectImage(ctx, ref) {
    const r = await ctx.runner.probe(ctx.docker.imageInspect(ref));
    if (r.code !== 0)
        return undefined;
    return parseImageInspect(r.stdout)[0];
}
/** The debootstrap tree every image starts from, built once and kept in the cache. */
async function ensureMinbase(ctx) {
    const { paths } = ctx;
    const done = `${paths.minbaseRootfs}.complete`;
    if ((0,external_node_fs_.existsSync)(done) && (0,external_node_fs_.existsSync)(paths.minbaseRootfs))
        return paths.minbaseRootfs;
    const tmp = `${paths.minbaseRootfs}.partial`;
    await (0,promises_.rm)(tmp, { recursive: true, force: true });
    await (0,promises_.rm)(paths.minbaseRootfs, { recursive: true, force: true });
    await (0,promises_.mkdir)((0,external_node_path_.dirname)(tmp), { recursive: true });
    await (0,promises_.mkdir)(paths.debCache, { recursive: true });
    const started = Date.now();
    ctx.progress(`debootstrap ${SUITE} minbase from ${ctx.mirror} (about 25 s cold)`);
    await ctx.runner.step(`debootstrap ${SUITE}`, debootstrap({ suite: SUITE, target: tmp, mirror: ctx.mirror, cacheDir: paths.debCache }), {
        timeoutMs: 20 * MINUTE,
        heartbeatMs: 15_000,
        fix: `check that ${ctx.mirror} is reachable from this machine`,
    });
    await (0,promises_.rename)(tmp, paths.minbaseRootfs);
    await (0,promises_.writeFile)(done, `${new Date().toISOString()}\n`);
    ctx.progress(`debootstrap done in ${secs(started)}`);
    return paths.minbaseRootfs;
}
const profileHash = (ctx, profile) => contentHash({
    values: [RECIPE, SUITE, ctx.mirror, profile, ...PROFILE_PACKAGES[profile]],
    files: [(0,external_node_path_.join)(ctx.assets, 'rootfs-setup.sh'), ...(profile === 'registry' ? [(0,external_node_path_.join)(ctx.assets, 'registry-config.yml')] : [])],
    base: ctx.assets,
});
const IMPORT_CHANGES = {
    node: ['ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', 'CMD ["/bin/bash"]'],
    workload: ['ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', 'CMD ["/bin/bash"]'],
    registry: ['EXPOSE 5000', 'CMD ["/usr/bin/docker-registry", "serve", "/etc/docker/registry/config.yml"]'],
};
const PROFILE_IMAGE = {
    node: IMAGES.nodeBase,
    workload: IMAGES.workloadBase,
    registry: IMAGES.registry,
};
/** Build (or reuse) the image of one chroot profile. Returns its content hash. */
async function ensureRootfsImage(ctx, profile, changed) {
    const ref = PROFILE_IMAGE[profile];
    const hash = profileHash(ctx, profile);
    const current = await inspectImage(ctx, ref);
    if (current?.labels[HASH_LABEL] === hash)
        return hash;
    const minbase = await ensureMinbase(ctx);
    const work = (0,external_node_path_.join)(ctx.paths.build, `rootfs-${profile}`);
    const started = Date.now();
    await (0,promises_.rm)(work, { recursive: true, force: true });
    await (0,promises_.mkdir)(ctx.paths.build, { recursive: true });
    try {
        ctx.progress(`${ref}: installing ${PROFILE_PACKAGES[profile].join(' ')} in a chroot`);
        await ctx.runner.step(`copy the minbase tree for ${profile}`, copyTree(minbase, work), { timeoutMs: 5 * MINUTE });
        await (0,promises_.writeFile)((0,external_node_path_.join)(work, 'etc', 'resolv.conf'), await (0,promises_.readFile)('/etc/resolv.conf'));
        await (0,promises_.copyFile)((0,external_node_path_.join)(ctx.assets, 'rootfs-setup.sh'), (0,external_node_path_.join)(work, 'tmp', 'vrd-lab-rootfs-setup.sh'));
        await ctx.runner.step(`install the ${profile} packages in the chroot`, chroot(work, '/bin/sh', '/tmp/vrd-lab-rootfs-setup.sh', profile, ctx.mirror, ...PROFILE_PACKAGES[profile]), { timeoutMs: 20 * MINUTE, heartbeatMs: 15_000, fix: `check that ${ctx.mirror} is reachable from this machine` });
        let tree = work;
        if (profile === 'registry') {
            tree = (0,external_node_path_.join)(work, 'vrd-lab-export');
            await (0,promises_.copyFile)((0,external_node_path_.join)(ctx.assets, 'registry-config.yml'), (0,external_node_path_.join)(tree, 'etc', 'docker', 'registry', 'config.yml'));
        }
        const changes = [...IMPORT_CHANGES[profile], `LABEL ${LABEL}=1`, `LABEL ${HASH_LABEL}=${hash}`];
        await ctx.runner.step(`import ${ref}`, tarInto(tree, ctx.docker.importImage(ref, changes)), { timeoutMs: 10 * MINUTE });
    }
    finally {
        await (0,promises_.rm)(work, { recursive: true, force: true });
    }
    ctx.progress(`${ref} built in ${secs(started)}`);
    changed.push(`image ${ref}`);
    return hash;
}
/** vrd-lab/node: node-base plus the lab's init, fake GPU tools, runtime wrapper and sshd settings. */
async function ensureNodeImage(ctx, changed) {
    const baseHash = await ensureRootfsImage(ctx, 'node', changed);
    const files = ['node.Dockerfile', 'node-init.sh', 'runc-lab', 'nvidia-smi', 'gpu-memory', 'nvidia-container-runtime-hook', 'sshd_config'];
    const hash = contentHash({ values: [RECIPE, baseHash], files: files.map((f) => (0,external_node_path_.join)(ctx.assets, f)), base: ctx.assets });
    const current = await inspectImage(ctx, IMAGES.node);
    if (current?.labels[HASH_LABEL] === hash)
        return current;
    const started = Date.now();
    ctx.progress(`${IMAGES.node}: adding the lab's files (docker build --network none)`);
    await ctx.runner.step(`build ${IMAGES.node}`, ctx.docker.build({
        tag: IMAGES.node,
        context: ctx.assets,
        dockerfile: (0,external_node_path_.join)(ctx.assets, 'node.Dockerfile'),
        buildArgs: { BASE: IMAGES.nodeBase },
        labels: { [LABEL]: '1', [HASH_LABEL]: hash },
    }), { timeoutMs: 10 * MINUTE });
    ctx.progress(`${IMAGES.node} built in ${secs(started)}`);
    changed.push(`image ${IMAGES.node}`);
    const built = await inspectImage(ctx, IMAGES.node);
    if (!built)
        throw new Error(`${IMAGES.node} is missing right after its build`);
    return built;
}
async function ensureRegistryImage(ctx, changed) {
    await ensureRootfsImage(ctx, 'registry', changed);
}
const secs = (since) => `${((Date.now() - since) / 1000).toFixed(1)} s`;

;// CONCATENATED MODULE: ./src/lab/keys.ts
/**
 * SSH identity of the lab: one client key, one ed25519 host key per node (generated here, so
 * they can be pinned before the node even starts), and the files that pin them.
 */





/** `ssh-ed25519 AAAA...` from a `.pub` file's text (the comment dropped). */
function publicKeyOf(pubText) {
    const [type, key] = pubText.trim().split(/\s+/);
    if (!type || !key)
        throw new Error(`not an OpenSSH public key: ${JSON.stringify(pubText.slice(0, 40))}`);
    return `${type} ${key}`;
}
/**
 * known_hosts lines: each node by mgmt IP (what the manifest and the tool use), by hostname,
 * and by its fabric IP and alias (what the nodes use between themselves).
 */
function knownHostsText(pins) {
    const lines = pins.map(({ node, hostKey }) => `${[node.mgmtIp, node.name, node.fabricIp, node.fabricAlias].join(',')} ${hostKey}`);
    return `# vrd-lab: host keys of the lab nodes (generated by the lab, pinned)\n${lines.join('\n')}\n`;
}
/** An ssh_config for `ssh -F <file> spark-a` (and `docker -H ssh://spark-a` with it). */
function sshConfigText(pins, keyPath, knownHostsPath, user) {
    const blocks = pins.map(({ node }) => [`Host ${node.name} ${node.mgmtIp}`, `  HostName ${node.mgmtIp}`, `  HostKeyAlias ${node.mgmtIp}`, `  User ${user}`].join('\n'));
    return [
        '# vrd-lab: ssh -F <this file> spark-a',
        ...blocks,
        'Host *',
        `  IdentityFile ${keyPath}`,
        '  IdentitiesOnly yes',
        `  UserKnownHostsFile ${knownHostsPath}`,
        '  StrictHostKeyChecking yes',
        '  GlobalKnownHostsFile /dev/null',
        '  LogLevel ERROR',
        '',
    ].join('\n');
}
async function ensureKeyPair(ctx, path, comment) {
    if (!(0,external_node_fs_.existsSync)(path) || !(0,external_node_fs_.existsSync)(`${path}.pub`)) {
        await ctx.runner.step(`generate ${comment}`, sshKeygen(`${path}.new`, comment));
        await (0,promises_.rename)(`${path}.new.pub`, `${path}.pub`);
        await (0,promises_.rename)(`${path}.new`, path);
    }
    await (0,promises_.chmod)(path, 0o600);
    return publicKeyOf(await (0,promises_.readFile)(`${path}.pub`, 'utf8'));
}
const ensureClientKey = (ctx) => ensureKeyPair(ctx, ctx.paths.sshKey, 'vrd-lab client');
/** The node's host key pair, in the node's own folder of the files mounted at /etc/vrd-lab. */
async function ensureHostKey(ctx, node) {
    const dir = nodeFilesDir(ctx.paths, node.name);
    await (0,promises_.mkdir)(dir, { recursive: true });
    return ensureKeyPair(ctx, (0,external_node_path_.join)(dir, 'ssh_host_ed25519_key'), `vrd-lab host key of ${node.name}`);
}
/** Write a file through a rename in the same folder, so no reader sees half of it. */
async function writeAtomic(path, text, mode = 0o644) {
    await (0,promises_.writeFile)(`${path}.tmp`, text, { mode });
    await (0,promises_.chmod)(`${path}.tmp`, mode);
    await (0,promises_.rename)(`${path}.tmp`, path);
}
/**
 * The lab's SSH files: `<lab>/known_hosts`, `<lab>/ssh_config`, and the cluster folder every
 * node sees at /etc/vrd-lab/cluster (authorized_keys, the client key so nodes can ssh to each
 * other, and the same known_hosts).
 */
async function writeSshFiles(ctx, clientPublicKey, pins, user) {
    const { paths } = ctx;
    const known = knownHostsText(pins);
    await (0,promises_.mkdir)(paths.clusterFiles, { recursive: true });
    await writeAtomic(paths.knownHosts, known);
    await writeAtomic((0,external_node_path_.join)(paths.clusterFiles, 'known_hosts'), known);
    await writeAtomic((0,external_node_path_.join)(paths.clusterFiles, 'authorized_keys'), `${clientPublicKey} vrd-lab\n`);
    await (0,promises_.copyFile)(paths.sshKey, (0,external_node_path_.join)(paths.clusterFiles, 'id_ed25519'));
    await (0,promises_.chmod)((0,external_node_path_.join)(paths.clusterFiles, 'id_ed25519'), 0o600);
    await writeAtomic(paths.sshConfig, sshConfigText(pins, paths.sshKey, paths.knownHosts, user));
}

;// CONCATENATED MODULE: ./src/lab/lock.ts
/**
 * One lab operation at a time per lab dir: `mkdir` is atomic. A lock whose process is gone is
 * taken over.
 */



const alive = (pid) => {
    try {
        process.kill(pid, 0);
        return true;
    }
    catch (e) {
        return e.code === 'EPERM';
    }
};
/**
 * Runs fn holding the lock. A held lock is an error at once, or, with `wait`, after waiting for its
 * holder up to wait.waitMs (checked every 250 ms: the holder is another process).
 */
async function withLabLock(lockDir, what, fn, wait) {
    await (0,promises_.mkdir)((0,external_node_path_.dirname)(lockDir), { recursive: true });
    const deadline = Date.now() + (wait?.waitMs ?? 0);
    let told = false;
    let ownerless = 0;
    for (;;) {
        try {
            await (0,promises_.mkdir)(lockDir);
            break;
        }
        catch (e) {
            if (e.code !== 'EEXIST')
                throw e;
            const holder = (await (0,promises_.readFile)((0,external_node_path_.join)(lockDir, 'owner'), 'utf8').catch(() => '')).trim();
            const pid = Number(holder.split(/\s+/)[0]);
            if (pid && alive(pid)) {
                if (!wait || Date.now() >= deadline) {
                    throw new lab_error_LabError('locked', `another lab operation is running (${holder})`, `wait for it to finish, or remove ${lockDir} if it is gone`);
                }
                if (!told)
                    wait.onWait?.(holder);
                told = true;
                await new Promise((r) => setTimeout(r, 250));
                continue;
            }
            // No owner yet: the holder is between its mkdir and its write. Look again shortly.
            if (!holder && ownerless++ < 20) {
                await new Promise((r) => setTimeout(r, 50));
                continue;
            }
            await (0,promises_.rm)(lockDir, { recursive: true, force: true });
        }
    }
    await (0,promises_.writeFile)((0,external_node_path_.join)(lockDir, 'owner'), `${process.pid} ${what} since ${new Date().toISOString()}\n`);
    try {
        return await fn();
    }
    finally {
        await (0,promises_.rm)(lockDir, { recursive: true, force: true });
    }
}

// EXTERNAL MODULE: ./node_modules/yaml/dist/index.js
var dist = __webpack_require__(8815);
;// CONCATENATED MODULE: ./src/lab/manifest.ts
/**
 * The cluster manifest of the lab, as data, and its YAML text. Pure.
 *
 * Follows src/manifest (examples/dgx-spark-pair.yml and the schema): pinned host keys sit in
 * each node's `ssh.hostKeys`.
 */


const LAB_MODEL = 'vrd-lab/tiny-random';
const LAB_SERVED_MODEL_NAME = 'tiny-random';
const LAB_CONTAINER_NAME = 'vllm-ray';
function labManifest(input) {
    return {
        version: 1,
        cluster: 'lab',
        ssh: { user: input.sshUser, port: input.sshPort, connectTimeoutSeconds: 10 },
        fabric: { interfaces: [input.fabricInterface], subnet: input.fabricSubnet },
        nodes: input.nodes.map((n) => ({
            name: n.name,
            role: n.role,
            ssh: { host: n.sshHost, hostKeys: [n.hostKey] },
            fabricIp: n.fabricIp,
            gpus: n.gpus,
        })),
        image: { ref: input.imageRef, distribution: 'pull' },
        container: {
            name: LAB_CONTAINER_NAME,
            gpus: 'all',
            shmSize: '1g',
            extraArgs: [],
            env: {},
        },
        // Small nodes: a 100 MB object store and one CPU each keep Ray light on a 2-core machine.
        ray: { port: 6379, dashboard: false, objectStoreMemoryBytes: 100_000_000, extraArgs: ['--num-cpus=1'] },
        vllm: {
            model: LAB_MODEL,
            servedModelName: LAB_SERVED_MODEL_NAME,
            tensorParallelSize: input.nodes.length,
            pipelineParallelSize: 1,
            port: 8000,
            args: [],
        },
        launch: { mode: 'builtin' },
        smoke: {
            readyTimeoutSeconds: 300,
            requestTimeoutSeconds: 30,
            prompts: [{ prompt: 'Say hello', maxTokens: 8, expect: { minCompletionTokens: 1 } }],
        },
        deploy: { onFailure: 'rollback', lockTtlMinutes: 30, releasesKept: 2 },
    };
}
/** A path as a person types it here: relative to the working directory when it is under it. */
const shownPath = (path) => {
    const rel = (0,external_node_path_.relative)(process.cwd(), path);
    return rel && !rel.startsWith('..') && !(0,external_node_path_.isAbsolute)(rel) ? rel : path;
};
function labManifestHeader(input) {
    const names = input.nodes.map((n) => `${n.name} ${n.sshHost}`).join(', ');
    return [
        ' Generated by `vllm-ray-deploy lab up`; rewritten on every up, do not edit.',
        ` The lab: ${input.nodes.length} simulated DGX Spark node(s) in Docker on this machine (${names}),`,
        ` one fake NVIDIA GB10 each, fabric ${input.fabricSubnet} on ${input.fabricInterface}, the vLLM stand-in`,
        ' served from the lab registry. SSH with the lab key and its pinned host keys:',
        `   ssh -F ${input.sshConfigPath ? shownPath(input.sshConfigPath) : '.lab/ssh_config'} ${input.nodes[0]?.name ?? 'spark-a'}`,
    ].join('\n');
}
function renderLabManifest(input) {
    const doc = new dist/* Document */.yo(labManifest(input));
    doc.commentBefore = labManifestHeader(input);
    return doc.toString({ lineWidth: 0 });
}

;// CONCATENATED MODULE: ./src/lab/node-container.ts
/**
 * How a lab node and the lab registry are run, as data (ContainerSpec). Pure.
 */


/** Label holding a hash of the container's spec: a node whose spec changed is recreated. */
const CONFIG_LABEL = 'vrd-lab.config';
const ROLE_LABEL = 'vrd-lab.role';
const NODE_LABEL = 'vrd-lab.node';
const PRIVILEGED_LABEL = 'vrd-lab.privileged';
const DIR_LABEL = 'vrd-lab.dir';
/**
 * On hosts that cannot grant `--privileged` (a capability bounding set without
 * CAP_SYS_RESOURCE), the node gets every capability the host has and no confinement instead.
 * The init script then remounts /sys and the cgroup hierarchies read-write.
 */
const UNPRIVILEGED_NODE_FLAGS = {
    capAdd: ['ALL'],
    capDrop: ['SYS_RESOURCE'],
    securityOpts: ['seccomp=unconfined', 'apparmor=unconfined', 'systempaths=unconfined'],
    deviceCgroupRules: ['a *:* rwm'],
};
/**
 * Docker's embedded DNS forwards names it does not know to the upstream resolver, from the
 * node's namespace, along the mgmt default route. Upstream 127.0.0.1 (nothing listens) keeps
 * every query local, and timeout 1 / attempts 1 makes such a lookup fail in about 2 s.
 */
const NODE_DNS = { dns: ['127.0.0.1'], dnsOptions: ['timeout:1', 'attempts:1'] };
function withConfigHash(spec) {
    const hash = (0,external_node_crypto_.createHash)('sha256').update(JSON.stringify(spec)).digest('hex').slice(0, 16);
    return { ...spec, labels: { ...spec.labels, [CONFIG_LABEL]: hash } };
}
/**
 * The node as created on the mgmt network; the fabric network is connected before the first
 * start (see `fabricAttachment`), so the node boots with both interfaces.
 */
function nodeContainerSpec(layout, node, o) {
    return withConfigHash({
        name: node.container,
        image: o.image,
        hostname: node.name,
        init: true,
        cgroupns: 'private',
        ...(o.privileged ? { privileged: true } : UNPRIVILEGED_NODE_FLAGS),
        network: layout.mgmt.name,
        ip: node.mgmtIp,
        aliases: [node.name],
        ...NODE_DNS,
        mounts: [
            { type: 'volume', source: node.dockerVolume, target: '/var/lib/docker' },
            { type: 'bind', source: o.nodeFilesDir, target: '/etc/vrd-lab', readonly: true },
        ],
        env: {
            VRD_LAB_MGMT_IP: node.mgmtIp,
            VRD_LAB_MGMT_GATEWAY: layout.mgmt.gateway,
            VRD_LAB_FABRIC_IP: node.fabricIp,
            VRD_LAB_MGMT_IFNAME: layout.mgmtIfname,
            VRD_LAB_FABRIC_IFNAME: layout.fabricIfname,
            VRD_LAB_REGISTRY: layout.registry.nodeHost,
        },
        labels: {
            [LABEL]: INSTANCE.labelValue,
            [ROLE_LABEL]: 'node',
            [NODE_LABEL]: node.name,
            [PRIVILEGED_LABEL]: String(o.privileged),
            [DIR_LABEL]: o.labDir,
            // The fabric attachment is part of the node's shape too.
            'vrd-lab.fabric': `${layout.fabric.name}=${node.fabricIp}`,
            // sshd loads its host key at boot: a new key in the lab dir needs a new container.
            'vrd-lab.host-key': (0,external_node_crypto_.createHash)('sha256').update(o.hostKey).digest('hex').slice(0, 16),
        },
        stopTimeoutSeconds: 20,
    });
}
const fabricAttachment = (layout, node) => ({ network: layout.fabric.name, ip: node.fabricIp, aliases: [node.fabricAlias] });
function registryContainerSpec(layout, image) {
    const r = layout.registry;
    return withConfigHash({
        name: r.container,
        image,
        network: layout.mgmt.name,
        ip: r.ip,
        aliases: ['registry'],
        ...NODE_DNS,
        publish: [`${r.hostHost}:${r.port}`],
        mounts: [{ type: 'volume', source: r.volume, target: '/var/lib/registry' }],
        labels: { [LABEL]: INSTANCE.labelValue, [ROLE_LABEL]: 'registry' },
    });
}
/** A throw-away container that only tells whether `--privileged` can start here. */
const privilegeProbeSpec = (image) => ({
    name: 'vrd-lab-privilege-probe',
    image,
    privileged: true,
    network: 'none',
    labels: { [LABEL]: INSTANCE.labelValue, [ROLE_LABEL]: 'probe' },
});

;// CONCATENATED MODULE: ./src/lab/preconditions.ts
/**
 * What the lab needs from this machine, checked before anything is changed. The lab installs
 * nothing by itself: a missing piece is an error that says exactly what to run.
 */



/** Full path of a program as PATH would find it, or undefined. */
function findProgram(name, path = process.env.PATH ?? '') {
    const candidates = (0,external_node_path_.isAbsolute)(name)
        ? [name]
        : path
            .split(external_node_path_.delimiter)
            .filter(Boolean)
            .map((d) => (0,external_node_path_.join)(d, name));
    for (const c of candidates) {
        try {
            (0,external_node_fs_.accessSync)(c, external_node_fs_.constants.X_OK);
            return c;
        }
        catch {
            // not here
        }
    }
    return undefined;
}
const PACKAGE_OF = {
    debootstrap: 'debootstrap',
    iptables: 'iptables',
    'ssh-keygen': 'openssh-client',
    chroot: 'coreutils',
    tar: 'tar',
};
function requireProgram(name, why) {
    const found = findProgram(name);
    if (found)
        return found;
    const pkg = PACKAGE_OF[name] ?? name;
    throw new lab_error_LabError('missing-tool', `${name} is not installed; the lab needs it to ${why}`, `apt-get install -y ${pkg}`);
}
function requireRoot() {
    if (typeof process.getuid === 'function' && process.getuid() !== 0) {
        throw new lab_error_LabError('not-root', 'the lab needs root on this machine (debootstrap, chroot, iptables for the egress guard)', 'run it as root, e.g. sudo -E vllm-ray-deploy lab up');
    }
}
/** Docker client present and its daemon answering; returns the server version. */
async function requireDocker(ctx) {
    if (!findProgram(ctx.dockerBin)) {
        throw new lab_error_LabError('missing-tool', `docker is not installed (looked for ${ctx.dockerBin}; set VRD_DOCKER to use another client)`, 'apt-get install -y docker.io debootstrap');
    }
    const r = await ctx.runner.probe(ctx.docker.serverVersion(), 20_000);
    if (r.code !== 0 || !r.stdout.trim()) {
        throw new lab_error_LabError('docker-unreachable', `the docker daemon is not answering (${ctx.dockerBin} version)`, 'start it: dockerd > /var/log/dockerd.log 2>&1 &   (or: systemctl start docker)', tail(r.stderr || r.stdout, 5));
    }
    return r.stdout.trim();
}
/** Everything `lab up` may use; checked up front so a missing tool fails before any change. */
async function requireUpTools(ctx) {
    requireRoot();
    const version = await requireDocker(ctx);
    requireProgram('iptables', 'install the egress guard');
    requireProgram('ssh-keygen', 'make the SSH keys');
    requireProgram('debootstrap', 'build the node images from Debian packages');
    requireProgram('chroot', 'install packages into the image trees');
    requireProgram('tar', 'turn image trees into docker images');
    return version;
}

// EXTERNAL MODULE: external "node:net"
var external_node_net_ = __webpack_require__(7030);
;// CONCATENATED MODULE: ./src/lab/probes.ts
/**
 * Network probes from this machine to the lab's own addresses (mgmt IPs, 127.0.0.1). Nothing
 * here is ever aimed anywhere else.
 */

/** The SSH identification line a server sends first (`SSH-2.0-OpenSSH_9.2p1 ...`), or undefined. */
function sshBanner(host, port = 22, timeoutMs = 2_000) {
    return new Promise((resolve) => {
        let buf = '';
        const socket = (0,external_node_net_.connect)({ host, port });
        const done = (v) => {
            clearTimeout(timer);
            socket.destroy();
            resolve(v);
        };
        const timer = setTimeout(() => done(undefined), timeoutMs);
        socket.setEncoding('utf8');
        socket.on('data', (chunk) => {
            buf += chunk;
            const nl = buf.indexOf('\n');
            if (nl >= 0)
                done(buf.startsWith('SSH-') ? buf.slice(0, nl).trim() : undefined);
        });
        socket.on('error', () => done(undefined));
        socket.on('close', () => done(undefined));
    });
}
/** HTTP status of a GET/HEAD to a loopback URL, or undefined when nothing answered. */
async function httpStatus(url, init = {}, timeoutMs = 3_000) {
    // A ref'd timer, not AbortSignal.timeout (whose timer is unref'd): while the request is pending
    // the process stays alive until the deadline, whatever undici does with its socket.
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), timeoutMs);
    try {
        const r = await fetch(url, { method: init.method ?? 'GET', headers: init.headers ?? {}, signal: abort.signal });
        await r.arrayBuffer().catch(() => undefined);
        return { status: r.status, headers: r.headers };
    }
    catch {
        return undefined;
    }
    finally {
        clearTimeout(timer);
    }
}
/** Poll `check` every `intervalMs` until it returns a value or `timeoutMs` passes. */
async function waitFor(check, timeoutMs, intervalMs = 100) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
        const v = await check();
        if (v !== undefined)
            return v;
        if (Date.now() > deadline)
            return undefined;
        await new Promise((r) => setTimeout(r, intervalMs));
    }
}

;// CONCATENATED MODULE: ./src/lab/workload-image.ts
/**
 * The workload image: the vLLM stand-in (src/lab/workload/) with Ray, for the lab nodes to pull
 * from the lab registry.
 *
 *   1. vrd-lab/workload-base (debootstrap minbase + python3, venv, iproute2, procps, curl)
 *   2. wheels of requirements.txt downloaded on this machine (cp311, manylinux x86_64), cached
 *   3. the stand-in as a wheel, when it is a package (pyproject.toml / setup.py)
 *   4. `docker build --network none`: offline install into /opt/venv. The recipe is the
 *      workload folder's own `Dockerfile` when it has one (same context layout: wheels/,
 *      workload/), else src/lab/assets/workload.Dockerfile (which also takes pkg/, the
 *      stand-in prebuilt as a wheel); an optional `Dockerfile.fragment` is appended
 *   5. push to the lab registry (127.0.0.1:5000 from here = 172.30.230.5:5000 for the nodes)
 *
 * Cached by a content hash of the workload folder, requirements and recipe (image label).
 */












const workload_image_RECIPE = 'vrd-lab-workload-1';
const workload_image_MINUTE = 60_000;
/** The interpreter and platforms the wheels are for: the image's python3 (bookworm: 3.11). */
const WHEEL_TARGET = {
    pythonVersion: '3.11',
    platforms: ['manylinux2014_x86_64', 'manylinux_2_17_x86_64'],
};
const FRAGMENT_FILE = 'Dockerfile.fragment';
const workloadRefs = {
    local: IMAGES.workload,
    host: `${REGISTRY.hostHost}/${WORKLOAD_REPOSITORY}:${WORKLOAD_TAG}`,
    node: `${REGISTRY.nodeHost}/${WORKLOAD_REPOSITORY}:${WORKLOAD_TAG}`,
};
/** Wheel files pip reports for this requirements set (new downloads and cache hits alike). */
function downloadedFiles(pipOutput) {
    const out = new Set();
    for (const line of pipOutput.split('\n')) {
        const m = /^\s*(?:Saved|File was already downloaded)\s+(\S+)\s*$/.exec(line);
        if (m)
            out.add(m[1]);
    }
    return [...out];
}
/** The stand-in's folder (src/lab/workload unless another is given). */
function resolveWorkloadSource(dir) {
    const wanted = dir ?? workloadSourceDir();
    if ((0,external_node_fs_.existsSync)((0,external_node_path_.join)(wanted, 'requirements.txt')))
        return { dir: wanted };
    throw new lab_error_LabError('bad-input', `${wanted} has no requirements.txt`, 'put the workload requirements (at least ray) in requirements.txt there');
}
const isPackage = (dir) => (0,external_node_fs_.existsSync)((0,external_node_path_.join)(dir, 'pyproject.toml')) || (0,external_node_fs_.existsSync)((0,external_node_path_.join)(dir, 'setup.py'));
/** Build (when its hash changed) and push (when the registry lacks it) the workload image. */
async function ensureWorkloadImage(ctx, changed, opts = {}) {
    const src = resolveWorkloadSource(opts.workloadDir);
    const baseHash = await ensureRootfsImage(ctx, 'workload', changed);
    const recipe = (0,external_node_fs_.existsSync)((0,external_node_path_.join)(src.dir, 'Dockerfile')) ? (0,external_node_path_.join)(src.dir, 'Dockerfile') : (0,external_node_path_.join)(ctx.assets, 'workload.Dockerfile');
    const hash = contentHash({
        values: [workload_image_RECIPE, baseHash, WHEEL_TARGET.pythonVersion, ...WHEEL_TARGET.platforms],
        files: [recipe],
        dirs: [src.dir],
        base: src.dir,
    });
    let image = await inspectImage(ctx, IMAGES.workload);
    let built = false;
    if (opts.force || image?.labels[HASH_LABEL] !== hash) {
        await buildImage(ctx, src.dir, recipe, hash);
        image = await inspectImage(ctx, IMAGES.workload);
        built = true;
        changed.push(`image ${IMAGES.workload}`);
    }
    if (!image)
        throw new Error(`${IMAGES.workload} is missing right after its build`);
    let pushed = false;
    if (opts.push !== false) {
        pushed = await pushIfNeeded(ctx, image.repoDigests);
        if (pushed)
            changed.push(`registry ${workloadRefs.node}`);
    }
    const after = (await inspectImage(ctx, IMAGES.workload)) ?? image;
    return {
        ref: workloadRefs.node,
        hostRef: workloadRefs.host,
        localRef: workloadRefs.local,
        id: after.id,
        hash,
        sourceDir: src.dir,
        built,
        pushed,
    };
}
async function buildImage(ctx, srcDir, recipe, hash) {
    const started = Date.now();
    const python = process.env.VRD_LAB_PYTHON ?? 'python3';
    requireProgram(python, 'download the workload wheels');
    const ctxDir = (0,external_node_path_.join)(ctx.paths.build, 'workload-context');
    await (0,promises_.rm)(ctxDir, { recursive: true, force: true });
    await (0,promises_.mkdir)((0,external_node_path_.join)(ctxDir, 'wheels'), { recursive: true });
    await (0,promises_.mkdir)((0,external_node_path_.join)(ctxDir, 'pkg'), { recursive: true });
    await (0,promises_.mkdir)(ctx.paths.wheels, { recursive: true });
    try {
        // Wheels, on this machine (PyPI is reachable here, not from the build).
        ctx.progress(`workload: downloading wheels for ${(0,external_node_path_.join)(srcDir, 'requirements.txt')} (cp311, manylinux x86_64)`);
        const dl = await ctx.runner.step('download the workload wheels', pipDownload({
            python,
            requirements: [(0,external_node_path_.join)(srcDir, 'requirements.txt')],
            dest: ctx.paths.wheels,
            ...WHEEL_TARGET,
        }), { timeoutMs: 20 * workload_image_MINUTE, heartbeatMs: 15_000, fix: `check that PyPI is reachable and that ${python} -m pip works (apt-get install -y python3-pip)` });
        const wheels = downloadedFiles(dl.stdout);
        if (wheels.length === 0)
            throw new lab_error_LabError('command-failed', 'pip download reported no files', undefined, dl.stdout.slice(-2000));
        for (const w of wheels) {
            const target = (0,external_node_path_.join)(ctxDir, 'wheels', (0,external_node_path_.basename)(w));
            await (0,promises_.link)(w, target).catch(() => (0,promises_.copyFile)(w, target));
        }
        // The stand-in's own source, and its wheel when it is a package (built from a copy, so
        // the build never writes into the source folder).
        await ctx.runner.step('copy the workload source', copyTree(srcDir, (0,external_node_path_.join)(ctxDir, 'workload')));
        // The lab's own recipe installs the stand-in from pkg/; a workload Dockerfile does it itself.
        if ((0,external_node_path_.dirname)(recipe) !== srcDir && isPackage(srcDir)) {
            const buildSrc = (0,external_node_path_.join)(ctx.paths.build, 'workload-package-src');
            await (0,promises_.rm)(buildSrc, { recursive: true, force: true });
            await ctx.runner.step('copy the workload package', copyTree(srcDir, buildSrc));
            ctx.progress('workload: building the stand-in package as a wheel');
            await ctx.runner.step('build the stand-in wheel', (0,shell/* argv */.vU)(python, '-m', 'pip', 'wheel', '--disable-pip-version-check', '--no-deps', '--wheel-dir', (0,external_node_path_.join)(ctxDir, 'pkg'), buildSrc), { timeoutMs: 10 * workload_image_MINUTE });
            await (0,promises_.rm)(buildSrc, { recursive: true, force: true });
        }
        let dockerfile = await (0,promises_.readFile)(recipe, 'utf8');
        const fragment = (0,external_node_path_.join)(srcDir, FRAGMENT_FILE);
        if ((0,external_node_fs_.existsSync)(fragment))
            dockerfile += `\n# ---- ${FRAGMENT_FILE} from the workload folder\n${await (0,promises_.readFile)(fragment, 'utf8')}\n`;
        await (0,promises_.writeFile)((0,external_node_path_.join)(ctxDir, 'Dockerfile'), dockerfile);
        ctx.progress(`workload: docker build --network none (${wheels.length} wheels)`);
        await ctx.runner.step(`build ${IMAGES.workload}`, ctx.docker.build({
            tag: IMAGES.workload,
            context: ctxDir,
            dockerfile: (0,external_node_path_.join)(ctxDir, 'Dockerfile'),
            buildArgs: { BASE: IMAGES.workloadBase },
            labels: { [LABEL]: '1', [HASH_LABEL]: hash },
        }), { timeoutMs: 20 * workload_image_MINUTE, heartbeatMs: 15_000 });
    }
    finally {
        await (0,promises_.rm)(ctxDir, { recursive: true, force: true });
    }
    ctx.progress(`${IMAGES.workload} built in ${secs(started)}`);
}
/** Digest the lab registry holds for the workload tag, or undefined. */
async function registryDigest() {
    const r = await httpStatus(`http://${REGISTRY.hostHost}/v2/${WORKLOAD_REPOSITORY}/manifests/${WORKLOAD_TAG}`, {
        method: 'HEAD',
        headers: { Accept: 'application/vnd.docker.distribution.manifest.v2+json' },
    });
    return r?.status === 200 ? (r.headers.get('docker-content-digest') ?? undefined) : undefined;
}
async function pushIfNeeded(ctx, repoDigests) {
    const inRegistry = await registryDigest();
    const repo = `${REGISTRY.hostHost}/${WORKLOAD_REPOSITORY}@`;
    const local = repoDigests.find((d) => d.startsWith(repo))?.slice(repo.length);
    if (inRegistry && local === inRegistry)
        return false;
    const started = Date.now();
    ctx.progress(`workload: pushing to the lab registry as ${workloadRefs.host}`);
    await ctx.runner.step('tag the workload image for the registry', ctx.docker.tag(IMAGES.workload, workloadRefs.host));
    await ctx.runner.step(`push ${workloadRefs.host}`, ctx.docker.push(workloadRefs.host), {
        timeoutMs: 20 * workload_image_MINUTE,
        heartbeatMs: 15_000,
        fix: 'the lab registry must be running: vllm-ray-deploy lab up',
    });
    ctx.progress(`workload: pushed in ${secs(started)}`);
    return true;
}

;// CONCATENATED MODULE: ./src/lab/lab.ts
/**
 * `lab up` and `lab down`: simulated DGX Spark nodes in Docker on this machine.
 *
 * up (idempotent; a second run reuses everything and only checks):
 *   keys → images → egress guard → networks → registry → nodes (wait for sshd) → workload image
 *   → known_hosts, ssh_config, manifest.yml, lab.json
 * down: containers, networks, volumes and the egress rules; `purge` also images and cache.
 */
















const SSH_USER = 'root';
const SSH_PORT = 22;
const NODE_READY_TIMEOUT_MS = 120_000;
// ---------------------------------------------------------------------------------------------
// reading what exists
/** Every container the lab made (by label, and by name prefix in case a label was lost). */
async function labContainers(ctx) {
    const names = new Set();
    for (const filter of [INSTANCE.labelFilter, `name=^${PREFIX}-`]) {
        const r = await ctx.runner.step('list lab containers', ctx.docker.containersByFilter(filter));
        for (const n of lines(r.stdout))
            names.add(n);
    }
    if (names.size === 0)
        return [];
    const r = await ctx.runner.probe(ctx.docker.containerInspect([...names]));
    return parseContainerInspect(r.stdout);
}
async function labNetworkNames(ctx) {
    const names = new Set();
    for (const filter of [INSTANCE.labelFilter, `name=${PREFIX}-`]) {
        const r = await ctx.runner.step('list lab networks', ctx.docker.networkNamesByFilter(filter));
        for (const n of lines(r.stdout))
            if (n.startsWith(`${PREFIX}-`) || filter === INSTANCE.labelFilter)
                names.add(n);
    }
    return [...names];
}
async function labVolumeNames(ctx) {
    const names = new Set();
    for (const filter of [INSTANCE.labelFilter, `name=${PREFIX}-`]) {
        const r = await ctx.runner.step('list lab volumes', ctx.docker.volumesByFilter(filter));
        for (const n of lines(r.stdout))
            if (n.startsWith(`${PREFIX}-`) || filter === INSTANCE.labelFilter)
                names.add(n);
    }
    return [...names];
}
async function labGuardRules(ctx) {
    const r = await ctx.runner.probe(iptablesCommands.list());
    if (r.code !== 0)
        return { rules: [], error: tail(r.stderr || r.stdout, 3) };
    return { rules: labRulesIn(r.stdout) };
}
// ---------------------------------------------------------------------------------------------
// up
async function labUp(opts = {}) {
    const ctx = labContext(opts);
    const started = Date.now();
    const serverVersion = await requireUpTools(ctx);
    if (opts.nodes !== undefined)
        validateNodeCount(opts.nodes);
    return withLabLock(ctx.paths.lock, 'lab up', async () => {
        const changed = [];
        const existing = await labContainers(ctx);
        const existingNodes = existing.filter((c) => c.labels[ROLE_LABEL] === 'node');
        const count = validateNodeCount(opts.nodes ?? Math.min(Math.max(existingNodes.length, DEFAULT_NODES), 4));
        const layout = labLayout(count);
        ctx.progress(`lab up: ${count} node(s) in ${ctx.paths.root}`);
        // Keys first: the nodes read them when they boot.
        await (0,promises_.mkdir)(ctx.paths.root, { recursive: true });
        const clientKey = await ensureClientKey(ctx);
        const pins = [];
        for (const node of layout.nodes)
            pins.push({ node, hostKey: await ensureHostKey(ctx, node) });
        await writeSshFiles(ctx, clientKey, pins, SSH_USER);
        const nodeImage = await withImagesLock(ctx, async () => {
            const image = await ensureNodeImage(ctx, changed);
            await ensureRegistryImage(ctx, changed);
            return image;
        });
        // The guard goes in before any lab container can send a packet.
        await ensureEgressGuard(ctx, layout, changed);
        await ensureNetwork(ctx, layout.mgmt, changed);
        await ensureNetwork(ctx, layout.fabric, changed);
        await ensureRegistry(ctx, layout, existing, changed);
        // Nodes beyond the wanted count go (with their docker volume).
        const wanted = new Set(layout.nodes.map((n) => n.container));
        const extra = existingNodes.filter((c) => !wanted.has(c.name));
        if (extra.length > 0) {
            await ctx.runner.step('remove extra nodes', ctx.docker.removeContainers(extra.map((c) => c.name)));
            const vols = extra.map((c) => `${c.name}-docker`);
            await ctx.runner.probe(ctx.docker.volumeRemove(vols));
            changed.push(...extra.map((c) => `removed ${c.name}`));
        }
        const privileged = await decidePrivileged(ctx, existingNodes);
        for (const node of layout.nodes) {
            await ensureNode(ctx, layout, node, pins.find((p) => p.node.name === node.name).hostKey, nodeImage, privileged, existing, changed);
        }
        await waitForNodes(ctx, layout.nodes);
        const workloadImage = await withImagesLock(ctx, () => ensureWorkloadImage(ctx, changed));
        const nodes = pins.map(({ node, hostKey }) => ({
            name: node.name,
            role: node.role,
            container: node.container,
            hostname: node.name,
            mgmtIp: node.mgmtIp,
            fabricIp: node.fabricIp,
            mgmtInterface: layout.mgmtIfname,
            fabricInterface: layout.fabricIfname,
            sshHost: node.mgmtIp,
            hostKey,
            gpus: 1,
        }));
        await (0,promises_.writeFile)(ctx.paths.manifest, renderLabManifest({
            nodes,
            sshUser: SSH_USER,
            sshPort: SSH_PORT,
            fabricInterface: layout.fabricIfname,
            fabricSubnet: layout.fabric.subnet,
            imageRef: workloadImage.ref,
            sshConfigPath: ctx.paths.sshConfig,
        }));
        const info = {
            dir: ctx.paths.root,
            manifestPath: ctx.paths.manifest,
            sshKeyPath: ctx.paths.sshKey,
            knownHostsPath: ctx.paths.knownHosts,
            sshConfigPath: ctx.paths.sshConfig,
            sshUser: SSH_USER,
            sshPort: SSH_PORT,
            nodes,
            networks: { mgmt: layout.mgmt, fabric: layout.fabric },
            registry: { container: layout.registry.container, nodeAddress: layout.registry.nodeHost, hostAddress: layout.registry.hostHost },
            workloadImage,
            privileged,
            docker: { binary: ctx.dockerBin, serverVersion },
            durationMs: Date.now() - started,
            changed,
        };
        await (0,promises_.writeFile)(ctx.paths.state, `${JSON.stringify(info, null, 2)}\n`);
        ctx.progress(`lab up: ready in ${secs(started)}${changed.length ? ` (${changed.length} change(s))` : ' (nothing to change)'}`);
        return info;
    });
}
/**
 * The images (and the build cache) are shared by every lab instance on this machine: one instance
 * checks or builds them at a time, and another one waits for it (a first build takes minutes).
 */
const IMAGES_WAIT_MS = 30 * 60_000;
function withImagesLock(ctx, fn) {
    return withLabLock(ctx.paths.imagesLock, 'lab images', fn, {
        waitMs: IMAGES_WAIT_MS,
        onWait: (holder) => ctx.progress(`lab up: waiting for another lab's image build (${holder})`),
    });
}
async function ensureEgressGuard(ctx, layout, changed) {
    for (const rule of guardRules([layout.mgmt, layout.fabric])) {
        const present = await ctx.runner.probe(iptablesCommands.check(rule));
        if (present.code === 0)
            continue;
        await ctx.runner.step('install the egress guard', iptablesCommands.insert(rule), {
            fix: "the lab needs iptables and docker's DOCKER-USER chain (dockerd started with iptables enabled)",
        });
        changed.push(`egress guard on ${rule[1]}`);
    }
}
async function ensureNetwork(ctx, net, changed) {
    const r = await ctx.runner.probe(ctx.docker.networkInspect(net.name));
    if (r.code === 0) {
        const found = parseNetworkInspect(r.stdout)[0];
        if (found?.subnets.includes(net.subnet) && found.internal === net.internal && found.bridge === net.bridge)
            return;
        throw new lab_error_LabError('conflict', `docker network ${net.name} exists but is not the lab's (want subnet ${net.subnet}, bridge ${net.bridge}, internal ${net.internal}; found ${JSON.stringify(found)})`, 'vllm-ray-deploy lab down   (removes it), then lab up again');
    }
    await ctx.runner.step(`create network ${net.name}`, ctx.docker.networkCreate(net, { [LABEL]: INSTANCE.labelValue }), {
        fix: `another docker network may already use ${net.subnet}: docker network ls, then remove it`,
    });
    changed.push(`network ${net.name}`);
}
async function ensureRegistry(ctx, layout, existing, changed) {
    const spec = registryContainerSpec(layout, IMAGES.registry);
    const imageId = (await inspectImage(ctx, IMAGES.registry))?.id;
    const current = existing.find((c) => c.name === spec.name);
    if (current && current.labels[CONFIG_LABEL] === spec.labels?.[CONFIG_LABEL] && current.imageId === imageId) {
        if (!current.running) {
            await ctx.runner.step('start the lab registry', ctx.docker.start(spec.name));
            changed.push(`started ${spec.name}`);
        }
    }
    else {
        if (current)
            await ctx.runner.step('remove the outdated lab registry', ctx.docker.removeContainers([spec.name]));
        await ctx.runner.step('create the registry volume', ctx.docker.volumeCreate(layout.registry.volume, { [LABEL]: INSTANCE.labelValue }));
        await ctx.runner.step('create the lab registry', ctx.docker.create(spec), {
            fix: `port ${layout.registry.hostHost} may be taken on this machine: ss -ltnp | grep ':${layout.registry.hostHost.split(':')[1]} '`,
        });
        await ctx.runner.step('start the lab registry', ctx.docker.start(spec.name));
        changed.push(`registry ${spec.name}`);
    }
    const url = `http://${layout.registry.hostHost}/v2/`;
    const ok = await waitFor(async () => ((await httpStatus(url))?.status === 200 ? true : undefined), 30_000);
    if (!ok) {
        const logs = await ctx.runner.probe(ctx.docker.logs(spec.name, 20));
        throw new lab_error_LabError('not-ready', `the lab registry does not answer at ${url}`, undefined, tail(logs.stdout + logs.stderr));
    }
}
/**
 * `--privileged` where the host can grant it; otherwise the unprivileged node flags. Decided
 * once per lab (kept on the node containers), or forced by VRD_LAB_PRIVILEGED=always|never.
 */
async function decidePrivileged(ctx, existingNodes) {
    const mode = (process.env.VRD_LAB_PRIVILEGED ?? 'auto').toLowerCase();
    if (['always', 'yes', 'true', '1'].includes(mode))
        return true;
    if (['never', 'no', 'false', '0'].includes(mode))
        return false;
    const known = existingNodes.map((c) => c.labels[PRIVILEGED_LABEL]).find((v) => v === 'true' || v === 'false');
    if (known)
        return known === 'true';
    const probe = await ctx.runner.probe(ctx.docker.runOnce(privilegeProbeSpec(IMAGES.node), '/bin/true'), 60_000);
    const works = probe.code === 0;
    ctx.progress(works
        ? 'nodes run with --privileged'
        : 'this host cannot grant --privileged (no CAP_SYS_RESOURCE in the bounding set?): nodes get all other capabilities, unconfined');
    return works;
}
async function ensureNode(ctx, layout, node, hostKey, nodeImage, privileged, existing, changed) {
    const spec = nodeContainerSpec(layout, node, {
        image: IMAGES.node,
        privileged,
        nodeFilesDir: ctx.paths.nodeFiles,
        labDir: ctx.paths.root,
        hostKey,
    });
    const fabric = fabricAttachment(layout, node);
    const current = existing.find((c) => c.name === node.container);
    if (current &&
        current.labels[CONFIG_LABEL] === spec.labels?.[CONFIG_LABEL] &&
        current.imageId === nodeImage.id &&
        current.networks[fabric.network]?.ip === fabric.ip) {
        if (!current.running) {
            ctx.progress(`${node.name}: starting`);
            await ctx.runner.step(`start ${node.container}`, ctx.docker.start(node.container));
            changed.push(`started ${node.container}`);
        }
        return;
    }
    if (current) {
        ctx.progress(`${node.name}: recreating (image or settings changed; its docker volume is kept)`);
        await ctx.runner.step(`remove the outdated ${node.container}`, ctx.docker.removeContainers([node.container]));
    }
    else {
        ctx.progress(`${node.name}: creating (${node.mgmtIp} mgmt, ${node.fabricIp} fabric)`);
    }
    await ctx.runner.step(`create volume ${node.dockerVolume}`, ctx.docker.volumeCreate(node.dockerVolume, { [LABEL]: INSTANCE.labelValue }));
    await ctx.runner.step(`create ${node.container}`, ctx.docker.create(spec));
    await ctx.runner.step(`attach ${node.container} to the fabric`, ctx.docker.networkConnect(fabric.network, node.container, fabric.ip, fabric.aliases));
    await ctx.runner.step(`start ${node.container}`, ctx.docker.start(node.container));
    changed.push(`node ${node.container}`);
}
/** sshd starts last in the node's init, so an SSH banner means the nested dockerd is up too. */
async function waitForNodes(ctx, nodes) {
    const started = Date.now();
    await Promise.all(nodes.map(async (node) => {
        const banner = await waitFor(async () => {
            const b = await sshBanner(node.mgmtIp, SSH_PORT, 1_000);
            if (b)
                return b;
            const state = await ctx.runner.probe(ctx.docker.containerInspect([node.container]));
            const view = parseContainerInspect(state.stdout)[0];
            if (view && !view.running)
                throw await nodeFailure(ctx, node, `the container stopped (${view.state})`);
            return undefined;
        }, NODE_READY_TIMEOUT_MS, 150);
        if (!banner)
            throw await nodeFailure(ctx, node, `no SSH banner from ${node.mgmtIp}:22 after ${NODE_READY_TIMEOUT_MS / 1000} s`);
    }));
    ctx.progress(`nodes ready (sshd and nested dockerd) in ${secs(started)}`);
}
async function nodeFailure(ctx, node, what) {
    const logs = await ctx.runner.probe(ctx.docker.logs(node.container, 30));
    return new lab_error_LabError('not-ready', `${node.name} did not come up: ${what}`, `look at: ${ctx.dockerBin} logs ${node.container}; ${ctx.dockerBin} exec ${node.container} cat /var/log/dockerd.log`, tail(`${logs.stdout}\n${logs.stderr}`, 30));
}
async function labDown(opts = {}) {
    const ctx = labContext(opts);
    const started = Date.now();
    requireRoot();
    await requireDocker(ctx);
    return withLabLock(ctx.paths.lock, 'lab down', async () => {
        const containers = (await labContainers(ctx)).map((c) => c.name);
        if (containers.length > 0) {
            ctx.progress(`removing ${containers.join(', ')}`);
            await ctx.runner.step('remove the lab containers', ctx.docker.removeContainers(containers), { timeoutMs: 120_000 });
        }
        const networks = await labNetworkNames(ctx);
        if (networks.length > 0)
            await ctx.runner.step('remove the lab networks', ctx.docker.networkRemove(networks));
        const volumes = await labVolumeNames(ctx);
        if (volumes.length > 0)
            await ctx.runner.step('remove the lab volumes', ctx.docker.volumeRemove(volumes), { timeoutMs: 120_000 });
        const guard = await labGuardRules(ctx);
        for (const rule of guard.rules)
            await ctx.runner.step('remove the egress guard', iptablesCommands.remove(rule));
        await (0,promises_.rm)(ctx.paths.manifest, { force: true });
        await (0,promises_.rm)(ctx.paths.state, { force: true });
        await (0,promises_.rm)(ctx.paths.build, { recursive: true, force: true });
        let images = [];
        if (opts.purge) {
            images = await labImages(ctx);
            if (images.length > 0) {
                ctx.progress(`removing ${images.length} image(s)`);
                // Removing a tag can take untagged parents with it, so a second name in the same batch
                // may already be gone: remove, list again, and fail only on what is really left.
                await ctx.runner.probe(ctx.docker.removeImages(images), 300_000);
                const left = await labImages(ctx);
                if (left.length > 0)
                    await ctx.runner.step('remove the lab images', ctx.docker.removeImages(left), { timeoutMs: 300_000 });
            }
            if ((0,external_node_fs_.existsSync)(ctx.paths.cache))
                await (0,promises_.rm)(ctx.paths.cache, { recursive: true, force: true });
        }
        ctx.progress(`lab down: done in ${secs(started)}`);
        return {
            containers,
            networks,
            volumes,
            guardRules: guard.rules.length,
            images,
            purgedCache: Boolean(opts.purge),
            durationMs: Date.now() - started,
        };
    });
}
/** Every image the lab made: its tags, the registry-qualified tags, and anything labelled. */
async function labImages(ctx) {
    const refs = new Set();
    for (const pattern of ['vrd-lab/*', `${REGISTRY.hostHost}/vrd-lab/*`]) {
        const r = await ctx.runner.step('list lab images', ctx.docker.imagesByReference(pattern));
        for (const l of lines(r.stdout))
            if (!l.endsWith(':<none>'))
                refs.add(l);
    }
    const labelled = await ctx.runner.step('list labelled images', ctx.docker.imagesByLabel(LABEL));
    for (const id of lines(labelled.stdout))
        refs.add(id);
    return [...refs];
}

;// CONCATENATED MODULE: ./src/lab/status.ts
/**
 * `lab status`: what of the lab exists and answers, as data. Reads only; changes nothing.
 */









/** The files of the lab directory a user reaches the lab with; what is missing by file name. */
function labFiles(paths) {
    const wanted = [paths.manifest, paths.sshKey, paths.knownHosts];
    return { dirExists: (0,external_node_fs_.existsSync)(paths.root), missing: wanted.filter((f) => !(0,external_node_fs_.existsSync)(f)).map((f) => (0,external_node_path_.basename)(f)) };
}
/** Healthy: every node runs with sshd and docker answering, the registry answers, guard and networks are there, and so are the lab directory's files. */
function labHealthy(s) {
    return (s.nodes.length > 0 &&
        s.nodes.every((n) => n.state === 'running' && n.sshReachable && n.dockerReady) &&
        s.registryOk &&
        s.guardPresent &&
        s.networks.every((n) => n.present) &&
        s.files.missing.length === 0);
}
async function labStatus(opts = {}) {
    const ctx = labContext(opts);
    const base = { dir: ctx.paths.root, files: labFiles(ctx.paths) };
    const version = findProgram(ctx.dockerBin) ? await ctx.runner.probe(ctx.docker.serverVersion(), 15_000) : undefined;
    if (version?.code !== 0) {
        return {
            ...base,
            docker: {
                ok: false,
                binary: ctx.dockerBin,
                detail: version ? ((version.stderr || version.stdout).trim().split('\n').slice(-1)[0] ?? 'no answer') : `${ctx.dockerBin} not found`,
            },
            nodes: [],
            registry: { container: REGISTRY.container, state: 'unknown', reachable: false, address: REGISTRY.hostHost },
            networks: [],
            egressGuard: { present: false, rules: [] },
            volumes: [],
            healthy: false,
            down: false,
        };
    }
    const containers = await labContainers(ctx);
    const nodeViews = containers.filter((c) => c.labels[ROLE_LABEL] === 'node').sort((a, b) => (a.name < b.name ? -1 : 1));
    const nodes = await Promise.all(nodeViews.map((c) => nodeStatus(ctx, c)));
    const registryView = containers.find((c) => c.name === REGISTRY.container);
    const registryOk = registryView?.running ? (await httpStatus(`http://${REGISTRY.hostHost}/v2/`))?.status === 200 : false;
    const networkNames = new Set(lines((await ctx.runner.probe(ctx.docker.networkNamesByFilter(INSTANCE.labelFilter))).stdout));
    const networks = [layout_MGMT_NETWORK, FABRIC_NETWORK].map((n) => ({ name: n.name, present: networkNames.has(n.name), subnet: n.subnet }));
    const volumes = lines((await ctx.runner.probe(ctx.docker.volumesByFilter(`name=${PREFIX}-`))).stdout).filter((v) => v.startsWith(`${PREFIX}-`));
    const guard = await labGuardRules(ctx);
    const bridges = [layout_MGMT_NETWORK.bridge, FABRIC_NETWORK.bridge];
    const guardPresent = bridges.every((b) => guard.rules.some((r) => r[0] === '-i' && r[1] === b && r.includes('DROP')));
    const healthy = labHealthy({ nodes, networks, files: base.files, registryOk, guardPresent });
    const down = containers.length === 0 && networkNames.size === 0 && volumes.length === 0 && guard.rules.length === 0;
    return {
        ...base,
        docker: { ok: true, binary: ctx.dockerBin, version: version.stdout.trim() },
        nodes,
        registry: {
            container: REGISTRY.container,
            state: registryView?.state ?? 'missing',
            reachable: registryOk,
            address: REGISTRY.hostHost,
        },
        networks,
        egressGuard: {
            present: guardPresent,
            rules: guard.rules.map((r) => r.join(' ')),
            ...(guard.error ? { detail: guard.error } : {}),
        },
        volumes,
        healthy,
        down,
    };
}
async function nodeStatus(ctx, c) {
    const name = c.labels[NODE_LABEL] ?? c.name.replace(`${PREFIX}-`, '');
    const layout = labLayout(MAX_NODES).nodes.find((n) => n.name === name);
    const mgmtIp = c.networks[layout_MGMT_NETWORK.name]?.ip || layout?.mgmtIp;
    const fabricIp = c.networks[FABRIC_NETWORK.name]?.ip || layout?.fabricIp;
    const ips = { ...(mgmtIp ? { mgmtIp } : {}), ...(fabricIp ? { fabricIp } : {}) };
    if (!c.running) {
        return { name, container: c.name, state: c.state, ...ips, sshReachable: false, dockerReady: false };
    }
    const [banner, info] = await Promise.all([
        mgmtIp ? sshBanner(mgmtIp, 22, 2_000) : Promise.resolve(undefined),
        ctx.runner.probe(ctx.docker.exec(c.name, 'docker', 'info', '--format', '{{.ServerVersion}} {{.Driver}}'), 15_000),
    ]);
    const [dockerVersion, storageDriver] = info.code === 0 ? info.stdout.trim().split(/\s+/) : [];
    return {
        name,
        container: c.name,
        state: c.state,
        ...ips,
        sshReachable: banner !== undefined,
        ...(banner ? { sshBanner: banner } : {}),
        dockerReady: info.code === 0,
        ...(dockerVersion ? { dockerVersion } : {}),
        ...(storageDriver ? { storageDriver } : {}),
        ...(info.code !== 0 ? { detail: (info.stderr || info.stdout).trim().split('\n').slice(-1)[0] ?? '' } : {}),
    };
}

;// CONCATENATED MODULE: ./src/lab/status-render.ts
const mark = (ok) => (ok ? 'ok' : 'NO');
function table(rows) {
    const widths = rows[0].map((_, i) => rows.reduce((w, r) => Math.max(w, (r[i] ?? '').length), 0));
    return rows.map((r) => r
        .map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i])))
        .join('  ')
        .trimEnd());
}
function renderLabStatus(s) {
    const out = [];
    if (!s.docker.ok) {
        out.push(`lab ${s.dir}: docker is not usable (${s.docker.binary}: ${s.docker.detail ?? 'no answer'})`);
        return `${out.join('\n')}\n`;
    }
    const verdict = s.healthy ? 'healthy' : s.down ? 'down' : 'NOT healthy';
    out.push(`lab ${s.dir}: ${verdict} (docker ${s.docker.version ?? '?'})`);
    if (s.down)
        return `${out.join('\n')}\n`;
    if (s.files.missing.length > 0)
        out.push(`${s.files.dirExists ? `${s.dir} lacks ${s.files.missing.join(', ')}` : `${s.dir} does not exist`}: the containers below were set up from another directory (VRD_LAB_DIR or another clone); run lab up here, or set VRD_LAB_DIR to that directory`);
    out.push('');
    if (s.nodes.length === 0)
        out.push('no nodes');
    else {
        out.push(...table([
            ['node', 'container', 'state', 'mgmt', 'fabric', 'sshd', 'docker'],
            ...s.nodes.map((n) => [
                n.name,
                n.container,
                n.state,
                n.mgmtIp ?? '-',
                n.fabricIp ?? '-',
                mark(n.sshReachable),
                n.dockerReady ? `ok ${n.dockerVersion ?? ''} ${n.storageDriver ?? ''}`.trimEnd() : `NO${n.detail ? ` (${n.detail})` : ''}`,
            ]),
        ]));
    }
    out.push('');
    out.push(`registry  ${s.registry.container} ${s.registry.state}, ${s.registry.address}/v2/ ${s.registry.reachable ? 'answers' : 'does NOT answer'}`);
    out.push(`networks  ${s.networks.map((n) => `${n.name} ${n.subnet} ${n.present ? 'present' : 'MISSING'}`).join('; ')}`);
    out.push(`egress    ${s.egressGuard.present ? 'guard in place' : 'guard MISSING'} (${s.egressGuard.rules.length} rule(s) in DOCKER-USER)${s.egressGuard.detail ? `: ${s.egressGuard.detail}` : ''}`);
    out.push(`volumes   ${s.volumes.length ? s.volumes.join(', ') : 'none'}`);
    out.push(`files     ${s.files.missing.length === 0 ? 'manifest.yml, id_ed25519, known_hosts present' : `MISSING ${s.files.missing.join(', ')}`}`);
    return `${out.join('\n')}\n`;
}

;// CONCATENATED MODULE: ./src/lab/index.ts
/**
 * The lab: simulated DGX Spark nodes in Docker on this machine (real sshd, a nested dockerd per
 * node, mgmt + fabric networks, a local registry, a fake GB10), for rehearsing rollouts and for
 * the end-to-end tests. See README.md beside this file.
 */






// EXTERNAL MODULE: ./src/report/escape.ts
var report_escape = __webpack_require__(4031);
// EXTERNAL MODULE: ./src/report/verdict.ts
var verdict = __webpack_require__(687);
// EXTERNAL MODULE: ./src/deploy/rollout.ts + 32 modules
var rollout = __webpack_require__(5635);
// EXTERNAL MODULE: ./src/preflight/watch-vllm.ts
var watch_vllm = __webpack_require__(6808);
// EXTERNAL MODULE: ./src/manifest/load.ts + 9 modules
var load = __webpack_require__(538);
// EXTERNAL MODULE: ./src/plan/node-commands.ts
var node_commands = __webpack_require__(6902);
// EXTERNAL MODULE: ./src/transport/ssh.ts + 3 modules
var ssh = __webpack_require__(9096);
// EXTERNAL MODULE: ./src/transport/targets.ts
var targets = __webpack_require__(8687);
;// CONCATENATED MODULE: ./src/lab/scenario.ts
/**
 * Lab scenarios: the lab's own cluster brought up by a launch script, the way users with their own
 * scripts do it (`launch.mode: script`). `healthy` is wired right; `seed-bug` is the incident (Ray
 * head without --node-ip-address, VLLM_HOST_IP on the fabric); `worker-override` is its second bug
 * (a stale VLLM_HOST_IP in the worker section). The run goes through the deploy's own stages (the one
 * deploy plan) up to the point where Ray has every node; `serve` then starts vLLM and watches it.
 */










const SCENARIOS = ['healthy', 'seed-bug', 'worker-override'];
function scenarioDir() {
    const root = repoRoot();
    if (!root)
        throw new lab_error_LabError('not-ready', 'cannot find the lab scenarios (src/lab/scenarios) above this program');
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
    const paths = labPaths(resolveLabDir(dir));
    const privateKey = (0,external_node_fs_.readFileSync)(paths.sshKey, 'utf8');
    const knownHosts = (0,external_node_fs_.readFileSync)(paths.knownHosts, 'utf8');
    const entries = await Promise.all(m.nodes.map(async (n) => [n.name, await ssh/* SshTransport */.e.connect((0,targets/* sshTargetFor */.H)(m, n, { privateKey, knownHosts }))]));
    return new Map(entries);
}
async function loadLabManifest(dir) {
    const path = labPaths(resolveLabDir(dir)).manifest;
    const { manifest, errors } = await (0,load/* loadManifestFile */.KL)(path);
    if (!manifest) {
        throw new lab_error_LabError('not-ready', `the lab's manifest ${path} is missing or invalid${errors[0] ? `: ${errors[0].message}` : ''}`, 'vllm-ray-deploy lab up');
    }
    return { manifest, path };
}
async function runLabScenario(name, opts = {}) {
    const { manifest, path } = await loadLabManifest(opts.dir);
    const root = resolveLabDir(opts.dir);
    (0,external_node_fs_.mkdirSync)((0,external_node_path_.join)(root, 'scenarios'), { recursive: true });
    const launchScript = (0,external_node_path_.join)(root, 'scenarios', `${name}.sh`);
    (0,external_node_fs_.writeFileSync)(launchScript, opts.script ?? scenarioScript(name), { mode: 0o755 });
    const m = { ...manifest, launch: { mode: 'script', path: launchScript, args: [], env: {} } };
    const transports = await labTransports(m, opts.dir);
    try {
        // The deploy's own stages (image, release files, stop previous, launch, every node in Ray), no gates.
        const execution = await (0,rollout/* startUntilRay */.b4)({
            manifest: m,
            manifestPath: path,
            transports,
            env: process.env,
            release: `lab-${name}`,
            who: 'vllm-ray-deploy lab',
            ...(opts.onProgress && { onProgress: opts.onProgress }),
        });
        if (!opts.serve || !execution.ok)
            return { scenario: name, manifestPath: path, launchScript, execution };
        return { scenario: name, manifestPath: path, launchScript, execution, vllm: await serveAndWatch(m, transports, opts) };
    }
    finally {
        await Promise.all([...transports.values()].map((t) => t.close()));
    }
}
/**
 * `vllm serve` on the head of the cluster a scenario left running (runLabScenario without `serve`),
 * watched as runLabScenario's `serve` watches it: for a test that first inspects the cluster before
 * vLLM starts, then starts vLLM on that same cluster.
 */
async function serveLabScenario(opts = {}) {
    const { manifest } = await loadLabManifest(opts.dir);
    const transports = await labTransports(manifest, opts.dir);
    try {
        return await serveAndWatch(manifest, transports, opts);
    }
    finally {
        await Promise.all([...transports.values()].map((t) => t.close()));
    }
}
async function serveAndWatch(m, transports, opts) {
    const head = transports.get((0,node_commands/* headOf */.Uo)(m).name);
    opts.onProgress?.(`== vllm: start vllm serve on ${(0,node_commands/* headOf */.Uo)(m).name} and watch its log`);
    const start = await head.run((0,node_commands/* startVllm */.qH)(m), { timeoutMs: 60_000 });
    if (start.code !== 0) {
        return { started: false, ready: false, findings: [], waitedMs: 0, reason: `vllm serve did not start: ${start.stderr.trim()}`, logTail: '' };
    }
    const watch = await (0,watch_vllm/* watchVllmStartup */.af)(head, m, { deadlineMs: opts.serveDeadlineMs ?? 180_000, ...(opts.onProgress && { onProgress: opts.onProgress }) });
    return { started: true, ...watch };
}

// EXTERNAL MODULE: external "node:child_process"
var external_node_child_process_ = __webpack_require__(1421);
// EXTERNAL MODULE: external "node:os"
var external_node_os_ = __webpack_require__(8161);
// EXTERNAL MODULE: external "node:readline"
var external_node_readline_ = __webpack_require__(481);
;// CONCATENATED MODULE: ./src/lab/hub-mirror.ts
/**
 * The lab's Hugging Face hub mirror (src/lab/hub-mirror/hub_mirror.py), started on this machine
 * and bound to the lab's management gateway (172.30.230.1): the nodes reach it directly (INPUT on
 * this machine, never forwarded, so the egress guard leaves it alone), and so does a container
 * with `--network host` on a node. It serves one model directory at one pinned commit and
 * requires one bearer token; its JSON request log (never the token) is read as events here.
 */








const hubMirrorScript = () => (0,external_node_path_.join)(repoRoot() ?? process.cwd(), 'src', 'lab', 'hub-mirror', 'hub_mirror.py');
async function startHubMirror(o) {
    const work = await mkdtemp(join(tmpdir(), 'vrd-hub-mirror-'));
    const tokenFile = join(work, 'token');
    await writeFile(tokenFile, o.token, { mode: 0o600 });
    const bind = o.bind ?? MGMT_NETWORK.gateway;
    const child = spawn(o.python ?? 'python3', [hubMirrorScript(), '--bind', bind, '--port', '0', '--repo', o.repo, '--dir', o.dir, '--token-file', tokenFile, '--control', work], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c) => (stderr = (stderr + c.toString()).slice(-4000)));
    const events = [];
    const waiters = [];
    let exited;
    const listening = new Promise((resolve, reject) => {
        createInterface({ input: child.stdout }).on('line', (line) => {
            let doc;
            try {
                doc = JSON.parse(line);
            }
            catch {
                return;
            }
            if (doc.event === 'listening')
                return resolve(doc);
            const e = doc;
            events.push(e);
            for (const w of [...waiters])
                if (events.length - 1 >= w.from && w.pred(e)) {
                    waiters.splice(waiters.indexOf(w), 1);
                    w.resolve(e);
                }
        });
        child.on('exit', (code, signal) => {
            exited = new LabError('command-failed', `the hub mirror exited (${signal ?? `exit ${code}`})`, `check ${hubMirrorScript()} runs with python3 here`, stderr);
            reject(exited);
            for (const w of waiters.splice(0))
                w.reject(exited);
        });
        child.on('error', reject);
    });
    const info = await listening;
    const control = async (name, paths) => {
        if (paths.length === 0)
            await rm(join(work, name), { force: true });
        else
            await writeFile(join(work, name), `${paths.join('\n')}\n`);
    };
    return {
        endpoint: `http://${bind}:${info.port}`,
        repo: o.repo,
        commit: info.commit,
        files: info.files,
        events,
        waitFor(pred, from = 0) {
            const seen = events.slice(from).find(pred);
            if (seen)
                return Promise.resolve(seen);
            if (exited)
                return Promise.reject(exited);
            return new Promise((resolve, reject) => waiters.push({ pred, from, resolve, reject }));
        },
        stall: (paths) => control('stall', paths),
        corrupt: (paths) => control('corrupt', paths),
        endless: (paths) => control('endless', paths),
        async stop() {
            if (child.exitCode === null && child.signalCode === null) {
                const gone = new Promise((r) => child.once('exit', r));
                child.kill('SIGTERM');
                await gone;
            }
            await rm(work, { recursive: true, force: true });
        },
    };
}
/** The GETs of file contents (`/{repo}/resolve/...`) among `events`: one per file downloaded. */
const fileDownloads = (events, repo) => events.filter((e) => e.event === 'request' && e.method === 'GET' && e.path.startsWith(`/${repo}/resolve/`));

;// CONCATENATED MODULE: ./src/lab/hub-service.ts
/**
 * `lab hub up|down|status`: the lab's hub mirror (hub_mirror.py, hub-mirror.ts) as a service a
 * person starts by hand, to try `model.source.hub` against the lab: it serves one model directory
 * at a pinned commit on the lab's management gateway, with a token of its own, until `lab hub down`.
 * Its state lives in the lab directory (`hub/`): the token file (0600), the mirror's log, and
 * hub.json (pid, endpoint, repo, commit), so `down` and `status` find the process `up` started.
 */








const REPO = /^[A-Za-z0-9][A-Za-z0-9._-]*\/[A-Za-z0-9][A-Za-z0-9._-]*$/;
const hubDir = (labDir) => (0,external_node_path_.join)(resolveLabDir(labDir), 'hub');
const stateFile = (labDir) => (0,external_node_path_.join)(hubDir(labDir), 'hub.json');
const hub_service_alive = (pid) => {
    try {
        process.kill(pid, 0);
        return true;
    }
    catch {
        return false;
    }
};
/** The mirror `up` started, while its process lives. */
function hubStatus(labDir) {
    const file = stateFile(labDir);
    if (!(0,external_node_fs_.existsSync)(file))
        return undefined;
    try {
        const s = JSON.parse((0,external_node_fs_.readFileSync)(file, 'utf8'));
        return Number.isInteger(s.pid) && hub_service_alive(s.pid) ? s : undefined;
    }
    catch {
        return undefined;
    }
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/**
 * Starts the mirror for `dir` (served as `repo`), detached from this process. Waits for its
 * `listening` line (or its exit) before it returns. `bind`: default the lab's management gateway
 * (`VRD_LAB_HUB_BIND` overrides, e.g. 127.0.0.1 without a lab).
 */
async function hubUp(o) {
    const running = hubStatus(o.labDir);
    if (running)
        return running;
    const model = (0,external_node_path_.resolve)(o.dir);
    if (!(0,external_node_fs_.existsSync)(model) || !(0,external_node_fs_.statSync)(model).isDirectory())
        throw new lab_error_LabError('bad-input', `lab hub up: ${model} is not a directory`, 'give the directory of the model to serve: lab hub up MODEL_DIR [org/name]');
    const repo = o.repo ?? 'vrd-lab/model';
    if (!REPO.test(repo))
        throw new lab_error_LabError('bad-input', `lab hub up: ${JSON.stringify(repo)} is not a repository id (org/name)`, 'name it org/name');
    const dir = hubDir(o.labDir);
    (0,external_node_fs_.mkdirSync)(dir, { recursive: true, mode: 0o700 });
    const tokenFile = (0,external_node_path_.join)(dir, 'token');
    (0,external_node_fs_.writeFileSync)(tokenFile, `hf_lab${(0,external_node_crypto_.randomBytes)(16).toString('hex')}\n`, { mode: 0o600 });
    const logFile = (0,external_node_path_.join)(dir, 'mirror.log');
    const log = (0,external_node_fs_.openSync)(logFile, 'w');
    const bind = o.bind ?? (process.env.VRD_LAB_HUB_BIND || layout_MGMT_NETWORK.gateway);
    const child = (0,external_node_child_process_.spawn)('python3', [hubMirrorScript(), '--bind', bind, '--port', '0', '--repo', repo, '--dir', model, '--token-file', tokenFile, '--control', dir], { detached: true, stdio: ['ignore', log, log] });
    (0,external_node_fs_.closeSync)(log);
    let exited;
    child.on('exit', (code) => (exited = code));
    child.unref();
    // The mirror's first line says where it listens; a mirror that cannot start exits with its reason.
    const deadline = Date.now() + 60_000;
    for (;;) {
        const text = (0,external_node_fs_.readFileSync)(logFile, 'utf8');
        const line = text.split('\n').find((l) => l.includes('"event": "listening"'));
        if (line) {
            const doc = JSON.parse(line);
            const s = { pid: child.pid, endpoint: `http://${bind}:${doc.port}`, repo, commit: doc.commit, dir: model, tokenFile, logFile };
            (0,external_node_fs_.writeFileSync)(stateFile(o.labDir), `${JSON.stringify(s, null, 2)}\n`);
            return s;
        }
        if (exited !== undefined || Date.now() > deadline)
            throw new lab_error_LabError('command-failed', `lab hub up: the mirror ${exited !== undefined ? `exited (${exited})` : 'did not start within 60 s'}`, bind === layout_MGMT_NETWORK.gateway ? 'bring the lab up first (vllm-ray-deploy lab up): the mirror listens on its management gateway' : `check ${logFile}`, text.slice(-2000));
        await sleep(100);
    }
}
/** Stops the mirror `up` started (SIGTERM, then waits for it to go); false when none ran. */
async function hubDown(labDir) {
    const s = hubStatus(labDir);
    (0,external_node_fs_.rmSync)(stateFile(labDir), { force: true });
    if (!s)
        return false;
    process.kill(s.pid, 'SIGTERM');
    for (let i = 0; i < 100 && hub_service_alive(s.pid); i++)
        await sleep(100);
    if (hub_service_alive(s.pid))
        process.kill(s.pid, 'SIGKILL');
    return true;
}
/** The manifest lines and the environment that use the mirror. */
function hubUsage(s) {
    return [
        `hub mirror: ${s.endpoint} serves ${s.dir} as ${s.repo}@${s.commit} (pid ${s.pid}, log ${s.logFile})`,
        'use it in a lab manifest:',
        '  model:',
        '    path: /var/lib/vrd/models/lab-hub',
        '    source:',
        `      hub: { repo: ${s.repo}, revision: ${s.commit}, endpoint: "${s.endpoint}", allowInsecure: true }`,
        `and give the deploy its token: HF_TOKEN="$(cat ${s.tokenFile})" (or --hf-token-file ${s.tokenFile})`,
        'stop it with: vllm-ray-deploy lab hub down',
    ];
}

// EXTERNAL MODULE: ./src/tasks/outcome.ts
var outcome = __webpack_require__(7166);
;// CONCATENATED MODULE: ./src/tasks/lab.ts






const ok = (headline, text, json) => ({
    exitCode: 0,
    headline,
    text,
    json,
    summary: `${(0,verdict/* verdictLine */.MT)('passed', headline)}\n`,
    annotations: [],
    outputs: { result: 'ok' },
    files: [],
});
function labFailure(err) {
    if (!(err instanceof lab_error_LabError))
        throw err;
    return {
        exitCode: 1,
        headline: `lab: ${err.message}`,
        text: `error: ${err.message}\n`,
        json: { error: err.message, code: err.code },
        summary: `${(0,verdict/* verdictLine */.MT)('failed', `lab: ${err.message}`)}\n`,
        annotations: [{ level: 'error', title: `lab ${err.code}`, message: err.message }],
        outputs: { result: 'error' },
        files: [],
    };
}
async function labUpTask(nodes, onProgress) {
    try {
        const info = await labUp({ ...(nodes !== undefined && { nodes }), onProgress });
        const lines = [
            `lab up: ${info.nodes.length} nodes in ${(info.durationMs / 1000).toFixed(1)} s${info.changed.length ? ` (changed: ${info.changed.join(', ')})` : ' (nothing to change)'}`,
            ...info.nodes.map((n) => `  ${n.name.padEnd(8)} ${n.role.padEnd(6)} mgmt ${n.mgmtIp}  fabric ${n.fabricIp}`),
            `manifest:    ${info.manifestPath}`,
            `ssh key:     ${info.sshKeyPath}`,
            `known_hosts: ${info.knownHostsPath}`,
            `try:         vllm-ray-deploy validate --manifest ${info.manifestPath}`,
        ];
        return ok(lines[0], lines.join('\n') + '\n', info);
    }
    catch (err) {
        return labFailure(err);
    }
}
async function labDownTask(purge, onProgress) {
    try {
        const r = await labDown({ purge, onProgress });
        return ok('lab down: removed', `lab down: done\n${JSON.stringify(r, null, 2)}\n`, r);
    }
    catch (err) {
        return labFailure(err);
    }
}
async function labStatusTask() {
    try {
        const s = await labStatus({});
        return ok('lab status', renderLabStatus(s), s);
    }
    catch (err) {
        return labFailure(err);
    }
}
async function labScenarioTask(name, serve, onProgress) {
    if (!name || !SCENARIOS.includes(name)) {
        return (0,outcome/* usageError */.W)(`lab scenario needs one of ${SCENARIOS.join(', ')}${name ? `, not "${name}"` : ''}`);
    }
    try {
        const r = await runLabScenario(name, { serve, onProgress });
        const lines = [
            `scenario ${name}: Ray ${r.execution.ok ? 'up on every node' : `did not come up (${r.execution.stoppedAt?.phase}: ${r.execution.stoppedAt?.reason})`} in ${(r.execution.durationMs / 1000).toFixed(1)} s`,
        ];
        if (r.vllm) {
            lines.push(`vllm: ${r.vllm.ready ? 'ready' : 'NOT ready'}: ${r.vllm.reason}`, ...r.vllm.findings.map((f) => `  ${f.code}: ${f.message}`));
            if (!r.vllm.ready && r.vllm.started)
                lines.push('note: vllm serve is still running (waiting) in the head container; the next scenario or `lab down` removes it');
        }
        lines.push(`next: vllm-ray-deploy preflight --manifest ${r.manifestPath} --ssh-key ${r.manifestPath.replace(/manifest\.yml$/, 'id_ed25519')}`);
        const ok = r.execution.ok && (!r.vllm || r.vllm.ready);
        return {
            exitCode: ok ? 0 : 1,
            headline: lines[0],
            text: lines.join('\n') + '\n',
            json: { scenario: name, ok, execution: r.execution.results.map((s) => ({ id: s.step.id, status: s.status, detail: s.detail })), vllm: r.vllm },
            summary: `${(0,verdict/* verdictLine */.MT)(ok ? 'passed' : 'failed', lines[0])}\n\n${lines.slice(1).map(report_escape/* escapeMarkdown */.F).join('\n\n')}\n`,
            annotations: [],
            outputs: { result: ok ? 'ok' : 'failed' },
            files: [],
        };
    }
    catch (err) {
        return labFailure(err);
    }
}
/** `lab hub up MODEL_DIR [org/name] | down | status`: the lab's hub mirror as a service (src/lab/hub-service.ts). */
async function labHubTask(sub, dir, repo) {
    try {
        if (sub === 'up') {
            if (!dir)
                return (0,outcome/* usageError */.W)('lab hub up needs the model directory to serve: lab hub up MODEL_DIR [org/name]');
            const s = await hubUp({ dir, ...(repo && { repo }) });
            const lines = hubUsage(s);
            return ok(lines[0], `${lines.join('\n')}\n`, s);
        }
        if (sub === 'down') {
            const stopped = await hubDown();
            const line = stopped ? 'lab hub down: the mirror was stopped' : 'lab hub down: no mirror was running';
            return ok(line, `${line}\n`, { stopped });
        }
        if (sub === 'status') {
            const s = hubStatus();
            const lines = s ? hubUsage(s) : ['lab hub: no mirror running (lab hub up MODEL_DIR [org/name] starts one)'];
            return ok(lines[0], `${lines.join('\n')}\n`, s ?? { running: false });
        }
        return (0,outcome/* usageError */.W)(`lab hub needs up, down or status${sub ? `, not "${sub}"` : ''}`);
    }
    catch (err) {
        return labFailure(err);
    }
}


/***/ })

};
;