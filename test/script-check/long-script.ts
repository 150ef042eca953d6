/**
 * A long launch script of the kind DGX Spark owners run (modelled on the constructs of
 * eugr/spark-vllm-docker's launch-cluster.sh, MIT, 1,064 lines at wentbackward/spark-vllm-docker
 * @ 8c1f824: written here, not copied): a usage here-document, an argument loop with an option per
 * feature, per-feature functions with locals, `case`, arrays, `printf -v`, here-documents written to
 * files, `docker exec` and `ssh` strings, `-e` flags built by a function, a head container started
 * with `docker run -d … sleep infinity` and Ray started in it by `docker exec … bash -c`, the workers
 * over ssh. `sections` features make about 52 lines each on a 190-line frame; the identities are
 * pinned consistently, so the static check finds no error in it. The speed bench and the linearity
 * test read it at several lengths.
 */

const HEADER = `#!/bin/bash
# Launch a vLLM cluster on DGX Spark nodes: one container per node, Ray inside.
set -o pipefail

IMAGE_NAME="vllm-node"
CONTAINER_NAME="vllm_node"
DOCKER_ARGS="-e NCCL_IGNORE_CPU_AFFINITY=1 -v $HOME/.cache/huggingface:/root/.cache/huggingface"
if [[ -n "$VLLM_SPARK_EXTRA_DOCKER_ARGS" ]]; then
    DOCKER_ARGS="$DOCKER_ARGS $VLLM_SPARK_EXTRA_DOCKER_ARGS"
fi
ETH_IF=""
IB_IF=""
NODES_ARG=""
ACTION="start"
DAEMON_MODE="false"
MASTER_PORT=6379
PEER_NODES=()
MOD_PATHS=()

usage() {
    cat <<USAGE
Usage: $0 [-n <node_ips>] [-t <image>] [--name <container>] [action]
  -n, --nodes   comma-separated node IPs (the first is the head)
  -t            image (default: $IMAGE_NAME)
  --eth-if      Ethernet interface
  --ib-if       InfiniBand interface
  -d            daemon mode
  action        start | stop | status | exec
USAGE
    exit 1
}
`

const option = (i: number): string => `        --feature-${i})
            FEATURE_${i}_VALUE="$2"
            FEATURE_${i}_ENABLED="true"
            shift
            ;;
`

const ARGS_HEAD = `
while [[ "$#" -gt 0 ]]; do
    case $1 in
        -n|--nodes) NODES_ARG="$2"; shift ;;
        -t) IMAGE_NAME="$2"; shift ;;
        --name) CONTAINER_NAME="$2"; shift ;;
        --eth-if) ETH_IF="$2"; shift ;;
        --ib-if) IB_IF="$2"; shift ;;
        -d) DAEMON_MODE="true" ;;
        -h|--help) usage ;;
`

const ARGS_TAIL = `        start|stop|status) ACTION="$1" ;;
        exec) ACTION="exec"; shift; COMMAND_TO_RUN="$*"; break ;;
        *) echo "Unknown option: $1"; usage ;;
    esac
    shift
done
`

/** One feature: defaults, a function with locals, a case, an array, a here-document, docker exec and ssh strings. */
const feature = (i: number): string => `
# --- feature ${i}: an optional patch set applied in every container ---
FEATURE_${i}_ENABLED="\${FEATURE_${i}_ENABLED:-false}"
FEATURE_${i}_DIR="mods/feature-${i}"
FEATURE_${i}_FILES=("run.sh" "patch-${i}.diff" "README.md")

apply_feature_${i}() {
    local node_ip="$1"
    local container="$2"
    local is_head="$3"
    local dest="/workspace/mods/feature-${i}"
    local cmd_prefix=""
    local kind="dir"
    if [[ "$is_head" != "true" ]]; then
        cmd_prefix="ssh -o BatchMode=yes -o StrictHostKeyChecking=no $node_ip"
    fi
    case "\${FEATURE_${i}_VALUE:-apply}" in
        apply|install) kind="dir" ;;
        *.zip) kind="zip" ;;
        revert) kind="revert" ;;
        *) echo "feature ${i}: unknown mode"; return 1 ;;
    esac
    local script="/tmp/feature-${i}-run.sh"
    cat > "$script" <<EOF
#!/bin/bash
set -e
cd "$dest"
for f in \${FEATURE_${i}_FILES[*]}; do
    test -e "\\$f" || { echo "missing \\$f"; exit 1; }
done
./run.sh $kind
EOF
    $cmd_prefix docker exec "$container" mkdir -p "$dest"
    if [[ "$kind" == "zip" ]]; then
        $cmd_prefix docker exec "$container" python3 -c "import zipfile,sys; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])" "$dest/mod.zip" "$dest"
    fi
    local remote
    printf -v remote 'docker exec %q bash %q' "$container" "$script"
    if [[ "$is_head" == "true" ]]; then
        docker exec "$container" bash -c "cd $dest && ./run.sh $kind"
    else
        ssh -o BatchMode=yes "$node_ip" "$remote"
    fi
    MOD_PATHS+=("$FEATURE_${i}_DIR")
    return 0
}
`

const FRAME_MIDDLE = `
IFS=',' read -r -a ALL_NODES <<< "$NODES_ARG"
HEAD_IP="\${ALL_NODES[0]}"
for ip in "\${ALL_NODES[@]}"; do
    if [[ "$ip" != "$HEAD_IP" ]]; then
        PEER_NODES+=("$ip")
    fi
done
if [[ -z "$HEAD_IP" ]]; then
    echo "Error: no nodes given (-n)."
    usage
fi

cleanup() {
    trap - EXIT INT TERM HUP
    docker stop "$CONTAINER_NAME" >/dev/null 2>&1 || true
    for worker in "\${PEER_NODES[@]}"; do
        ssh "$worker" "docker stop $CONTAINER_NAME" >/dev/null 2>&1 || true
    done
}

get_env_flags() {
    local node_ip="$1"
    printf -- '-e %s ' \\
        "VLLM_HOST_IP=$node_ip" \\
        "NCCL_SOCKET_IFNAME=$ETH_IF" \\
        "GLOO_SOCKET_IFNAME=$ETH_IF" \\
        "NCCL_IB_HCA=$IB_IF" \\
        "RAY_memory_monitor_refresh_ms=0"
}

start_ray_head() {
    local container="$1"
    docker exec -d "$container" bash -c \\
        "ray start --block --head --port $MASTER_PORT --node-ip-address $HEAD_IP --disable-usage-stats >> /proc/1/fd/1 2>&1"
}

start_ray_worker() {
    local worker_ip="$1"; local container="$2"
    ssh -o BatchMode=yes "$worker_ip" \\
        "docker exec -d $container bash -c 'ray start --block --address=$HEAD_IP:$MASTER_PORT --node-ip-address $worker_ip >> /proc/1/fd/1 2>&1'"
}

wait_for_cluster() {
    local retries=30
    local count=0
    while [[ $count -lt $retries ]]; do
        if docker exec "$CONTAINER_NAME" ray status >/dev/null 2>&1; then
            return 0
        fi
        sleep 2
        ((count++))
    done
    echo "Timeout waiting for the cluster."
    exit 1
}

start_cluster() {
    local common="--gpus all -d --rm --network host --ipc=host --name $CONTAINER_NAME $DOCKER_ARGS $IMAGE_NAME"
    docker run --privileged $(get_env_flags "$HEAD_IP") $common sleep infinity
    for worker in "\${PEER_NODES[@]}"; do
        local run_cmd="docker run --privileged $(get_env_flags "$worker") $common"
        ssh "$worker" "$run_cmd sleep infinity"
    done
`

const applyCall = (i: number): string => `    if [[ "$FEATURE_${i}_ENABLED" == "true" ]]; then
        apply_feature_${i} "$HEAD_IP" "$CONTAINER_NAME" true
        for worker in "\${PEER_NODES[@]}"; do
            apply_feature_${i} "$worker" "$CONTAINER_NAME" false
        done
    fi
`

const FRAME_TAIL = `    start_ray_head "$CONTAINER_NAME"
    for worker in "\${PEER_NODES[@]}"; do
        start_ray_worker "$worker" "$CONTAINER_NAME"
    done
    wait_for_cluster
}

case "$ACTION" in
    stop)
        cleanup
        ;;
    status)
        docker exec "$CONTAINER_NAME" ray status || echo "not running"
        ;;
    exec)
        start_cluster
        docker exec -i "$CONTAINER_NAME" bash -c "$COMMAND_TO_RUN"
        ;;
    start)
        start_cluster
        if [[ "$DAEMON_MODE" != "true" ]]; then
            trap cleanup EXIT INT TERM HUP
            docker logs -f "$CONTAINER_NAME"
        fi
        ;;
esac
`

/** The script with `sections` features (about 190 + 52 × sections lines). */
export function longLaunchScript(sections: number): string {
  const ids = Array.from({ length: sections }, (_, i) => i + 1)
  return [HEADER, ARGS_HEAD, ids.map(option).join(''), ARGS_TAIL, ids.map(feature).join(''), FRAME_MIDDLE, ids.map(applyCall).join(''), FRAME_TAIL].join('')
}
