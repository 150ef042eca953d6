/**
 * Never silent on a failure: when a pasted log holds failure lines — a Python traceback or exception,
 * an ERROR/FATAL/CRITICAL record of Ray, vLLM, torch or Python logging, a glog `E`/`F` line, an
 * `NCCL WARN`, a non-zero exit, a kill or a crash — and no signature explained them, one
 * UNRECOGNISED_FAILURE (an error) quotes the first of them with their line numbers, the exception type
 * and the addresses, ports and paths they name, instead of the
 * "No findings" a healthy log gets. Ray's routine WARNING lines, deprecation warnings and NCCL INFO
 * lines are not failure lines.
 */

import { EVIDENCE, type Finding } from './finding.js'
import { patternPrefilter } from './pattern-prefilter.js'
import type { LogicalLine } from './paste-normalise.js'
import { familyHintFinding, familyHintOf, type HintedLine } from './signature-family-hints.js'
import { exitMeaning } from './signature-rules-processes.js'
import { STALL_KIND, createStallReader } from './engine-stall.js'

interface Marker {
  /** What kind of failure line this is, for the evidence. */
  readonly kind: string
  readonly test: RegExp
}

/** The weakest failure lines: read only where nothing else is (see createFailureCollector). */
const FRAME = 'traceback frame'
const NATIVE_FRAME = 'native stack frame'
const WEAK_KINDS: ReadonlySet<string> = new Set([FRAME, NATIVE_FRAME])
const NCCL_TRACE_KIND = 'NCCL error trace'

/**
 * UCX's log record (openucx/ucx src/ucs/debug/log.c, UCS_LOG_FMT, 1.x to 1.20): "[<sec>.<usec>] [<host>:<pid> :<thread>] <file>.c:<line>
 * <component> <LEVEL> <message>", the component "UCX" padded to four, the level one of ucs_log_level_names (FATAL, ERROR, WARN, DIAG, INFO,
 * DEBUG, TRACE…); MPI and other wrappers print it without the time and process ("sock.c:334  UCX  ERROR   connect(…) failed: …"). Only
 * ERROR and FATAL are failures: "UCX  WARN  unused environment variable: UCX_HOME", "UCX  WARN  CPU affinity is not set" are a healthy
 * start's. Captures: LMCache/LMCache#725 (tcp_ep.c send failed), ai-dynamo/dynamo#813 (sock.c connect: Network is unreachable).
 */
const UCX_RECORD = /(?:^|[\s\]])[\w.-]+\.(?:c|cc|cpp|h):\d+\s+UCX\s+(?:ERROR|FATAL)\s/
const UCX_KIND = 'UCX error record'
/** The message of a UCX record and the peer it names ("connect(fd=208, dest_addr=10.25.117.11:64468) failed: Network is unreachable"). */
const UCX_MESSAGE = /\bUCX\s+(?:ERROR|FATAL)\s+(.+)$/
const UCX_PEER = /\b(?:dest_addr|remote_addr|peer(?:_addr)?)=\[?([\w.:-]+?)\]?(?=[,)\s]|$)/

/** torch's store client losing its server (FAILURE_KINDS below; GROUP_WORKING clears it). */
const STORE_LOST_KIND = 'store connection lost'

/**
 * CPython's site.py when a sitecustomize or usercustomize module fails to import (Lib/site.py execsitecustomize, 3.x):
 * "Error in sitecustomize; set PYTHONVERBOSE for traceback:" then one line "<Exception>: <message>"; Python goes on
 * without it, so that next line is no failure (a host's sitecustomize importing a package the image lacks, held-out batch 17).
 */
const CUSTOMIZE_ERROR = /^\s*Error in (?:site|user)customize; set PYTHONVERBOSE for traceback:/
/** NVSHMEM's error-macro records, with the transport module and the message: see the NVSHMEM marker in MARKERS. */
const NVSHMEM_RECORD = /nvshmem[^\s:]*\.(?:cpp|cu|cc|c|h):\d+: (?:NULL value |non-zero status: -?\d+ |error status: -?\d+ \()/i
const NVSHMEM_KIND = 'NVSHMEM error record'

/**
 * A stack dump (py-spy dump, 0.3–0.4: "Thread 7422 (active): \"MainThread\"" then a frame a line, "    all_gather_object
 * (torch/distributed/distributed_c10d.py:3036)") whose process sits in one of torch.distributed's collectives or its rendezvous: people
 * dump a process's stack when it hangs, and one that waits there waits for ranks that never came, or for a fabric that cannot carry the
 * collective (deepseek-ai/DeepEP#202: two nodes whose eRDMA lacked what DeepEP needs, held-out batch 131).
 */
const STACK_DUMP_COLLECTIVE =
  /^\s*(all_gather\w*|all_reduce\w*|all_to_all\w*|broadcast\w*|barrier|monitored_barrier|_store_based_barrier|reduce_scatter\w*|init_process_group|new_group|rendezvous|_create_c10d_store|wait|get|recv|irecv) \((?:[^\s()]*\/)?torch\/distributed\/[\w./]+\.py:\d+\)\s*$/
const STACK_DUMP_KIND = 'a process waiting in a collective (stack dump)'

const COMMAND_NOT_FOUND = 'command not found'
/** bash's "command not found" and its translations (bash's po files), dash's "not found". */
const NOT_FOUND =
  '(?:command not found|not found|未找到命令|Befehl nicht gefunden|コマンドが見つかりません|commande introuvable|orden no encontrada|명령어를 찾을 수 없음|команда не найдена)'
/**
 * A shell running an option word as a command ("bash: line 9: -e: command not found", "bash: 行 9: -e: 未找到命令"): the line before it
 * in the script lost its trailing `\`, so the command it belonged to ended there (the launch-script check's SCRIPT_CONTINUATION_BROKEN).
 */
const OPTION_RUN = new RegExp(String.raw`sh: (?:[^:\n]{0,24}?(\d+): )?(--?[A-Za-z][\w-]*(?:=[^:\s]*)?): ${NOT_FOUND}`)

/** Log-record headers (after the paste normaliser took off Ray's and torch's process prefixes). */
const TIMESTAMP = String.raw`(?:\[?\d{4}-\d\d-\d\d[ T][\d:.,]+Z?\]?\s+)`
const MARKERS: readonly Marker[] = [
  // (also after a logger's words: SGLang's "Scheduler hit an exception: Traceback (most recent call last):", scheduler.py)
  { kind: 'Python traceback', test: /^\s*Traceback \(most recent call last\):|:\s+Traceback \(most recent call last\):/ },
  // A traceback's frame where the excerpt is cut above its header and below its exception (ray-project/ray#61350 and #54812: the middle of a
  // traceback behind a collector's timestamp or a Ray process prefix): Python prints these frames only for an exception or a stack dump.
  { kind: FRAME, test: /^\s*File "[^"\n]+", line \d+, in [\w<]/ },
  // A native process's stack where the excerpt keeps only its tail (vllm-project/vllm#29373: the raylet's frames after its crash, then the
  // server's shutdown): glibc's backtrace_symbols format that Ray's C++ processes print under "*** StackTrace Information ***"
  // ("/…/ray/core/src/ray/raylet/raylet(+0xebc47b) [0x5d9928c2947b] boost::asio::…", "/lib/x86_64-linux-gnu/libc.so.6(__libc_start_main+0x80)
  // [0x77f524e20e40]") and glog's "*** Check failure stack trace: ***" frames ("    @     0x55d3c1a2b3c4  google::LogMessage::Fail()").
  // Printed only when a process dies or dumps its stack.
  { kind: NATIVE_FRAME, test: /^\s*[\w./+-]*[\w.+-]\((?:[\w.:<>~$]*\+0x[0-9a-f]+)?\) \[0x[0-9a-f]+\]|^\s*(?:PC: )?@\s+0x[0-9a-f]{6,}\s+\S/ },
  // "RuntimeError: …", "ray.exceptions.ActorDiedError: …", "torch.distributed.DistBackendError: …", "Exception: …" (not "…Warning:")
  // (also behind a short source tag a log collector adds: "worker  Exception: …", "vllm-1 | RuntimeError: …"; and Ray's re-raise in the
  // caller, the task's own exception in brackets, ray/exceptions.py RayTaskError.as_instanceof_cause: "ray.exceptions.RayTaskError(
  // ModuleNotFoundError): ray::RayWorkerWrapper.__ray_call__() (pid=1152, ip=…)", the line an excerpt keeps when it cuts the traceback)
  {
    kind: 'exception',
    // (and the standard library's lower-case ones: "socket.gaierror: [Errno -2] Name or service not known", socket.herror, socket.timeout;
    // and a binding's classes named in its C library's camel case: NIXL's "nixlRemoteDisconnectError: NIXL_ERR_REMOTE_DISCONNECT",
    // vllm-project/vllm#49238, held-out batch 130)
    test: /^\s*(?:[\w.[\]/-]{1,40}(?:\s{2,}|\s*\|\s))?['"`]?(?:(?:[a-z_][\w]*\.)*(?:(?:(?!nccl)[a-z]{2,8})?[A-Z]\w*(?:Error|Exception)|Exception|KeyboardInterrupt|SystemExit)(?:\([A-Za-z_][\w.]*\))?|socket\.(?:gaierror|herror|timeout))(?::|$)/,
  },
  // NCCL's result names as torch and NCCL print them (nccl.h ncclResult_t): "ncclInternalError: Internal check failed.", "ncclInvalidUsage: …",
  // "ncclUnhandledCudaError: Call to CUDA function failed."; and Ray's error no one retrieved (ray/_private/worker.py):
  // "Unhandled error (suppress with 'RAY_IGNORE_UNHANDLED_ERRORS=1'): ray::RayWorker.execute_method() …"
  // An exception whose class does not end in Error/Exception, named by its module path: "torch._dynamo.exc.BackendCompilerFailed: …",
  // "vllm.v1.engine.exceptions.EngineGenerateFailed: …" (the last line of a traceback with no family).
  { kind: 'exception', test: /^\s*(?:[a-z_]\w*\.){2,}[A-Z]\w+:\s/ },
  // A program's own error message that carries the OS error it caught, as CPython prints an OSError ("[Errno 13] Permission denied: '<path>'"):
  // "✗ [Rank 0] Error creating directories: [Errno 13] Permission denied: '/lustre/checkpoints/…'" (a training guide's recorded job output,
  // 2025), "Error writing checkpoint: [Errno 28] No space left on device". Only "Error <verb>ing …:" right before it, not a retry's
  // "…, retrying: [Errno 111] …" nor vLLM's harmless "Could not determine user, using default path. Error: [Errno 13] …".
  // The same OS error as a line of its own, its exception's class cut off by the paste ("[Errno 13] Permission denied:" /
  // "  '/usr/local/lib/python3.12/dist-packages/flashinfer_cubin/cubins/flashinfer'", ai-dynamo/modelexpress PR #549, held-out batch 142).
  { kind: 'OS error', test: /^\s*\[Errno \d+\] [A-Z][\w /-]+(?::|$)/ },
  { kind: 'OS error in an error message', test: /\bError [a-z]+ing\b[^\n]{0,120}?: \[Errno \d+\] [A-Z]/ },
  // The CUDA toolchain's own fatal errors, which Triton's, FlashInfer's and DeepGEMM's JIT pass on as they come ("ptxas /tmp/tmpbc993top.ptx, line
  // 113; fatal   : Parsing error near '.': syntax error", "ptxas fatal   : Ptx assembly aborted due to errors": ray-project/ray PR #53825,
  // held-out batch 132); printed only when a kernel cannot be built.
  { kind: 'CUDA compiler error', test: /(?:^|\s)(?:ptxas|nvcc|nvlink|fatbinary|cicc)(?:-\w+)?(?: [^\s;]+, line \d+;)? (?:fatal|error)\s*:/ },
  { kind: 'NCCL result', test: /^\s*nccl(?:UnhandledCudaError|SystemError|InternalError|InvalidArgument|InvalidUsage|RemoteError):/ },
  // Other runtimes' own crash and error heads, printed only when the program fails: Go's "panic: runtime error: …" and its "goroutine 1
  // [running]:" (the NVIDIA container toolkit, device plugins, operators and controllers are Go), Rust's "thread 'main' panicked at
  // src/….rs:120:5:" (tokenizers, hf_xet, uv), kubectl's "Error from server (BadRequest): …", apt's "E: Unable to locate package …" in an
  // image build (its warnings are "W: ").
  // gRPC's failed call as Python prints it (grpc/_channel.py _InactiveRpcError's repr), the lines under the exception's head a paste keeps:
  // "\tstatus = StatusCode.UNAVAILABLE", "\tdetails = \"failed to connect to all addresses; last error: … Peer name 10.108.163.118 is not in peer
  // certificate\"", "\tdebug_error_string = \"UNKNOWN:… {grpc_status:14, …}\"" (ray-project/kuberay#889, held-out batch 153: Ray's TLS).
  { kind: 'gRPC error', test: /^\s*(?:status = StatusCode\.(?!OK\b)[A-Z_]+\s*$|details = "|debug_error_string = ")/ },
  // bash's own error for a command or builtin that failed in a script, "<script>: line <n>: <command>: <message>" ("/var/spool/slurm/d/job3559288/
  // slurm_script: line 72: ulimit: open files: cannot modify limit: Invalid argument", NVIDIA-NeMo/RL#1009, held-out batch 152; "line 5: cd: /models:
  // No such file or directory"); and the ROCm math libraries' own error lines ("rocblaslt error: Could not load …/TensileLibrary_lazy_gfx942.dat",
  // pytorch/pytorch#137695: the open-files limit; "rocblas error: Cannot read …").
  { kind: 'ROCm library error', test: /^\s*(?:roc|hip)[a-z]{3,12} error: \S/ },
  { kind: 'runtime panic', test: /^\s*panic: \S|^goroutine \d+ \[running\]:|^thread '[^'\n]*' panicked at / },
  {
    kind: 'tool error',
    test: /^Error from server(?: \(\w+\))?: |^\s*E: (?:Unable to|Package '|Could not|Failed to|The repository|Sub-process|dpkg|Version ')/,
  },
  { kind: 'Ray unhandled error', test: /^\s*Unhandled error \(suppress with '?RAY_IGNORE_UNHANDLED_ERRORS/ },
  // KubeRay's operator giving up on a RayService's cluster (ray-operator/controllers/ray/rayservice_controller.go, 0.5–1.x): "Restart
  // RayCluster … The status of the serve application fruit_app has not been RUNNING for more than 300.000000 seconds. Hence, KubeRay operator
  // labels the RayCluster unhealthy and will prepare a new RayCluster." (later "has been UNHEALTHY or DEPLOY_FAILED for more than …"), logged
  // at INFO: the Serve application never ran and the cluster is being replaced.
  { kind: 'KubeRay replaced the cluster', test: /\bKubeRay operator labels the RayCluster unhealthy\b/ },
  // vLLM "ERROR 04-16 01:01:44 [file.py:620] …", Python logging "2025-01-14 03:08:29,081 ERROR services.py:…", "ERROR:torch…", "FATAL …"
  { kind: 'ERROR/FATAL record', test: new RegExp(String.raw`^\s*${TIMESTAMP}?(?:ERROR|FATAL|CRITICAL)\b`) },
  // Ray's cli_logger (the autoscaler's updater, `ray up`, ray/autoscaler/_private/cli_logger.py) abbreviates its levels: "2022-10-06
  // 11:40:16,543	ERR updater.py:158 -- New status:update-failed", "VERR" its verbose errors (ray-project/ray#29127, held-out batch 158).
  { kind: 'ERROR/FATAL record', test: new RegExp(String.raw`^\s*${TIMESTAMP}(?:ERR|VERR)\s+[\w./-]+\.py:\d+ -- `) },
  // Python logging with the level as a separated field after the time (and the logger's name): the cookbook's
  // "%(asctime)s - %(name)s - %(levelname)s - %(message)s", which GPUStack's gpustack/logging.py uses with a zone-aware time
  // ("2026-07-13 09:35:26.955017+08:00 - gpustack.cmd.prerun - ERROR - Port 10150 required for service 'gpustack' is not available.",
  // logger.fatal() prints CRITICAL), and FastChat's "%(asctime)s | %(levelname)s | %(name)s | %(message)s" ("2023-12-15 00:46:02 | ERROR |
  // stderr | Traceback …", fastchat/utils.py build_logger). The level must be its own field: not "- INFO - … ERROR …" in a message.
  {
    kind: 'ERROR/FATAL record',
    test: /^\s*\[?\d{4}-\d\d-\d\d[ T][\d:.,]+(?:Z|[+-]\d\d:?\d\d)?\]?(?: - [\w.\-<>]+)? (?:-|\|) (?:ERROR|FATAL|CRITICAL) (?:-|\|) /,
  },
  // Run:ai's model streamer (vLLM's --load-format runai_streamer; cpp/common/logging): "[2025-05-16 14:05:43.311] [ERROR  ] [205 256]
  // [s3/client/client.cc:264 @ operator()   ] Failed to download s3 object : socket is closed. (aws-c-io: AWS_IO_SOCKET_CLOSED)", the time
  // optional (run-ai/runai-model-streamer#55, 2025); the level padded to seven, then pid and thread, then file:line @ function.
  { kind: 'ERROR/FATAL record', test: /^\s*(?:\[\d{4}-[^\]]{8,30}\]\s*)?\[(?:ERROR|FATAL|CRITICAL)\s*\]\s*\[\d+ \d+\]\s*\[[^\]]*:\s*\d+ @ / },
  // A launcher's own error line behind its bracketed tags: "[glm53-exl3] ERROR: port 8000 is held by …" (a DGX Spark recipe's start.sh, 2026),
  // shell log helpers' "[10:02:11] [ops-sup] ERROR: …" (`log() { echo "[$(date '+%H:%M:%S')] [ops-sup] $*"; }`) and "[2026-08-03 10:02:11]
  // [ERROR] …" (`log_error() { echo "[$(date …)] [ERROR] $1"; }`): one or two tags, then the level and a colon, or the level as the last tag.
  // Not a bare "[ERROR] `min_frames` is part of …" (transformers' docstring check: NON_FATAL_ERROR_RECORD) and not a level word in a sentence.
  {
    kind: 'ERROR/FATAL record',
    test: /^\s*(?:\[[^\]\n]{1,40}\]\s*){1,2}(?:(?:ERROR|FATAL|CRITICAL)\s*:|\[(?:ERROR|FATAL|CRITICAL)\])\s*\S/,
  },
  // A level in brackets then the record's date (a logger's "[%(levelname)s] %(asctime)s …": "[ERROR] 2026-02-01 09:00:01 vllm: engine failed to
  // start"): the level is the record's own field. Not transformers' bare "[ERROR] `min_frames` is part of …" (no date after it).
  { kind: 'ERROR/FATAL record', test: /^\s*\[(?:ERROR|FATAL|CRITICAL)\]\s+\[?\d{4}-\d\d-\d\d[ T]\d\d:\d\d/ },
  // Huawei CANN's process log (plog) records, as Ascend's HCCL, runtime and graph engine print them: "[ERROR] HCCL(55694,):2026-06-03-06:04:59.040.451
  // [hccl_socket_manager.cc:860] [60446][Wait][LinksEstablishCompleted] is failed. ret[9]." (vllm-project/vllm-ascend#9872, held-out batch 74),
  // "[ERROR] HCCL(17381,python):2022-12-01-03:02:29.001.054 [network_manager.cc:64]…", "[ERROR] RUNTIME(…)", "[ERROR] GE(…)" (CANN's HCCL
  // troubleshooting guide, code index): the level, the module with its pid and process, then the time. Not [WARNING]/[INFO]/[EVENT] records.
  { kind: 'ERROR/FATAL record', test: /^\s*\[(?:ERROR|FATAL)\] [A-Z][A-Z0-9_]{1,24}\(\d+,[^)\n]{0,60}\):/ },
  // Ray's C++ log "[2025-03-03 13:03:38,823 E 53766 2515875] core_worker.cc:499: …" (C: critical); glog "E0220 18:04:58.267797 1310 file.cc:146]";
  // torch "[E1224 13:23:05.48 ProcessGroupNCCL.cpp:542]" and "[E219 08:58:32…]" (the month is not zero-padded), "[E ProcessGroupNCCL.cpp:…]";
  // glog 0.7 on, whose prefix has the year by default (log_year_in_prefix): "E20250722 21:51:37.218041 281441128476960 tcp_transport.cpp:170]"
  // (kvcache-ai/Mooncake#736, held-out batch 130)
  { kind: 'glog E/F record', test: /^\s*(?:\[\d{4}-\d\d-\d\d [\d:,.]+ [EFC] \d+ \d+\]|\[?[EF](?:\d{8}|\d{3,4}) \d\d:\d\d:\d\d|\[[EF] [\w.]+:\d+\])/ },
  // NCCL prints WARN only for errors: "host:pid:tid [0] NCCL WARN …", "transport/net_ib.cu:781 WARN NET/IB …"
  { kind: 'NCCL WARN', test: /\bNCCL WARN\b|\.cu:\d+ WARN\b/ },
  // NCCL's error trace (src/include/checks.h NCCLCHECK: INFO(NCCL_ALL, "%s:%d -> %d", __FILE__, __LINE__, res); proxy.cc's progress thread:
  // "%s:%d -> %d [Progress Thread]" when a transport's progress call fails and the thread stops): each function an error returns through,
  // with its ncclResult_t (1–6; 7, ncclInProgress, is no error), printed only on an error ("transport/net.cc:1538 -> 3", "proxy.cc:974 -> 3
  // [Progress Thread]", also behind "host:pid:tid [dev] NCCL INFO ").
  { kind: NCCL_TRACE_KIND, test: /(?:^|[\s\]])(?:[\w-]+\/)*[\w-]+\.(?:cc|cu|cpp|h):\d+ -> [1-6](?: \[[\w ]+\])?\s*$/ },
  // UCX's own records (the transport under NIXL, Dynamo's and vLLM's NixlConnector, LMCache's remote KV, MPI): see UCX_RECORD.
  { kind: UCX_KIND, test: UCX_RECORD },
  // glog's E/F records as people paste them without the date and thread: NIXL's NIXL_ERROR (nixl src/utils/ucx/ucx_utils.cpp, 2025–2026)
  // "E ucx_utils.cpp:582] VRAM memory is detected as host by UCX..." (NVIDIA Cosmos' troubleshooting page), "E [nixl_agent.cpp:484]
  // registerMem: registration failed for the specified or all potential backends" (a run log quoted in the code index). Not W or I records.
  { kind: 'glog E/F record', test: /^\s*[EF] \[?[\w.-]+\.(?:cpp|cc|cu|c|h):\d+\]\s/ },
  // NVSHMEM's error macros (src/include/internal/host/nvshmemi_util.h and its predecessors, 2.x–3.x): NVSHMEMI_NULL_ERROR_JMP "<file>:<line>:
  // NULL value <message>", NVSHMEMI_ERROR_JMP "<file>:<line>: non-zero status: <n> <message>", the newer "<file>:<line>: error status: <n>
  // (<name>) <message>"; the file is NVSHMEM's own source ("/opt/nvshmem/nvshmem/src/modules/transport/ibgda/ibgda.cpp:1889: NULL value cannot
  // allocate mlx5dv_devx_uar", sgl-project/sglang#12533; ".../main_nvshmem/src/host/init/init.cu:1047: non-zero status: 7 nvshmem setup
  // connections failed", NVIDIA/nvshmem#33). Each is a step that failed and returned its error; NVSHMEM's "WARN: …" lines are not.
  { kind: NVSHMEM_KIND, test: NVSHMEM_RECORD },
  { kind: STACK_DUMP_KIND, test: STACK_DUMP_COLLECTIVE },
  // "Job … failed with exit code 1", "exited with code 137", "returned non-zero exit status 2", "Exited (137)", "exit status 1"; a code a signal
  // made negative, as Python reports a child a signal ended (subprocess and multiprocessing: returncode/exitcode -N): vLLM's "Worker proc
  // VllmWorker-1 died unexpectedly (exit code: -9)", torchrun's failure table "exitcode  : -9 (pid: 1234)" (torch/distributed/elastic/
  // multiprocessing/errors), a trainer's "Training failed with exit code -9" (mattmireles/gemma-tuner-multimodal#19, 2026), multiprocessing's
  // "<Process name='…' pid=123 parent=1 stopped exitcode=-SIGKILL>" (the signal's name where it has one).
  {
    kind: 'non-zero exit',
    // (also kubectl -o yaml's "exitCode: 137" under lastState.terminated)
    test: /\bexit(?:ed)?[ _]?(?:with )?(?:code|status)\s*[:=]?\s*\(?(?!0\b)-?\d+|\bnon-zero exit status\b|\bExited \((?!0\))\d+\)|\bexitcode=-SIG[A-Z]+\b/i,
  },
  // bash "Killed" / "line 12:  1234 Killed  python …", crashes; a process's end by SIGKILL in its parent's words: "[engine terminated: killed by
  // SIGKILL]" (JustVugg/colibri#305, 2026), torchrun's "Signal 9 (SIGKILL) received by PID 1234" (torch/distributed/elastic), Python's
  // subprocess "died with <Signals.SIGKILL: 9>", Go's exec "signal: killed", an IDE's "(interrupted by signal 9: SIGKILL)", "killed by signal 9";
  // and the crash banners a native signal handler prints before the frames: "!!!!!!! Segfault encountered !!!!!!!" (vLLM, SGLang, TRT-LLM
  // workers: NVIDIA-NeMo/RL#1932's CUDA-graph replay, an NVML call, an NCCL net plugin), abseil's failure-signal handler in Ray's and
  // gRPC's C++ ("*** SIGSEGV received at time=1741685673 on cpu 53 ***", also SIGABRT, SIGBUS, SIGFPE, SIGILL).
  // (and bash's report of a job a signal ended, "/app/start-all.sh: line 295:   10 Illegal instruction     hindsight-api" — SIGILL on a CPU without
  // an instruction the build used, vectorize-io/hindsight PR #4201, held-out batch 143 — also "Bus error", "Floating point exception"; gdb's
  // "Program received signal SIGILL, Illegal instruction.")
  {
    kind: 'killed or crashed',
    test: /\bline \d+: +\d+ (?:Illegal instruction|Bus error|Floating point exception|Aborted|Trace\/breakpoint trap)\b|^\s*Program received signal SIG(?:SEGV|ILL|BUS|ABRT|FPE)\b|^\s*(?:Illegal instruction|Bus error)(?: \(core dumped\))?\s*$|^\s*Killed\s*$|\bKilled\s+(?:python|vllm|ray)\b|Segmentation fault|!{3,} ?Segfault encountered ?!{3,}|\*\*\* SIG(?:SEGV|ABRT|BUS|FPE|ILL) received at time=\d+|\(core dumped\)|^\s*Aborted\b|Fatal Python error|terminate called after throwing|\b(?:killed|terminated) by (?:signal (?:9|SIGKILL)|SIGKILL)\b|\bSignal 9 \(SIGKILL\) received by PID\b|<Signals\.SIGKILL: 9>|\bsignal: killed\b|\binterrupted by signal 9\b/i,
  },
  // ROCm's runtime on a GPU page fault (ROCR-Runtime src/core/runtime/runtime.cpp, the VM fault handler, then std::abort(): "Memory access
  // fault by GPU node-%u (Agent handle: %p) on address %p%s. Reason: %s.", older releases without the agent handle): a kernel read or wrote
  // memory it does not own and the process is gone with no Python traceback. "Memory access fault by GPU node-3 (Agent handle: 0x13e852f0)
  // on address 0x77d445e00000. Reason: Unknown." (AITER's fused-MoE kernel on MI355X, vllm-project/vllm#43605), "… on address (nil). Reason:
  // unknown." (an HSA_OVERRIDE_GFX_VERSION left set for another card, ROCm/legacy-rocm-build#5238), "… Reason: Page not present or supervisor privilege."
  // (a GPU firmware regression on Strix Halo, ROCm/legacy-rocm-build#5616).
  { kind: 'GPU memory access fault', test: /\bMemory access fault by GPU node-\d+\b/ },
  // A native CUDA or NCCL check that prints and exits the process, with no Python traceback after it: the nccl-tests CUDACHECK convention
  // (`printf("Failed: Cuda error %s:%d '%s'\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(EXIT_FAILURE)`) that vLLM's
  // csrc/custom_all_reduce.cuh uses: "Failed: Cuda error /workspace/csrc/custom_all_reduce.cuh:143 'invalid resource handle'" (vllm#52778,
  // quoted there without "Failed: "), "… custom_all_reduce.cuh:417 'resource already mapped'" (vllm#2641); vLLM before the words "Cuda
  // error": "Failed: /home/runner/work/vllm/vllm/csrc/custom_all_reduce.cuh:310 'invalid argument'" (vllm#5613); nccl-tests' "Failed, NCCL
  // error common.cu:890 'unhandled system error'". (DeepEP's EPException says "Failed: CUDA error <file>:<line> '<error>'" inside an
  // exception line, vllm PR #39925.) Not "Failed to …" sentences: a file:line and a quoted error must follow.
  { kind: 'native CUDA check', test: /^\s*(?:Failed[:,]\s+(?:(?:Cuda|CUDA|NCCL|MPI) error\s+)?|(?:Cuda|CUDA) error\s+)\S+:\d+ '[^'\n]+'/ },
  // A container or build tool's own error line: docker/podman/cobra "Error: unknown flag: --gpus", "docker: Error response from daemon: …",
  // "unknown shorthand flag: 'g' in -g", ptxas/nvcc "ptxas fatal   : …", systemd "Main process exited, code=exited, status=1/FAILURE",
  // "exec /usr/bin/bash: exec format error" (an image of another CPU architecture: amd64 on an arm64 GB10)
  {
    kind: 'tool error',
    test: /^\s*(?:(?:docker|podman|nerdctl|kubectl|apptainer|singularity):\s*)?Error(?: response from daemon)?:\s+\S|\bunknown (?:shorthand )?flag:? ['"]?-|^\s*(?:ptxas|nvcc|ld|collect2)(?: fatal)?\s*:\s*(?:fatal|error)?|\bstatus=(?!0\/)\d+\/FAILURE\b|\bcode=(?:killed|dumped)\b|\bexec format error\b/,
  },
  // A shell that could not find a command (exit 127), in bash's wording and its translations (bash's po files: zh_CN "未找到命令",
  // de "Befehl nicht gefunden", ja "コマンドが見つかりません", fr "commande introuvable", es "orden no encontrada", ko "명령어를 찾을 수 없음",
  // ru "команда не найдена"): "bash: line 9: -e: command not found", "./start.sh: line 12: vllm: command not found", dash's "sh: 1: ray: not
  // found", zsh's "zsh: command not found: ray". A start script's broken line continuation runs its next option as a command
  // (Richard0571's four-node DGX Spark script, held-out batch 18: "bash: 行 9: -e: 未找到命令"); docker's CLI refusing the half command
  // before it: "docker: 'docker run' requires at least 1 argument." (docker/cli cobra's RequiresMinArgs).
  {
    kind: COMMAND_NOT_FOUND,
    test: new RegExp(
      String.raw`^\s*[\w./-]*sh: (?:[^:\n]{1,24}: )?(?:\d+: )?[^:\n]{1,200}: ${NOT_FOUND}\.?\s*$|^\s*zsh: command not found: \S|^\s*docker: '[\w -]+' requires (?:at least |at most |exactly )?\d+ arguments?\b`,
    ),
  },
  // (after the command-not-found marker, whose lines are its own: an option run as a command)
  { kind: 'shell error', test: /^\S*: line \d+: [\w./-]+: \S/ },
  // A shell that could not run what it was given (bash's execute_cmd.c, 4.x–5.x): "/usr/bin/bash: /usr/bin/bash: cannot execute binary file" (a
  // compose command that hands bash its own binary as a script: AEON-7/Qwen3.6-27B-AEON-Ultimate-Uncensored-DFlash#12, held-out batch 22),
  // "./start.sh: cannot execute: required file not found" (bash 5.1+: its #! interpreter is missing), "/bin/bash^M: bad interpreter: No such file
  // or directory" (a script saved with CRLF line ends). (A binary of another CPU architecture, "Exec format error", is a tool error above, with
  // IMAGE_PLATFORM_MISMATCH's hint.)
  {
    kind: 'shell could not run it',
    test: /^\s*[\w./-]*sh: (?:line \d+: |\d+: )?[^\n]{1,200}?: (?:cannot execute binary file|cannot execute: required file not found|bad interpreter: )/,
  },
  // argparse's own refusal of a command line (CPython Lib/argparse.py ArgumentParser.error: "<prog>: error: <message>", exit 2): vLLM's
  // parse_type/optional_arg (vllm/engine/arg_utils.py, 0.8 to 0.2x) "vllm serve: error: argument --speculative-config/-sc: Value {{…}} cannot be
  // converted to <function loads at 0xe96cbb0ed4e0>." (spark-arena/sparkrun#195), argparse's "argument --max-model-len: invalid int value: '32k'",
  // "argument -tp/--tensor-parallel-size: expected one argument", "the following arguments are required: model_tag". (Unknown flags and
  // invalid choices have rules of their own: VLLM_FLAG_UNKNOWN.) Not the usage line argparse prints above it.
  {
    kind: 'command-line error',
    test: /^\s*[\w./-]+(?: [\w-]+)?: error: (?:argument \S+: |the following arguments are required: |ambiguous option: )/,
  },
  // A script's or a C program's own refusal of its options: Getopt::Long and shell scripts' "Unknown option: <x>" (NVIDIA's
  // nvidia-fabricmanager-start.sh given its config path as a bare argument: NVIDIA/gpu-operator#1595), GNU getopt_long's "<prog>: unrecognized
  // option '--x'" and getopt's "<prog>: invalid option -- 'x'". What the program was to do did not start.
  { kind: 'command-line error', test: /^\s*(?:[\w./-]+: )?(?:Unknown option: \S|unrecognized option '|invalid option -- )/ },
  // A Rust command-line tool's refusal of its options, in clap's words (clap_builder/src/error/format.rs, clap 4: "error: " then the kind's
  // sentence): uv given an option its release does not know, "error: unexpected argument '--torch-backend' found" (a SkyServe replica's setup,
  // skypilot-org/skypilot PR #6507, held-out batch 69), "error: unrecognized subcommand 'x'", "error: invalid value 'x' for '--python <PYTHON>'",
  // "error: a value is required for '--index-url <URL>' but none was supplied", "error: the following required arguments were not provided:",
  // "error: the argument '--x' cannot be used with '--y'"; and uv's resolver giving up, "error: No solution found when resolving dependencies"
  // (older uv; newer ones print it under "  × "). The install or command it was to run did not happen.
  {
    kind: 'command-line error',
    test: /^\s*(?:error: |\s*× )(?:unexpected argument '[^'\n]+' found|unrecognized subcommand '|invalid value '[^'\n]*' for '|a value is required for '[^'\n]+' but none was supplied|the following required arguments were not provided|the (?:argument|subcommand) '[^'\n]+' cannot be used (?:with|multiple times)|unexpected value '[^'\n]*' for '[^'\n]+' found|'[^'\n]+' requires a subcommand but one was not provided|No solution found when resolving dependencies)/,
  },
  // The dynamic loader refusing a program or library (glibc ld.so): "<prog>: /lib64/libc.so.6: version `GLIBC_2.34' not found (required by …)"
  // (a binary built on a newer C library run on an older host: NVIDIA GPU Operator 26.3.0's MIG manager on RHEL 8), "error while loading shared
  // libraries: libcuda.so.1: cannot open shared object file: No such file or directory".
  { kind: 'shared library refused', test: /: version `[\w.]+' not found\b|\berror while loading shared libraries: / },
  // The OpenSSH client's own errors in a launcher's output (ssh.c, sshconnect.c, sshconnect2.c, kex.c across 7.x–9.x): "ssh: connect to host
  // 192.168.200.12 port 22: Connection timed out" (also "Connection refused", "No route to host"), "ssh: Could not resolve hostname s: Temporary
  // failure in name resolution", "Permission denied (publickey,password).", "Host key verification failed.", "kex_exchange_identification: read:
  // Connection reset by peer" (older "ssh_exchange_identification: …"), "Connection timed out during banner exchange" (spark-arena/sparkrun#67,
  // #257). Not a launcher's progress lines ("SSH to 169.254.153.199: OK", "Checking SSH connectivity to worker nodes...").
  {
    kind: 'ssh failure',
    test: /\bssh: (?:connect to host \S+ port \d+: |Could not resolve hostname \S+: )|\bPermission denied \((?:publickey|password|keyboard-interactive|gssapi-\w+|hostbased)[\w,-]*\)|\bHost key verification failed\b|\b(?:kex|ssh)_exchange_identification: |\bConnection timed out during banner exchange\b/,
  },
  // torch's NCCL watchdog (ProcessGroupNCCL.cpp, 1.x to 2.x): "[Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=12590,
  // OpType=_ALLGATHER_BASE, …, Timeout(ms)=600000) ran for 600060 milliseconds before timing out." (2.4+: "[PG ID 0 PG GUID 0(default_pg) Rank 0] …"),
  // and "Some NCCL operations have failed or timed out." A collective that hung: the cause is elsewhere, but never silent.
  // The same watchdog in the other collective libraries' process groups: torch_npu's ProcessGroupHCCL (Ascend) prints "WorkHCCL(SeqNum=…,
  // OpType=…, Timeout(ms)=…)" and "Some HCCL operations have failed or timed out" (a copy of ProcessGroupNCCL.cpp), Habana's too; torch's Gloo:
  // "Timed out waiting 1800000ms for recv operation to complete" (gloo/transport/tcp/unbound_buffer.cc), "Gloo connectFullMesh failed".
  {
    kind: 'collective timeout',
    test: /Watchdog caught collective operation timeout|Some [HN]CCL operations have failed or timed out|\bWork[HN]CCL\([^)]*\) ran for \d+ milliseconds before timing out|\bTimed out waiting \d+ms for (?:recv|send) operation to complete|\bGloo connectFullMesh failed/,
  },
  // Ascend's CANN runtime reports a device-side failure (runtime device_error_proc.cc): "The error from device(chipId:0, dieId:0), serial number is 1,
  // hccl fftsplus task timeout occurred during task execution, stream_id:4, …" (also "notify wait timeout occurred …", "aicore …"), under an
  // error code line "EI9999: Inner Error!" / "EE1002: …" / "EI0002: …" (vllm-project/vllm-ascend#16646); torch_npu's own record:
  // "[ERROR] 2024-07-03-11:28:40 (PID:639, Device:0, RankID:16) ERR00100 PTA call acl api failed."; an error code under its name, as CANN's
  // error-code list names it and people quote it: "Communication_Error_Get_Socket(EI0006)" (HCCL's socket set-up timed out, vllm-project/afd-plugin#229).
  // Ascend's MoE dispatch/combine kernels check the HCCL window in their tiling before they run (sgl-kernel-npu csrc/deepep/ops/op_host
  // *_tiling.cc OP_LOGE "HCCL_BUFFSIZE is too SMALL, maxBs = …, NEEDED_HCCL_BUFFSIZE(…) = <n>MB, HCCL_BUFFSIZE=<m>MB.", sgl-project/sgl-kernel-npu
  // PR #91 and #183; CANN's moe_distribute_combine_v2_tiling.cpp "HCCL_BUFFSIZE_EP is too SMALL, …" under the operator's "Failed to execute
  // tiling function", vllm-project/vllm-ascend#16835; vllm-ascend#2674 asks for this check): the line with the size needed and the size set.
  { kind: 'Ascend HCCL buffer check', test: /\bHCCL_BUFFSIZE(?:_EP)? is too SMALL\b|\bHCCL BUFFSIZE is too small\b/i },
  {
    kind: 'accelerator runtime error',
    test: /The error from device\(chipId:|\b(?:task|wait) timeout occurred during task execution\b|^\s*E[EIZHJKL]\d{4}:\s|\(PID:\d+, Device:\d+, RankID:-?\d+\) ERR\d{5}\b|\b[A-Z][a-z]+(?:_[A-Z][a-z]+)+\(E[EIZHJKL]\d{4}\)/,
  },
  // AMD's HIP runtime's own log (ROCm/clr rocclr/utils/debug.hpp, ClPrint under AMD_LOG_LEVEL ≥ 1): ":<level>:<file> :<line>: [<us> us:] <message>",
  // level 1 LOG_ERROR, 2 warning, 3 info, 4 debug. Only level 1 fails: ":1:rocmemory.cpp :1043: Failed to create memory for IPC, failed with
  // hsa_status: 4097" (ROCm/rocm-systems#2209), ":1:rocdevice.cpp :434 : … hsa_init failed.", ":1:rocdevice.cpp :708 : … Unsupported HSA device
  // gfx803 …", ":1:rocdevice.cpp :3438: … HW Exception Error" (captures found with `find_string`). Not ":1:rocdevice.cpp … Unknown Event Type",
  // which the runtime prints at level 1 when a healthy process exits.
  { kind: 'HIP runtime error record', test: /^\s*:1:[\w.-]+\.(?:cpp|hpp|cc|h)\s*:\s*\d+\s*:(?![^\n]*\bUnknown Event Type\b)/ },
  // Intel oneCCL's logger (uxlfoundation/oneCCL src/common/log): "<yyyy:mm:dd-hh:mm:ss>:(<pid>) |CCL_ERROR| <file>.cpp:<line> <func>: <message>"
  // (newer: "…: <pid> |CCL_ERROR| …"), and its exception text "oneCCL: <file>.cpp:<line> <func>: EXCEPTION: <message>" (intel/torch-ccl#54,
  // intel/intel-extension-for-pytorch#810, llm-d/llm-d PR #2270: "oneCCL: atl_ofi_comm.cpp:232 init_transport: EXCEPTION: failed to initialize
  // ATL"). Its CCL_WARN and CCL_INFO records are a healthy start's ("did not find MPI-launcher specific variables, switch to ATL/OFI").
  { kind: 'oneCCL error record', test: /(?:^|[\s|])CCL_(?:ERROR|FATAL)\|\s|\boneCCL: [\w.-]+\.(?:cpp|hpp|cc|h):\d+ [^\n]{0,80}?EXCEPTION: / },
  // Kubernetes' own words for a container that keeps dying (kubelet, pkg/kubelet/kuberuntime/kuberuntime_manager.go, 1.2x–1.3x): the event
  // "Back-off restarting failed container ray-head in pod <pod>_<ns>(<uid>)" (older kubelets without the names), the Killing event
  // "Container vllm failed liveness probe, will be restarted" (prober), and `kubectl get pods` rows whose STATUS is a failure state
  // ("head-fpsz9   1/2   CrashLoopBackOff   6 (32s ago)   6m32s", "Error", "OOMKilled", "Init:CrashLoopBackOff", "ImagePullBackOff"):
  // the pod's own log may end without an error line (kuberay#1943, #3897). Not a row that is Running, Pending, Init:0/1 or ContainerCreating
  // (a start under way), not "Readiness probe failed" (a server still loading is not ready yet).
  {
    kind: 'container restart loop',
    test: /\bBack-off restarting failed container\b|\bfailed liveness probe, will be restarted\b|^\s*(?:pod\/)?[\w.-]+\s+\d+\/\d+\s+(?:Init:)?(?:CrashLoopBackOff|Error|OOMKilled|ImagePullBackOff|ErrImagePull|CreateContainerError|CreateContainerConfigError|RunContainerError|ContainerCannotRun|StartError)\s+\d+\b/,
  },
  // The same states as `kubectl describe pod` prints them under a container's State or Last State ("    State:          Waiting" / "      Reason:
  // ImagePullBackOff", ai-runway/airunway#229, held-out batch 159: a Ray image tag deleted from its registry). Not ContainerCreating or
  // PodInitializing (a start under way), nor Completed.
  {
    kind: 'container restart loop',
    test: /^\s*Reason:\s+(?:CrashLoopBackOff|ImagePullBackOff|ErrImagePull|InvalidImageName|CreateContainerError|CreateContainerConfigError|RunContainerError|ContainerCannotRun|StartError)\s*$/,
  },
  // The kubelet evicting the pod (pkg/kubelet/eviction/helpers.go: "The node was low on resource: %v. ", "The node had condition: %v. ", "Container
  // %s exceeded its local ephemeral storage limit %q. ", "Pod ephemeral local storage usage exceeds the total limit of containers %s. ",
  // "Usage of EmptyDir volume %q exceeds the limit %q. "; signature-rules-eviction.ts names disk and memory) and `kubectl get pods` rows Evicted.
  {
    kind: 'pod eviction',
    test: /\bThe node was low on resource: |\bThe node had condition: |\bexceeded its local ephemeral storage limit\b|\bPod ephemeral local storage usage exceeds\b|\bUsage of EmptyDir volume "[^"]*" exceeds the limit\b|^\s*(?:pod\/)?[\w.-]+\s+\d+\/\d+\s+Evicted\s+\d+\b/,
  },
  // Ray Serve's controller giving up on a replica (serve/_private/deployment_state.py, 2.0–2.5x): "Didn't receive health check response for replica
  // Replica(id='rut1591v', deployment='vLLM:Qwen--Qwen3-32B', app='RayServeApp') after 10.0s, marking it unhealthy." (a WARNING, INFO before
  // 2.1), "Health check for replica <tag> failed: <error>" ("Health check for Replica(…) failed: …" in 2.2x+), "Replica <id> failed health check,
  // stopping it.": the replica is killed and started again, a vLLM engine with it (ray-project/ray#54070, 2025).
  {
    kind: 'Ray Serve replica health check failed',
    test: /\bDidn't receive health check response for (?:replica|proxy)\b|\bHealth check for (?:replica )?\S.{0,200}? failed: |\bReplica\b.{1,200}? failed health check, stopping it\b/,
  },
  // Knative's revision (KServe's serverless mode) not ready because its container exited with a code (`kubectl get revision`: "… 8   False
  // ExitCode137s": 137 is SIGKILL, usually the memory limit; kserve/website's debugging guide).
  { kind: 'container restart loop', test: /\bFalse\s+ExitCode(?!0s?\b)\d+s?\s*$/ },
  // Slurm's own error lines when it ends a step (src/srun, src/slurmd/slurmstepd, 20.x–25.x): "srun: error: lrdn1786: task 0: Killed",
  // "srun: error: node7: task 3: Exited with exit code 1", "slurmstepd: error: *** STEP 22051979.1 ON lrdn1786 CANCELLED AT 2025-10-23T14:31:08 ***"
  // (also "… DUE TO TIME LIMIT ***"), "slurmstepd: error: Detected 1 oom_kill event in StepId=…" (behind a collector's "[SLURM STDERR …]" tag too).
  // The step a Ray head or worker runs in was ended from outside: the Ray or vLLM log of that node just stops (dagster-slurm#72).
  {
    kind: 'Slurm ended the step',
    test: /^\s*(?:\[[^\]\n]{1,60}\]\s*)?(?:srun|slurmstepd|salloc|sbatch|slurmd):\s+error:\s+\S/,
  },
  // torch's TCPStore client when the store's server went away (torch/csrc/distributed/c10d/TCPStore.cpp and Utils.hpp, 2.4–2.9): a glog W record
  // "[c10d] recvValue failed on SocketImpl(fd=99, addr=[…]:38760, remote=[…]:42643): Failed to recv, got 0 bytes. Connection was likely closed.
  // Did the remote server shutdown or crash?", "[c10d] sendBytes failed on SocketImpl(…): Broken pipe", ProcessGroupNCCL's "Failed to check the
  // "should dump" flag on TCPStore, (maybe TCPStore server has shut down too early)", and c10::Error's header under them, "Exception raised from
  // sendBytes at /pytorch/torch/csrc/distributed/c10d/Utils.hpp:653 (most recent call first):" (c10/util/Exception.cpp). The rank whose store
  // (the head's, for vLLM's native multi-node mode) is gone keeps running and says nothing else (vllm PR #32139).
  {
    kind: STORE_LOST_KIND,
    test: /\b(?:recvValue|recvBytes|sendBytes) failed on SocketImpl\(|\bDid the remote server shutdown or crash\?|\(maybe TCPStore server has shut down too early\)|^\s*Exception raised from \w+ at \S+:\d+ \(most recent call first\):/,
  },
  // NCCL's RAS (reliability, availability, serviceability) report (NCCL 2.24+, `ncclras` / the RAS port; NVIDIA/nccl docs, troubleshooting/ras):
  // "DEAD" / "1 job process is considered dead (unreachable via the RAS network)" / "Process 3487984 on node 172.16.64.213 managing GPU 5" —
  // a rank's process stopped answering while the job ran; its collectives hang until the timeout. ("INCOMPLETE" and "MISMATCH" alone are
  // data RAS could not gather or ranks at different steps, which a healthy job shows too.)
  { kind: 'NCCL RAS: a process dead', test: /\bjob process(?:es)? (?:is|are) considered dead\b/ },
  // Xinference's actor pool (xoscar) when the process that served the model went away: "Remote server unixsocket:///247564599296 closed:" /
  // "0 bytes read on a total of 11 expected bytes" (jishuzhan.net, 2026: vLLM's engine under Xinference died of host memory) — the subprocess
  // died without a word of its own in this log.
  { kind: 'launcher subprocess died', test: /\bRemote server (?:unixsocket|tcp|ucx):\/\/\S+ closed\b/ },
  // Ray's actor and worker deaths without a cause of their own
  { kind: 'Ray process died', test: /The actor (?:is dead|died) because|died unexpectedly before finishing|A worker died or was killed/i },
  // A launcher's or watcher's own readiness timeout: the server never answered within its wait.
  {
    kind: 'never became ready',
    test: /\b(?:vllm|server|api|model|engine|endpoint|cluster)\b[^\n]{0,40}\b(?:not ready|never became ready|did not become ready|failed to become ready)\b[^\n]{0,20}\b(?:after|within)\b|\btimed out waiting for\b[^\n]{0,40}\b(?:vllm|server|api|model|health|ready)/i,
  },
]

/**
 * Records of a client's bad request, not of a failing server: vLLM logs the error it answers a request
 * naming an unknown model at ERROR (`logger.error("Error with model %s", error_check_ret)` in
 * vllm/entrypoints/openai/<kind>/serving.py, 0.19.1 to 0.34.0; seen on a healthy 0.24.0 server in
 * test/real/captures/healthy-default/server.log), with the ErrorResponse's repr: nested
 * (`error=ErrorInfo(…, code=404)`) or flat (vLLM <= 0.9, `object='error' … code=404`). Only a 4xx code.
 */
const CLIENT_ERROR = /^\s*(?:\S+\s+){0,4}?(?:\[[^\]]*\]\s+)?Error with model\b[^\n]*\bcode=4\d\d\b/

/**
 * Records vLLM logs at ERROR on a start that goes on: vllm/attention/utils/fa_utils.py (and the MLA
 * backends) log `logger.error("Cannot use FA version %d is not supported due to %s", …)`, then the
 * assert under it is caught and the backend falls back (0.7 to 0.34; seen on a healthy T4 start,
 * kuberay#4366). transformers' docstring check (utils/auto_docstring.py, 4.5x–5.x) logs "[ERROR] `min_frames` is part of
 * Qwen3VLVideoProcessorInitKwargs, but not documented. Make sure to add it to the docstring of the function in …" (also "… is part
 * of Qwen3_5CausalLMOutputWithPast.__init__'s signature, but not documented …") when a processor or model class loads, on healthy
 * vLLM starts (a systemd journal of a Qwen3-VL server, 2026; held-out batch 14's sparkrun control arm). XLA's glog E records when
 * TensorFlow or JAX is imported beside torch ("E0000 00:00:1762342011.351652   18908 cuda_dnn.cc:8579] Unable to register cuDNN factory:
 * Attempting to register factory for plugin cuDNN when one has already been registered", and cuFFT's and cuBLAS's): a second library
 * registering the same plugin at import (XLA's stream_executor cuda_dnn.cc / cuda_fft.cc / cuda_blas.cc), harmless (held-out batch 37's two healthy vLLM logs). Not failures by
 * themselves; a start that really fails shows its own line.
 */
const NON_FATAL_ERROR_RECORD =
  /\bCannot use FA version \d+ is not supported due to\b|\bis part of [^,\n]{1,120}, but not documented\. Make sure to add it to the docstring\b|\bUnable to register cu(?:DNN|FFT|BLAS) factory: Attempting to register factory for plugin cu(?:DNN|FFT|BLAS) when one has already been registered\b/

/**
 * Findings that say what died, not why: an engine core's death names no cause of its own, so failure lines no other finding explains
 * (the exception it died of: SkyRL#1343's reserved-variable AssertionError, vLLM PR #36875's entrypoint error) still earn UNRECOGNISED_FAILURE.
 */
const CONSEQUENCES: ReadonlySet<string> = new Set(['ENGINE_DEAD'])

/**
 * A program that says, on one of the next lines, that it handled the failure it just printed: a launcher's
 * "FAILED rc=255 … Connection timed out" then "falling back to management network for transfers"
 * (sparkrun), a downloader's "trying the next mirror", "continuing without …". The failure line before
 * it is then not counted; a failure that follows still is. A retry is not a recovery ("retrying in 5 s"
 * repeated until a timeout is still a failure), so retries do not count.
 */
const RECOVERY =
  /\b(?:falling|falls|fell) back (?:to|on)\b|\bcontinuing (?:with|without)\b|\btrying (?:the )?next (?:address|host|mirror|endpoint|interface)\b/i
/** How many lines after a failure line its recovery may be announced. */
const RECOVERY_WITHIN = 2

/**
 * A request's handler failing while the server runs (uvicorn's "ERROR:    Exception in ASGI application" and its traceback, e.g. vLLM's
 * VLLMValidationError for a prompt over the context length: held-out batch 21's mlops-assignment log; vLLM 0.5–0.10's own "ERROR … [serving_chat.py:200]
 * Error in preprocessing prompt inputs" with its traceback: vllm#20409, #13067) is the client's problem once the server is seen answering a
 * request after it, with a 2xx or a 4xx (the bad request's own answer): uvicorn's access line `"POST /v1/chat/completions HTTP/1.1" 400 Bad
 * Request`. Those lines are forgotten then; a handler failure answered with a 5xx or followed by no answer (the engine died under it) counts.
 */
const REQUEST_HANDLER_FAILED = /\bException in ASGI application\b|\bError in preprocessing prompt inputs\b/
const REQUEST_SERVED = /"(?:GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) [^"\n]{1,300} HTTP\/[\d.]+" [24]\d\d\b/

/**
 * The server's start completed: uvicorn's "Application startup complete" under vLLM's API server, SGLang's "The server is fired up and
 * ready to roll". An exception line printed outside any traceback before it (no `Traceback` header, no frame above it: a library that
 * caught an exception printing its message at import, like protobuf's "AttributeError: 'MessageFactory' object has no attribute
 * 'GetPrototype'" five times over under TensorFlow in held-out batch 63's memory_harm log) did not stop the start: forgotten then.
 */
const SERVER_STARTED = /\bApplication startup complete\b|\bThe server is fired up and ready to roll\b/
/**
 * The ranks' process group working after torch's store was lost: milestones a rank reaches only with every rank of its
 * group answering — vLLM's parallel_state "rank N in world size M is assigned as …" (logged once the model-parallel
 * groups are made over the store), "Graph capturing finished" (collectives across the group), the engine's "init engine
 * (profile, create kv cache, warmup model) took", the API server's "Application startup complete", SGLang's "The server
 * is fired up and ready to roll". Store-lost lines before one of them were a store going away while its ranks shut down
 * (a restart whose log window holds the previous process's exit: nacyot/vllm-ds4f-gb10's boot windows) or a transient
 * connection that came back (torchcomms PR #2358: "the initial client connection attempt appears to fail … subsequent
 * attempts succeed"): the group that follows is healthy. After the milestone, a lost store is a failure again (the
 * head's exit seen from a follower, vllm PR #32139).
 */
const GROUP_WORKING = new RegExp(
  `\\brank \\d+ in world size \\d+ is assigned as\\b|\\bGraph capturing finished\\b|\\binit engine \\(profile, create kv cache, warmup model\\) took\\b|${SERVER_STARTED.source}`,
)

/** Failure markers sit at the start of a record: only this much of a (possibly endless) line is read. */
const MARKER_SCAN = 2000
/** How many failure lines the finding quotes. */
const QUOTED = 4
/** How many failure lines the collector keeps to choose from: a line it forgets later (explained, recovered from, a lost store the group outlived) leaves the next in its place. */
const KEPT = 64
/** How much of one quoted line. */
const LINE_CHARS = 240
/** How many addresses, ports and paths the evidence lists. */
const SEEN_MAX = 6

const clip = (text: string): string => {
  const t = text.trim()
  return t.length <= LINE_CHARS ? t : `${t.slice(0, LINE_CHARS)}…`
}

/** The markers, then CLIENT_ERROR and NON_FATAL_ERROR_RECORD, for one literal pass over a line's head (pattern-prefilter.ts). */
const MARKER_FILTER = patternPrefilter([...MARKERS.map((m) => m.test), CLIENT_ERROR, NON_FATAL_ERROR_RECORD])
const CLIENT_ERROR_AT = MARKERS.length

/** The failure-line kind of a line's head, or undefined for an ordinary line. */
export function failureKind(text: string): string | undefined {
  const head = text.slice(0, MARKER_SCAN)
  MARKER_FILTER.read(head)
  const test = (i: number, re: RegExp) => MARKER_FILTER.may(i) && re.test(head)
  if (test(CLIENT_ERROR_AT, CLIENT_ERROR) || test(CLIENT_ERROR_AT + 1, NON_FATAL_ERROR_RECORD)) return undefined
  return MARKERS.find((m, i) => test(i, m.test))?.kind
}

/** "torch.distributed.DistNetworkError: …" → "torch.distributed.DistNetworkError" (behind a collector's tag too). */
const EXCEPTION_TYPE =
  /(?:^|\s|\|)((?:[a-z_][\w]*\.)*(?:[A-Z]\w*(?:Error|Exception)|Exception|KeyboardInterrupt|SystemExit)(?:\([A-Za-z_][\w.]*\))?|(?:[a-z_]\w*\.){2,}[A-Z]\w+(?=:\s)|socket\.(?:gaierror|herror|timeout))(?::|$)/
export const exceptionType = (text: string): string | undefined => EXCEPTION_TYPE.exec(text.slice(0, MARKER_SCAN))?.[1]

/** Addresses with ports, `port: N`, IPv4 addresses and absolute paths a failure line names: the values a person acts on. */
const VALUES =
  /\b(?:\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?|(?<![\w:.-])[A-Za-z][\w.-]*:\d{2,5}(?=[\s,)'"\]]|$))|\bport:? \d{2,5}\b|(?<![\w.])\/(?:[\w.@+-]+\/)+[\w.@+-]+/g
/** Source paths of a traceback ("File \"/usr/lib/…py\"") are not what failed. */
const TRACE_PATH = /\.(?:py|pyx|so|cc|cpp|cu|h)\b/

/** The host (and port) an OpenSSH client error names, however short the name ("Could not resolve hostname s"). */
const SSH_TARGET = /\bssh: (?:connect to host (\S+) port (\d+)|Could not resolve hostname ([^\s:]+))/

/** A UCX record's header (time, host:pid, the source file:line, component and level) names no value a person acts on: only its message is read. */
const UCX_HEADER = /^.*?[\w.-]+\.(?:c|cc|cpp|h):\d+\s+UCX\s+[A-Z]+\s+/

function valuesIn(text: string): string[] {
  const line = text.slice(0, MARKER_SCAN)
  const head = UCX_RECORD.test(line) ? line.replace(UCX_HEADER, '') : line
  const ssh = SSH_TARGET.exec(head)
  const target = ssh ? [ssh[3] ?? `${ssh[1]}:${ssh[2]}`] : []
  return [
    ...target,
    ...[...head.matchAll(VALUES)]
      .map((m) => m[0])
      .filter((v) => !TRACE_PATH.test(v) && !target.some((t) => t.startsWith(v) || t.endsWith(`:${v.replace(/^port:? /, '')}`))),
  ]
}

/**
 * The exit code a failure line states, for what usually sent it: "exit code: 137", "Exit Code:    137" (kubectl describe), "exitCode: 137"
 * (kubectl -o yaml), "exited with code 139", "Exited (137)", "exit status 1", a negative code (vLLM's "exit code: -9", torchrun's
 * "exitcode: -9"); Slurm's "task 0: Killed" and bash's "Killed" are SIGKILL itself.
 */
const EXIT_CODE = /\bexit(?:ed)?[ _]?(?:with )?(?:code|status)\s*[:=]?\s*\(?(-?\d+)|\bExited \((-?\d+)\)|\bexitCode:\s*(-?\d+)/i
const KILLED = /\btask \d+: Killed\b|^\s*Killed\s*$/
function exitCodeOf(text: string): number | undefined {
  const head = text.slice(0, MARKER_SCAN)
  if (KILLED.test(head)) return 137
  const m = EXIT_CODE.exec(head)
  const code = m ? Number(m[1] ?? m[2] ?? m[3]) : undefined
  return code !== undefined && code !== 0 ? code : undefined
}

/** A native check's file, line and error: "Failed: Cuda error <file>:<line> '<error>'" (vLLM's CUDACHECK), DeepEP's "Failed: CUDA error …". */
const NATIVE_CHECK = /\b(?:Cuda|CUDA|NCCL) error (\S+?):(\d+) '([^'\n]+)'|\bFailed[:,] (\S+?\.(?:cuh?|cpp|cc|cxx|hpp|h)):(\d+) '([^'\n]+)'/

interface NativeCheck {
  readonly where: string
  readonly error: string
  readonly means?: string
  readonly fix?: string
}

/**
 * What a native check's error means where its file says which component raised it. A CUDA IPC memory handle
 * (cudaIpcGetMemHandle/cudaIpcOpenMemHandle) is valid only between processes of one host. vLLM's custom all-reduce
 * (csrc/custom_all_reduce.cuh, open_ipc_handle) and DeepEP's Buffer (csrc/deep_ep.cpp, sync) open their peers' buffers with one, so
 * a group whose ranks sit on different hosts fails with cudaErrorInvalidResourceHandle, "invalid resource handle": vllm#52778 (TP=2
 * across two GB200 NVL72 trays, custom_all_reduce.cuh:143), vllm PR #39925 (DeepEP low-latency over MNNVL, deep_ep.cpp:226; fixed by
 * cuMem fabric handles, use_fabric=True), vllm#26055 (DeepEP on GB200). Other errors of these files (an 'invalid argument') name no cause.
 */
const NATIVE_MEANINGS: readonly { readonly file: RegExp; readonly error: RegExp; readonly means: string; readonly fix: string }[] = [
  {
    file: /custom_all_reduce\.cuh$/,
    error: /^invalid resource handle$/,
    means:
      "vLLM's custom all-reduce could not open a peer GPU's buffer by CUDA IPC, whose handles work only between processes of one host: this tensor-parallel group spans hosts",
    fix: 'Start vLLM with --disable-custom-all-reduce (NCCL then does the all-reduce), or keep each tensor-parallel group inside one host (TP ≤ GPUs per node, pipeline parallelism across nodes).',
  },
  {
    file: /deep_ep\.(?:cpp|cu)$/,
    error: /^invalid resource handle$/,
    means:
      "DeepEP could not open a peer's buffer by CUDA IPC, whose handles work only inside one host: the expert-parallel group's NVLink domain spans hosts (GB200/GB300 NVL72, MNNVL), which needs CUDA fabric handles",
    fix: 'Use a vLLM whose DeepEP opens peers with fabric handles on multi-node NVLink (vLLM PR #39925, use_fabric with VLLM_DEEPEP_LOW_LATENCY_USE_MNNVL=1), or turn MNNVL off (VLLM_DEEPEP_LOW_LATENCY_USE_MNNVL=0) so DeepEP uses RDMA between hosts.',
  },
]

function nativeCheckOf(text: string): NativeCheck | undefined {
  const m = NATIVE_CHECK.exec(text.slice(0, MARKER_SCAN))
  if (!m) return undefined
  const file = m[1] ?? m[4]!
  const error = m[3] ?? m[6]!
  const meaning = NATIVE_MEANINGS.find((n) => n.file.test(file) && n.error.test(error))
  return { where: `${file}:${m[2] ?? m[5]}`, error, ...(meaning ? { means: meaning.means, fix: meaning.fix } : {}) }
}

interface Failing {
  readonly line: LogicalLine
  readonly kind: string
}

/**
 * The failure lines of a log, read once as they arrive (the live watcher and a whole paste alike):
 * the first few, the first exception, their count and the addresses/ports/paths they name, in
 * memory bounded by the quote, not by the log.
 */
export interface FailureCollector {
  /** A judged line: `covered` when a signature matched it. A line judged again (a continuation joined) replaces its first reading. */
  observe(line: LogicalLine, covered: boolean): void
  /**
   * When no error finding explains the log and it holds failure lines: one UNRECOGNISED_FAILURE, then
   * a warning per family whose words those lines use (signature-family-hints.ts); [] otherwise.
   */
  findings(source: string, findings: readonly Finding[]): Finding[]
}

/** How many hinted failure lines are kept (the first per family is what a hint quotes). */
const HINTED_MAX = 32

/**
 * Frames a warning prints to say where a call came from, not a failure: torch._dynamo's warn_once with the user's stack ("Dynamo detected a
 * call to a `functools.lru_cache`-wrapped function …" / "This call originates from:" / `  File "…/einops.py", line 539, in reduce`, torch
 * 2.6+ torch/_dynamo/variables/functions.py; held-out batch 26's emmy bundle) and logging's stack_info ("Stack (most recent call last):",
 * CPython Lib/logging/__init__.py). The frames under such a head, up to the next line that starts at the margin, are read as none.
 */
const INFO_STACK_HEAD = /^\s*(?:This call originates from:|Stack \(most recent call last\):)\s*$/
/**
 * A thread's uncaught exception (threading.excepthook, CPython 3.8+: "Exception in thread Thread-1 (_report_usage_worker):" and its
 * traceback; "Exception in thread <name>:" before 3.10). Only that thread ended: vLLM's usage-stats reporter failing on a cpuinfo it cannot
 * parse (held-out batch 27, a GB10's `lscpu`), the server starting and answering after it. Its lines are forgotten once the server is
 * seen working (GROUP_WORKING, or a request served); a thread whose end stopped the start leaves no such line, and counts.
 */
const THREAD_EXCEPTION = /^\s*Exception in thread [^\n]{1,120}:\s*$/

/**
 * CPython's report of an exception it could not raise (PyErr_WriteUnraisable: a `__del__`, an atexit callback, the threading module's
 * shutdown): "Exception ignored in: <module 'threading' from '/usr/lib/python3.12/threading.py'>", 3.13's "Exception ignored while
 * calling deallocator …", "Exception ignored in atexit callback …", then a traceback. The interpreter ignored it: nothing the process was
 * doing failed (a GB10 server's log ends with one after the operator's Ctrl-C, `KeyboardInterrupt` in threading's `_shutdown`: held-out
 * batch 73). The traceback after the header, through its exception line, is forgotten.
 */
const UNRAISABLE = /^\s*Exception ignored (?:in|while|on)\b/

/**
 * The windows of failure lines a later line shows were none: a lost store its group outlived (GROUP_WORKING), a request handler's
 * failure once a request is served (REQUEST_SERVED), a thread's uncaught exception once the server is seen working (either); and the
 * frames of a warning's stack (INFO_STACK_HEAD). `ordinary` reads a line that is no failure line and returns the first line of the
 * windows it closed (their lines forgotten); `failing` files a failure line in the windows open; `quietFrame` is true inside a warning's stack.
 */
/**
 * Ray Train's controller (ray/train/v2, 2.4x–2.5x) handling a failure itself: "[FailurePolicy] RETRY" before the error it retries ("Training
 * failed due to controller error: The worker group startup timed out after 60.0 seconds waiting for 16 workers …", while the autoscaler adds
 * nodes), then "[State Transition] SCHEDULING -> RUNNING" once the worker group starts (anyscale/templates' fintech notebook, held-out batch
 * 163). The failure lines between the two were handled; without the RUNNING after them they are counted.
 */
const TRAIN_RETRIED = /\[FailurePolicy\] RETRY\b/
const TRAIN_RUNNING = /\[State Transition\] \w+ -> RUNNING\b/

function createRecoveryWindows(forget: (line: number) => void, kinds: Set<string>) {
  const storeLost: number[] = []
  /** Exception lines outside any traceback (a library printing a caught exception's message), until the server's start completes. */
  const bareExceptions: number[] = []
  let traceOpen = false
  const requestFailed: number[] = []
  const threadFailed: number[] = []
  /** Failure lines after Ray Train's controller chose to retry, until its worker group runs (TRAIN_RETRIED). */
  const trainRetried: number[] = []
  let trainRetrying = false
  let threadOpen = false
  /** The lines of a traceback CPython printed as ignored (UNRAISABLE), until its exception line. */
  let unraisable: number[] | undefined
  let infoStack = false
  const close = (window: number[]): number | undefined => {
    const first = window[0]
    for (const n of window) forget(n)
    window.length = 0
    return first
  }
  const earliest = (a: number | undefined, b: number | undefined) => (a === undefined ? b : b === undefined ? a : a < b ? a : b)
  return {
    ordinary(text: string): number | undefined {
      // (both heads end in a colon; an access line names its protocol: the cheap test first, on every ordinary line)
      const head = text.trimEnd().endsWith(':')
      if (head && INFO_STACK_HEAD.test(text)) infoStack = true
      else if (/^\S/.test(text)) infoStack = false
      if (head && THREAD_EXCEPTION.test(text)) threadOpen = true
      if (UNRAISABLE.test(text)) unraisable = []
      const served = text.includes(' HTTP/') && REQUEST_SERVED.test(text)
      const working = GROUP_WORKING.test(text)
      let from = served ? close(requestFailed) : undefined
      if (working && SERVER_STARTED.test(text)) from = earliest(from, close(bareExceptions))
      if (working && storeLost.length > 0) kinds.delete(STORE_LOST_KIND)
      if (working) from = earliest(from, close(storeLost))
      if (working || served) {
        from = earliest(from, close(threadFailed))
        threadOpen = false
      }
      if (text.includes('[FailurePolicy]')) trainRetrying = TRAIN_RETRIED.test(text) || trainRetrying
      else if (trainRetrying && TRAIN_RUNNING.test(text)) {
        from = earliest(from, close(trainRetried))
        trainRetrying = false
      }
      return from
    },
    /** Returns the lines of an ignored traceback its exception line ends, which the caller forgets once this line is recorded. */
    failing(lineNo: number, kind: string, text: string): readonly number[] | undefined {
      infoStack = false
      if (unraisable) {
        unraisable.push(lineNo)
        if (kind === 'exception') {
          const ended = unraisable
          unraisable = undefined
          traceOpen = false
          return ended
        }
        // (not a traceback after all: what follows is read as it comes)
        if (kind !== 'Python traceback') unraisable = undefined
      }
      if (kind === 'Python traceback') traceOpen = true
      else if (kind === 'exception') {
        if (!traceOpen) bareExceptions.push(lineNo)
        traceOpen = false
      }
      if (kind === STORE_LOST_KIND) storeLost.push(lineNo)
      if (requestFailed.length > 0 || REQUEST_HANDLER_FAILED.test(text)) requestFailed.push(lineNo)
      if (threadOpen) threadFailed.push(lineNo)
      if (trainRetrying) trainRetried.push(lineNo)
      return undefined
    },
    /** Where an ignored traceback began (its header), while one is open. */
    unraisableFrom: (): number | undefined => unraisable?.[0],
    quietFrame: (): boolean => infoStack,
    /** A traceback's frame: the exception line after it is that traceback's. */
    frame: (): void => {
      traceOpen = true
    },
  }
}

/**
 * Failures a log shows only by what stops happening, each the weakest failure line (quoted where nothing else failed): vLLM's engine
 * waiting on its workers after its start-up finished with no progress since (engine-stall.ts), and the raylet retrying a runtime-env
 * agent that never answers (RUNTIME_ENV_AGENT).
 */
function createQuietFailures(): { read(line: LogicalLine, text: string): void; weakest(): Failing | undefined } {
  let stall: Failing | undefined
  let agentRetries = 0
  let agentWait: Failing | undefined
  const readStall = createStallReader()
  return {
    read(line, text) {
      const engine = readStall(text)
      if (engine === 'waiting') stall ??= { line, kind: STALL_KIND }
      else if (engine === 'progress') stall = undefined
      if (text.includes('Runtime Env Agent network error') && ++agentRetries >= AGENT_RETRIES) agentWait ??= { line, kind: AGENT_KIND }
    },
    weakest: () => stall ?? agentWait,
  }
}

/** NCCL's process prefix `host:pid:tid [dev]`, the key its error trace shares with the WARN line above it. */
function ncclProcessOf(text: string): string | undefined {
  return /^\s*(?:\[[^\]]*\]\s*)?([\w.-]+:\d+:\d+) \[\d+\] NCCL\b/.exec(text)?.[1]
}

/**
 * NCCL's error trace (`net.cc:62 -> 2`, each function the error returned through) right under a line a signature explained, from the same
 * NCCL process (or with no prefix on either): the unwinding of that error, not another failure. A network plugin that did not start or an
 * RDMA device that did not open prints its WARN, then the trace, then NCCL goes on with sockets (aws/aws-ofi-nccl#715, 2024).
 */
const TRACE_WITHIN = 6
interface ExplainedLine {
  readonly line: number
  readonly process: string | undefined
}
function traceOfExplained(line: LogicalLine, explained: ExplainedLine | undefined): boolean {
  if (explained === undefined || line.line - explained.line > TRACE_WITHIN) return false
  return ncclProcessOf(line.text) === explained.process
}

/**
 * NCCL tearing a communicator down (src/init.cc: "comm %p rank %d nranks %d cudaDev %d busId %lx - Abort COMPLETE", "… - Destroy
 * COMPLETE"): closing its sockets makes the proxy's pending calls return, and NCCL prints their error trace ("misc/socket.cc:47 -> 3")
 * just before, a finished job's shutdown (a two-node training guide's recorded output, daekeun-ml/distributed-training-on-aws, 2025).
 * The trace lines of that process (host:pid) within TEARDOWN_WITHIN lines before it are the teardown's; a WARN line stays a failure.
 */
const TEARDOWN = /^\s*(?:\[[^\]]*\]\s*)?([\w.-]+:\d+):\d+ \[\d+\] NCCL INFO comm 0x[\da-f]+ .*- (?:Abort|Destroy) COMPLETE\b/
const TEARDOWN_WITHIN = 20
const ncclPidOf = (text: string): string | undefined => ncclProcessOf(text)?.replace(/:\d+$/, '')

/**
 * Failure lines that belong to a line that is no failure: the non-fatal message on the line after site.py's "Error in sitecustomize"
 * header, NCCL's error trace under a line a signature explained (traceOfExplained), and NCCL's trace before its teardown (TEARDOWN),
 * which `forget` takes back once the teardown line comes.
 */
function createOwnedLines(forget: (lineNo: number) => void) {
  /** The line of site.py's "Error in sitecustomize" header, whose next line is its non-fatal message. */
  let customizeAt: number | undefined
  /** The last line a signature explained, with its NCCL process prefix. */
  let explained: ExplainedLine | undefined
  /** NCCL error-trace lines not owned yet: line number and host:pid. */
  const traces: { readonly line: number; readonly pid: string | undefined }[] = []
  const teardown = (line: LogicalLine) => {
    const pid = TEARDOWN.exec(line.text)?.[1]
    if (pid === undefined) return
    for (const t of traces) if (t.pid === pid && line.line - t.line <= TEARDOWN_WITHIN) forget(t.line)
  }
  return {
    explained(line: LogicalLine): void {
      explained = { line: line.line, process: ncclProcessOf(line.text) }
    },
    /** Whether this line (a failure line of `kind`, or none) belongs to one above it, and so is no failure. */
    owned(line: LogicalLine, kind: string | undefined): boolean {
      if (kind === NCCL_TRACE_KIND && traceOfExplained(line, explained)) {
        explained = { line: line.line, process: explained?.process }
        return true
      }
      // (a failure line of its own in between: the trace after it is its)
      if (kind !== undefined) explained = undefined
      if (kind === NCCL_TRACE_KIND && traces.length < KEPT * 4) traces.push({ line: line.line, pid: ncclPidOf(line.text) })
      if (kind === undefined) teardown(line)
      if (CUSTOMIZE_ERROR.test(line.text.slice(0, MARKER_SCAN))) customizeAt = line.line
      else if (kind !== undefined && customizeAt !== undefined && line.line === customizeAt + 1) return true
      return false
    },
  }
}

export function createFailureCollector(): FailureCollector {
  const quoted: Failing[] = []
  /** A traceback's frame, quoted only where the excerpt holds no other failure line (its header and exception cut off). */
  let frame: Failing | undefined
  let exception: Failing | undefined
  /** The first exit code a failure line states, with its line. */
  let exit: { readonly code: number; readonly line: LogicalLine } | undefined
  /** The first native check (file:line and its CUDA error) a failure line states, with its line. */
  let native: (NativeCheck & { readonly line: LogicalLine }) | undefined
  const lines = new Set<number>()
  const kinds = new Set<string>()
  const seen = new Set<string>()
  /** Unexplained failure lines whose words name a family, by line number (a line judged again replaces its entry). */
  const hinted = new Map<number, Omit<HintedLine, 'at'> & { readonly line: LogicalLine }>()
  /** Failures a log shows only by what stops happening (an engine that waits, an agent that never answers): the weakest lines. */
  const quiet = createQuietFailures()
  /** The last failure line counted, for a recovery the next lines announce. */
  let lastFailing: number | undefined
  /** vLLM's "X has no vLLM implementation, falling back to Transformers implementation" warning, the first seen. */
  let fallback: { readonly line: LogicalLine; readonly backend: string } | undefined
  /** A line no longer counts as failing (a signature explained it, or the program said it recovered). */
  const forget = (lineNo: number) => {
    const at = quoted.findIndex((f) => f.line.line === lineNo)
    if (at >= 0) quoted.splice(at, 1)
    if (exception?.line.line === lineNo) exception = undefined
    if (exit?.line.line === lineNo) exit = undefined
    if (native?.line.line === lineNo) native = undefined
    lines.delete(lineNo)
    hinted.delete(lineNo)
  }
  const windows = createRecoveryWindows(forget, kinds)
  const owned = createOwnedLines(forget)
  return {
    observe(line, covered) {
      const at = quoted.findIndex((f) => f.line.line === line.line)
      hinted.delete(line.line)
      if (covered) {
        if (frame?.line.line === line.line) frame = undefined
        forget(line.line)
        owned.explained(line)
        return
      }
      fallback ??= transformersFallbackOf(line)
      const kind = failureKind(line.text)
      if (owned.owned(line, kind)) {
        forget(line.line)
        return
      }
      if (kind === undefined) {
        const text = line.text.slice(0, MARKER_SCAN)
        quiet.read(line, text)
        const forgotFrom = windows.ordinary(text)
        if (forgotFrom !== undefined && frame !== undefined && frame.line.line > forgotFrom) frame = undefined
        // "… FAILED rc=255 …: Connection timed out" then "… falling back to the management network": handled, not a failure.
        if (lastFailing !== undefined && line.line - lastFailing <= RECOVERY_WITHIN && RECOVERY.test(text)) {
          forget(lastFailing)
          lastFailing = undefined
        }
        return
      }
      const entry = { line, kind }
      if (WEAK_KINDS.has(kind)) {
        windows.frame()
        // (not a frame of a traceback CPython printed as ignored)
        if (!windows.quietFrame() && windows.unraisableFrom() === undefined && (frame === undefined || frame.line.line === line.line)) frame = entry
        return
      }
      lines.add(line.line)
      lastFailing = line.line
      kinds.add(kind)
      const ignored = windows.failing(line.line, kind, line.text.slice(0, MARKER_SCAN))
      const family = familyHintOf(line.text)
      if (family && hinted.size < HINTED_MAX) hinted.set(line.line, { line, text: line.text, ...family })
      if (at >= 0) quoted[at] = entry
      else if (quoted.length < KEPT) quoted.push(entry)
      if (kind === 'exception' && (exception === undefined || exception.line.line === line.line)) exception = entry
      const code = exitCodeOf(line.text)
      if (code !== undefined && (exit === undefined || exit.line.line === line.line)) exit = { code, line }
      const check = nativeCheckOf(line.text)
      if (check && (native === undefined || native.line.line === line.line)) native = { ...check, line }
      for (const v of valuesIn(line.text)) if (seen.size < SEEN_MAX) seen.add(v)
      if (ignored) for (const n of ignored) forget(n)
    },
    findings(source, findings) {
      const weakest = frame ?? quiet.weakest()
      if (quoted.length === 0 && weakest) {
        quoted.push(weakest)
        lines.add(weakest.line.line)
        kinds.add(weakest.kind)
        for (const v of valuesIn(weakest.line.text)) if (seen.size < SEEN_MAX) seen.add(v)
      }
      if (findings.some((f) => f.severity === 'error' && !CONSEQUENCES.has(f.code))) return []
      if (quoted.length === 0) return causeNotNamed(findings)
      const unrecognised = unrecognisedFinding(source, { quoted: quoted.slice(0, QUOTED), exception, exit, native, lines, kinds, seen })
      const named = fallback && fallback.line.line < quoted[0]!.line.line ? afterTransformersFallback(unrecognised, fallback, source) : unrecognised
      return [named, ...hintFindings(source, [...hinted.values()], findings, where)]
    },
  }
}

/**
 * The raylet reaching its runtime-env agent (src/ray/raylet/runtime_env_agent_client.cc, Ray 2.x): each refused try is an INFO line,
 * "Runtime Env Agent network error: NotFound: on_connect Connection refused, the server may be still starting or is already failed.
 * Scheduling a retry in 1000ms...", until the register timeout (30 s by default): then an ERROR "Runtime Env Agent timed out [as NotFound]
 * in <ms>ms. Status: …, address: …, port: …, Suiciding... / exiting immediately...", and the raylet exits. A start prints a try or two
 * while the agent comes up; five in a row and no other failure is an agent that is not coming (NVIDIA-NeMo/RL#309, 2025: the whole
 * os.environ put into the runtime env, the agent never started), the weakest failure a log can show.
 */
const RUNTIME_ENV_AGENT = /Runtime Env Agent (?:network error|timed out)\b/
const AGENT_RETRIES = 5
const AGENT_KIND = "Ray's runtime-env agent not answering its raylet"

/**
 * vLLM's own warning where the model's architecture has no implementation in vLLM and it builds the model through its Transformers
 * backend (model_executor/model_loader/utils.py, 0.9 → 0.34: "%s has no vLLM implementation, falling back to Transformers
 * implementation. Some features may not be supported and performance may not be optimal.", %s the backend's class:
 * TransformersForCausalLM, TransformersMultiModalForCausalLM, …). A start that then fails on lines no signature explains most likely
 * failed in that fallback (vllm-project/vllm#44796, 2026: Gemma 4's unified model on vLLM 0.22 through the fallback, whose quantized
 * vision layer then fails a Marlin shape check).
 */
// (the sentence wrapped after "implementation," or after "has no vLLM" by a terminal or a quote: the fallback's own words are enough)
const TRANSFORMERS_FALLBACK = /(?:\b(\w+)`? has no vLLM\s+)?(?:implementation,?\s+)?falling back to (?:the )?Transformers (?:implementation|backend)\b/i

function transformersFallbackOf(line: LogicalLine): { readonly line: LogicalLine; readonly backend: string } | undefined {
  if (!line.text.includes('falling back to Transformers')) return undefined
  const f = TRANSFORMERS_FALLBACK.exec(line.text.slice(0, MARKER_SCAN))
  return f ? { line, backend: f[1] ?? 'its Transformers backend' } : undefined
}

/** The unexplained failure of a start that fell back to the Transformers backend: MODEL_NOT_SUPPORTED, its failure lines kept. */
function afterTransformersFallback(unrecognised: Finding, fallback: { readonly line: LogicalLine; readonly backend: string }, source: string): Finding {
  const type = unrecognised.evidence['Exception type']
  return {
    ...unrecognised,
    code: 'MODEL_NOT_SUPPORTED',
    message: `The image's vLLM has no implementation of this model's architecture and built it through its Transformers fallback${fallback.backend.startsWith('its ') ? '' : ` (${fallback.backend})`}; the start then failed on lines no known signature explains${type ? ` (the exception: ${type})` : ''}: the fallback not covering what this checkpoint needs (its quantization, a multimodal or attention layer) is the likely cause.`,
    evidence: {
      'Transformers fallback': `${source}:${where(fallback.line)}: ${clip(fallback.line.text)}`,
      ...unrecognised.evidence,
    },
    fix: "Use a vLLM release that implements the architecture itself (the model card's minimum vLLM version; vLLM's supported-models list), the same image on every node, or a checkpoint the Transformers backend can run (unquantized, or quantized as the backend supports). `--model-impl vllm` makes vLLM say at once whether this image has its own implementation.",
  }
}

/** A logical line's number, or its first and last physical lines. */
const where = (l: LogicalLine) => `${l.line}${l.physicalLines > 1 ? `-${l.line + l.physicalLines - 1}` : ''}`

/** What the collector holds of a log's unexplained failure lines when it is asked for its findings. */
interface Collected {
  readonly quoted: readonly Failing[]
  readonly exception: Failing | undefined
  readonly exit: { readonly code: number; readonly line: LogicalLine } | undefined
  readonly native: (NativeCheck & { readonly line: LogicalLine }) | undefined
  readonly lines: ReadonlySet<number>
  readonly kinds: ReadonlySet<string>
  readonly seen: ReadonlySet<string>
}

/** The one UNRECOGNISED_FAILURE of a log: its first failing line, the exception, exit code, native check and the values the lines name. */
function unrecognisedFinding(source: string, c: Collected): Finding {
  const { quoted, exception, exit, native, lines, kinds, seen } = c
  const shown = [...quoted]
  if (exception && !shown.some((f) => f.line.line === exception!.line.line)) shown[shown.length - 1] = exception
  const first = quoted[0]!.line
  const type = exception ? exceptionType(exception.line.text) : undefined
  const ucx = ucxOf(quoted)
  const note = transportNoteOf(quoted)
  return {
    code: 'UNRECOGNISED_FAILURE',
    severity: 'error',
    node: first.prefixIp ?? null,
    message:
      quoted.length === 1 && quoted[0]!.kind === STALL_KIND
        ? "vLLM's engine finished its start-up, then waited on its workers with no progress after (the log ends so): a hang, whose cause no line of this log names (a collective that never completes across the nodes, a GPU fault, memory pressure on a node)."
        : `The log holds failure lines that no known signature explains${type ? ` (the exception: ${type})` : ''}${note ? `; what failed: ${note.what}` : ''}, quoted in the evidence with their line numbers: this is not a clean start.`,
    evidence: {
      [EVIDENCE.logLine]: `${source}:${where(first)}`,
      'First failing line': clip(first.text),
      ...(type ? { 'Exception type': type, 'Exception line': `${where(exception!.line)}: ${clip(exception!.line.text)}` } : {}),
      ...(seen.size > 0 ? { 'Addresses, ports and paths named': [...seen].join(', ') } : {}),
      ...(exit ? { 'Exit code': String(exit.code), ...exitCodeMeaning(exit.code) } : {}),
      ...(native ? { 'Native check': native.where, 'Error it reports': native.error, ...(native.means ? { 'Usually means': native.means } : {}) } : {}),
      ...(ucx ? { 'UCX error': ucx.message, ...(ucx.peer ? { 'Peer UCX tried': ucx.peer } : {}) } : {}),
      ...(note ? { 'What failed': note.what, ...note.evidence } : {}),
      'Failure lines': shown.map((f) => `${where(f.line)}: ${clip(f.line.text)}`).join('\n'),
      'Kinds of failure line': [...kinds].join(', '),
      'Failure lines in all': String(lines.size),
    },
    fix: `${note ? `${note.fix} ` : ''}${native?.fix ? `${native.fix} ` : ''}${ucx ? `${ucxFix(ucx.peer)} ` : ''}Read from the first quoted line upwards for the first cause (the exception a traceback ends in, the first ERROR before the others); check the addresses, ports and paths it names on that node; run with NCCL_DEBUG=INFO / RAY_BACKEND_LOG_LEVEL=debug for more. If it is a Ray, vLLM or NCCL failure this tool should name, report these lines so a signature can be added.`,
  }
}

/** The first UCX error record quoted: its message and the peer it names. */
function ucxOf(quoted: readonly Failing[]): { readonly message: string; readonly peer?: string } | undefined {
  const record = quoted.find((f) => f.kind === UCX_KIND)
  if (!record) return undefined
  const head = record.line.text.slice(0, MARKER_SCAN)
  const message = UCX_MESSAGE.exec(head)?.[1]?.trim()
  if (!message) return undefined
  const peer = UCX_PEER.exec(message)?.[1]
  return { message: clip(message), ...(peer ? { peer } : {}) }
}

/** What to check when UCX (a KV transfer's or MPI's transport) failed, with the peer it tried. */
const ucxFix = (peer: string | undefined): string =>
  `UCX, the transport under NIXL (vLLM's and Dynamo's NixlConnector), LMCache's remote KV and MPI, failed${peer ? ` towards ${peer}` : ''}: check that this node reaches the peer over the interface and transports UCX picked (UCX_NET_DEVICES, UCX_TLS; ucx_info -d lists them), that nothing blocks the peer's port, that the peer process is still up (a prefill or decode pod that restarted), and that the RDMA devices are active (ibv_devinfo); rerun with UCX_LOG_LEVEL=info to see the transport chosen.`

/**
 * Transports under a KV transfer or an expert-parallel all-to-all that have no finding code of their own, told by their own words in a
 * quoted failure line: what failed, the values the line names, and what to change.
 */
interface TransportNote {
  readonly what: string
  readonly evidence: Readonly<Record<string, string>>
  readonly fix: string
}

/**
 * NIXL's UCX backend registering GPU memory (nixl src/utils/ucx/ucx_utils.cpp): NIXL_ERROR "VRAM memory is detected as host by UCX. UCX is
 * likely not configured with CUDA support. VRAM registration cannot proceed." after UCX reported the buffer as host memory, beside its warning
 * "<n> NVIDIA GPU(s) were detected, but UCX CUDA support was not found!". The UCX that answered has no CUDA memory domain selected: the nixl
 * wheel's bundled UCX without libuct_cuda, a second UCX copy in the process (NCCL's HPC-X plugin, NVIDIA Cosmos' troubleshooting page), or a
 * UCX_TLS allowlist without cuda_copy (a tcp-only or rc-only list, two run logs in the code index).
 */
const NIXL_VRAM_AS_HOST = /VRAM memory is detected as host by UCX|UCX CUDA support was not found/
const NIXL_VRAM_FIX =
  "NIXL's UCX backend could not register GPU memory: the UCX it loaded treats VRAM as host memory because no CUDA transport is selected. Put cuda_copy (and cuda_ipc) in UCX_TLS, or set it to all (a tcp-only or rc-only allowlist drops them); where the nixl wheel's bundled UCX lacks libuct_cuda.so, point UCX_MODULE_DIR at a UCX that has it (HPC-X's /opt/hpcx/ucx/lib/ucx) or build NIXL against a CUDA-enabled UCX; keep a second UCX copy (NCCL's HPC-X plugin) from being loaded first. kv_buffer_device=cpu in --kv-transfer-config works without CUDA support in UCX, slower."

/** An NVSHMEM error record's transport module (src/modules/transport/<name>/) and its message. */
const NVSHMEM_PARTS = /\/transport\/(\w+)\/[^\s:]*:\d+: (?:NULL value |non-zero status: -?\d+ |error status: -?\d+ \([^)]*\) ?)(.*)$/i
const NVSHMEM_FIX = (transport: string | undefined): string =>
  `NVSHMEM (under DeepEP, pplx and NIXL-EP's all-to-all) could not set up${transport ? ` its ${transport} transport` : ' a transport'}. ${transport === 'ibgda' ? 'IBGDA drives the NIC from the GPU through the mlx5 DEVX interface: the container needs the RDMA devices and the rights to use them (run it --privileged, or with --device /dev/infiniband, --cap-add IPC_LOCK and --ulimit memlock=-1), the host\'s NVIDIA driver needs PeerMappingOverride=1 (DeepEP\'s install notes: options nvidia NVreg_EnableStreamMemOPs=1 NVreg_RegistryDwords="PeerMappingOverride=1;") and GPUDirect RDMA (nvidia_peermem or dma-buf); where IBGDA cannot work, NVSHMEM_IB_ENABLE_IBGDA=0 falls back to the CPU-proxied IBRC transport. ' : ''}Check the NICs with ibv_devinfo (ports Active, the same link layer on every node) and rerun with NVSHMEM_DEBUG=INFO to see the transport and device NVSHMEM picked.`

/**
 * DeepEP's CPU-side wait for the counts of a dispatch (csrc/deep_ep.cpp Buffer::intranode_dispatch / internode_dispatch, 1.x):
 * `throw std::runtime_error("DeepEP error: timeout (dispatch CPU)")` after NUM_CPU_TIMEOUT_SECS (100 s) with no answer from the other ranks.
 * Seen when NVSHMEM's RDMA path does not work (IBGDA), with a DeepEP revision that lacks the adaptation to NVSHMEM >= 3.5.19 (deepseek-ai/DeepEP
 * #707 and PR #564; NVIDIA-NeMo/RL#4027, NVIDIA-NeMo/Automodel#3967), and when ranks reach the first dispatch far apart (DeepGEMM's JIT compiling
 * at different speeds on a first start, an SGLang troubleshooting guide in the code index), besides a rank that died or hung.
 */
const DEEPEP_TIMEOUT = /\bDeepEP error: timeout \(([^)\n]{1,40})\)/
const DEEPEP_FIX =
  "DeepEP's all-to-all waited 100 s for the other ranks' counts: find the rank that never got there (every node's log at this time: one that died, hung, or was still compiling DeepGEMM kernels on a first start; precompile them, e.g. sglang.compile_deep_gemm, or warm up on every rank before serving). Where every rank was there, the RDMA path under it does not work: check NVSHMEM's transport (NVSHMEM_DEBUG=INFO; IBGDA needs the driver's PeerMappingOverride=1 and GPUDirect RDMA) and that the DeepEP revision matches the NVSHMEM wheel (DeepEP without its NVSHMEM 3.5.19 adaptation hangs in notify_dispatch on newer NVSHMEM: pin nvidia-nvshmem below 3.5.19 or take a DeepEP with it); pplx or allgather_reducescatter as the all2all backend tells a DeepEP problem from a fabric one."

/**
 * vLLM's NixlConnector handshake (distributed/kv_transfer/kv_connector/v1/nixl_connector.py, 0.9 to 0.3x): `RuntimeError(f"Remote NIXL agent engine
 * ID mismatch. Expected {expected_engine_id},received {metadata.engine_id}.")` when the side channel it dialled answered for another engine. The
 * prefill side advertises VLLM_NIXL_SIDE_CHANNEL_HOST, localhost by default, so a decode node dials itself and receives its own id
 * (vllm-project/vllm#27083: "because VLLM_NIXL_SIDE_CHANNEL_HOST was not set"; KAITO's and a P/D guide's troubleshooting tables in the code
 * index); two engines on one host share a side-channel port unless each has its own VLLM_NIXL_SIDE_CHANNEL_PORT (Dynamo's disaggregated docs).
 */
const NIXL_ENGINE_MISMATCH = /Remote NIXL agent engine ID mismatch\.?(?:\s*Expected\s*([\w-]+(?:\s*-[\w-]+)*)\s*,\s*received\s*([\w-]+))?/
const NIXL_ENGINE_MISMATCH_FIX =
  "The decode engine's NIXL handshake reached the side channel of another engine than the prefill engine it asked for, usually its own: the prefill side advertises VLLM_NIXL_SIDE_CHANNEL_HOST, localhost unless set. Set VLLM_NIXL_SIDE_CHANNEL_HOST on every prefill (and decode) node or pod to that node's own address the peers reach (its fabric or pod IP, not localhost; VLLM_HOST_IP and POD_IP do not set it), give each engine on one host its own VLLM_NIXL_SIDE_CHANNEL_PORT, and let the proxy pass the prefill's kv_transfer_params (remote_host, remote_port, remote_engine_id) on unchanged. Until then the decode side recomputes every prompt."

/**
 * Ray's own fatal check (RAY_CHECK in src/ray/util/logging.h): a `C` record of the raylet, the GCS or a core worker, "[<time> C <pid> <tid>]
 * (<component>) <file>:<line>:  An unexpected system state has occurred. You have likely discovered a bug in Ray. Please report this issue at
 * https://github.com/ray-project/ray/issues and we'll work with you to fix it. Check failed: <condition> <message>" (Ray 2.4x-2.5x; the shorter
 * "An unexpected system state has occurred. Check failed: …" and the bare "<file>:<line>:  Check failed: …" of other releases, ray-project/ray#40589,
 * vllm-project/vllm#37001): the process aborts there, a Ray bug, not a setting. In experimental_mutable_object_manager.cc / _provider.cc the check
 * belongs to Ray Compiled Graphs' mutable-object channels, which vLLM's Ray executor moves its workers' inputs and outputs through across nodes
 * (ray-project/ray#59191, #59404, #62328, #62427, #63229: a raylet aborting on "ChannelError: Channel closed", a worker on OpenSemaphores' "0 vs 0",
 * on the first request after a clean start).
 */
const RAY_FATAL_CHECK =
  /\[\d{4}-\d\d-\d\d [\d:,.]+ C \d+ \d+\]\s*(?:\(([\w-]+)\)\s*)?([\w.-]+\.(?:cc|h)):(\d+):\s+(?:An unexpected system state has occurred\.(?: You have likely discovered a bug in Ray\.)?.*?)?Check failed:\s*(.+)$/
const RAY_CGRAPH_FILE = /^experimental_mutable_object_/
const RAY_FATAL_FIX = (component: string | undefined, cgraph: boolean): string =>
  `Ray${component ? ` (its ${component})` : ''} aborted on one of its own internal checks: a bug in Ray, not a setting of this deployment, and the process that logged it died there${component === 'raylet' ? " (a raylet's death takes its node's workers with it)" : ''}. ${cgraph ? "The check belongs to Ray Compiled Graphs' mutable-object channels, which vLLM's Ray executor moves inputs and outputs through between the nodes' workers (Ray reports of the same abort on multi-node vLLM: ray-project/ray#59404, #62328, #62427, #63229, usually on the first request after a clean start). Ways round it: run a Ray release where it is fixed (or the one the vLLM image was built and tested with, the same on every node), or start vLLM across the nodes without Ray (vLLM's native multi-node mode, --nnodes/--node-rank/--master-addr with --headless on the workers). " : ''}Report the lines with \`ray --version\` and the vLLM version to ray-project/ray.`

/**
 * SGLang's load barrier (python/sglang/srt/model_executor/model_runner.py, 0.4-0.5.x): after its own weights are in, each rank waits on a
 * monitored barrier of the TP group for UNBALANCED_MODEL_LOADING_TIMEOUT_S, then raises `ValueError(f"TP rank {self.tp_rank} could finish the model
 * loading, but there are other ranks that didn't finish loading. It is likely due to unexpected failures (e.g., OOM) or a slow node.")` (also with
 * attn_tp_rank). The rank that says so is fine: the cause is on a rank that never arrived, in its own log (another node's).
 */
const SGLANG_RANKS_UNLOADED = /\b(?:ATTN )?TP rank (\d+) could finish the model loading, but there are other ranks that didn't finish loading\b/
const SGLANG_RANKS_UNLOADED_FIX =
  "This rank loaded its weights and then waited for the others; the ranks that never reached the barrier hold the cause, in their own logs (on a multi-node start, the other nodes' logs of the same minutes): a rank killed while loading (the kernel's or the container's OOM killer: dmesg, exit code 137), an exception during its load, or a node still reading weights past SGLang's wait (slow or shared storage, a cold cache on one node: pre-stage the weights on every node's local disk, or --model-loader-extra-config with more loading threads). If every rank loaded, look for a code change between the ranks' images (the same SGLang build on every node)."

function transportNoteOf(quoted: readonly Failing[]): TransportNote | undefined {
  for (const f of quoted) {
    const head = f.line.text.slice(0, MARKER_SCAN)
    const option = f.kind === COMMAND_NOT_FOUND ? OPTION_RUN.exec(head) : null
    if (option) {
      const [, line, word] = option
      const cut = line ? `line ${Number(line) - 1}` : 'the line before it'
      return {
        what: `the start script ran the option \`${word}\` as a command: ${cut} lost its trailing \`\\\``,
        evidence: { 'Option run as a command': word!, ...(line ? { 'Script line of the option': line } : {}) },
        fix: `End ${cut} of the start script with \` \\\`: without it bash ended the command there (a \`docker run\` then starts without its image, its environment or its serve) and ran the next line as a command. \`vllm-ray-deploy diagnose --launch-script <script>\` names the line with a patch (SCRIPT_CONTINUATION_BROKEN).`,
      }
    }
    if (RUNTIME_ENV_AGENT.test(head))
      return {
        what: "Ray's runtime-env agent never answered its raylet (connection refused, retried until the raylet gives up and exits)",
        evidence: { 'Ray process': 'raylet → runtime_env_agent' },
        fix: "Read /tmp/ray/session_latest/logs/runtime_env_agent.log (and dashboard_agent.log) on that node for why the agent did not start: a runtime_env that cannot be set up (a whole os.environ passed as env_vars, a pip or conda spec that fails), a port it could not bind (--runtime-env-agent-port, taken by another Ray), or a Python package of the agent's missing from the image (ray[default]).",
      }
    const ray = RAY_FATAL_CHECK.exec(head)
    if (ray) {
      const [, component, file, line, check] = ray
      const cgraph = RAY_CGRAPH_FILE.test(file!)
      return {
        what: `Ray's own internal check${component ? ` in its ${component}` : ''}${cgraph ? " (Compiled Graphs' mutable-object channel)" : ''}`,
        evidence: {
          ...(component ? { 'Ray process': component } : {}),
          'Ray source': `${file}:${line}`,
          'Check that failed': clip(check!.trim()),
          ...(cgraph ? { 'Ray feature': "Compiled Graphs (vLLM's Ray executor)" } : {}),
        },
        fix: RAY_FATAL_FIX(component, cgraph),
      }
    }
    const unloaded = SGLANG_RANKS_UNLOADED.exec(head)
    if (unloaded)
      return {
        what: "SGLang's load barrier (other ranks never finished loading their weights)",
        evidence: { 'Rank that finished loading': unloaded[1]! },
        fix: SGLANG_RANKS_UNLOADED_FIX,
      }
    const mismatch = NIXL_ENGINE_MISMATCH.exec(head)
    if (mismatch)
      return {
        what: "vLLM's NIXL handshake (the side channel answered for another engine)",
        evidence: {
          ...(mismatch[1] ? { 'Engine asked for': mismatch[1].replace(/\s+/g, '') } : {}),
          ...(mismatch[2] ? { 'Engine that answered': mismatch[2] } : {}),
        },
        fix: NIXL_ENGINE_MISMATCH_FIX,
      }
    const deepep = DEEPEP_TIMEOUT.exec(head)
    if (deepep) return { what: `DeepEP's ${deepep[1]} wait`, evidence: { 'DeepEP error': clip(deepep[0]) }, fix: DEEPEP_FIX }
    if (NIXL_VRAM_AS_HOST.test(head))
      return { what: "NIXL's UCX backend registering GPU memory (VRAM seen as host memory)", evidence: { 'NIXL error': clip(head) }, fix: NIXL_VRAM_FIX }
    if (f.kind === STACK_DUMP_KIND) {
      const fn = STACK_DUMP_COLLECTIVE.exec(head)?.[1]
      return {
        what: `a process that waits in torch.distributed's ${fn ?? 'collective'} (its stack as dumped)`,
        evidence: { 'Waiting in': clip(head.trim()) },
        fix: "A process waits in a collective until every rank of its group reaches the same call: dump every rank's stack (py-spy dump --pid <pid> on each node) and find the rank that is elsewhere (dead, still loading, in another call) or missing (a node that never started, a world size or node rank set wrong). Where every rank is there, the fabric under it cannot carry the collective: rerun with NCCL_DEBUG=INFO (and NVSHMEM_DEBUG=INFO under DeepEP) and check the interface and transport each node picked.",
      }
    }
    if (f.kind === NVSHMEM_KIND) {
      const parts = NVSHMEM_PARTS.exec(head)
      const transport = parts?.[1]
      return {
        what: `NVSHMEM's ${transport ? `${transport} transport` : 'set-up'}`,
        evidence: { ...(transport ? { 'NVSHMEM transport': transport } : {}), 'NVSHMEM error': clip(parts?.[2]?.trim() || head) },
        fix: NVSHMEM_FIX(transport),
      }
    }
  }
  return undefined
}

/** What usually sends an exit code, as evidence (a container's 137 is SIGKILL: the OOM killer or a memory limit, or a kill from outside). */
function exitCodeMeaning(code: number): Record<string, string> {
  const meaning = exitMeaning(code)
  return meaning ? { 'Exit code means': meaning } : {}
}

/** The first hinted line of each family no finding has named yet, in the order the lines came, as warnings. */
function hintFindings(
  source: string,
  hinted: readonly (Omit<HintedLine, 'at'> & { readonly line: LogicalLine })[],
  findings: readonly Finding[],
  where: (l: LogicalLine) => string,
): Finding[] {
  const named = new Set(findings.map((f) => f.code))
  const byFamily = new Map<string, { first: (typeof hinted)[number]; count: number }>()
  for (const h of [...hinted].sort((a, b) => a.line.line - b.line.line)) {
    if (named.has(h.hint.code)) continue
    const seenBefore = byFamily.get(h.hint.code)
    if (seenBefore) seenBefore.count++
    else byFamily.set(h.hint.code, { first: h, count: 1 })
  }
  return [...byFamily.values()].map(({ first, count }) =>
    familyHintFinding({ at: `${source}:${where(first.line)}`, text: first.text, words: first.words, hint: first.hint }, first.line.prefixIp ?? null, count),
  )
}

/**
 * A death finding (CONSEQUENCES) is the log's only error and names no cause, and no failure line is left
 * unexplained: the cause is not in any form this tool knows, so one UNRECOGNISED_FAILURE says so, quoting
 * the death's line (what to read upwards from). Never for a death that names its cause (EVIDENCE.cause).
 */
function causeNotNamed(findings: readonly Finding[]): Finding[] {
  const death = findings.find((f) => f.severity === 'error' && CONSEQUENCES.has(f.code) && f.evidence[EVIDENCE.cause] === undefined)
  if (!death) return []
  const line = String(death.evidence.Line ?? '')
  return [
    {
      code: 'UNRECOGNISED_FAILURE',
      severity: 'error',
      node: death.node,
      message: `The log says what died (${death.code}) but no line of it names why in a form this tool knows: the cause is above the quoted line on this node, or in another node's log at the same time.`,
      evidence: {
        [EVIDENCE.logLine]: String(death.evidence[EVIDENCE.logLine] ?? ''),
        'First failing line': clip(line),
        ...(exceptionType(line) ? { 'Exception type': exceptionType(line)! } : {}),
        'Failure lines': clip(line),
        'Kinds of failure line': `a death (${death.code}) without its cause`,
      },
      fix: "Read the log above the quoted line for the first error, and every other node's log at the same time (a worker that hung or died first); run with NCCL_DEBUG=INFO and VLLM_LOGGING_LEVEL=DEBUG for more. If it is a failure this tool should name, report these lines so a signature can be added.",
    },
  ]
}
