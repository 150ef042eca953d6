/**
 * Pasted logs as people paste them, turned back into the lines the programs printed, before any
 * signature is matched: CRLF and ANSI colour codes dropped, `>` quote markers (GitHub, e-mail),
 * markdown code fences, HTML entities (a scraped page) and links an autolinker made of host-like words undone, every prefix a collector, a
 * launcher or a process puts before a line taken off (see PREFIX: Ray's and vLLM's `(Name pid=…, ip=…)`,
 * the innermost `ip=` kept as the node; compose, kubectl, journald, GitHub Actions, docker timestamps;
 * srun, mpirun, torchrun, torch), `[repeated 3x across cluster]` suffixes taken off (the count kept),
 * and continuation lines joined back:
 *
 * - terminal-wrapped: a paste cut at a fixed width (most lines of exactly one length) is joined
 *   without a separator, because the cut falls inside a word; a line that carries a prefix is never
 *   a terminal's continuation;
 * - re-wrapped between words at a width (a person, a mail client): joined where the next line's first
 *   word would not have fitted (`detectFoldWidth`);
 * - a dict or list split across lines (`{…` open at the end of a line) is joined to its close;
 * - logger-wrapped: an indented line that carries on a request (`{…}`, `specs=[…]`) is joined;
 * - a multi-line message (Ray's version-mismatch block) is joined to its head.
 *
 * `createLineJoiner` is the streaming form (the live log watcher); `scanLog` (signatures.ts) reads a
 * whole text and also detects the widths.
 */

import { unwrapRecord } from './structured-record.js'

export interface LogicalLine {
  /** The joined text without prefixes, quote markers, colour codes or repeat suffixes. */
  readonly text: string
  /** 1-based number of the first physical line it came from. */
  readonly line: number
  /** How many physical lines were joined. */
  readonly physicalLines: number
  /** `[repeated Nx across cluster]`: N (the line was printed N more times on other workers). */
  readonly repeated?: number
  /** The innermost `ip=` of Ray's process prefixes: the node the line was printed on. */
  readonly prefixIp?: string
  /** Brackets still open, or a closing colon, at the end of the text: the line may go on past what was pasted. */
  readonly open: boolean
}

// Colour codes (also where a page or a copy replaced the escape byte: U+FFFD, the replacement character a decoder puts for it, or
// ␛, its printable symbol — "\ufffd[36m(AgentLoopWorker pid=118037)\ufffd[0m ERROR:…", verl-project/verl PR #5327 as a page stores it;
// or `^[`, the caret notation `cat -v`, `less` and some terminals' copy write for it — "^[[1;36m(EngineCore_DP0 pid=2344883)^[[0;0m
// RuntimeError: …", vllm-project/vllm PR #27666 as stored, held-out batch 131)
// biome-ignore lint/suspicious/noControlCharactersInRegex: ESC starts the colour codes this strips from pastes
const ANSI = /(?:\x1b|ESC|\ufffd|\u241b|\^\[)\[[0-9;?]*[A-Za-z]/g
/**
 * Colour codes whose escape byte a copy dropped altogether, left as `[36m(RayWorkerWrapper pid=3634859, ip=10.52.97.42)[0m …`
 * (NVIDIA-NeMo/RL#1932 as stored; a browser's copy of a terminal, a CI page): only SGR codes (`[…m`), and only where they cannot
 * be a message's words — at the line's start, or two or more on one line (a colour set and reset).
 */
const BARE_SGR = /\[(?:\d{1,3}(?:;\d{1,3})*)?m/g
const BARE_SGR_FIRST = new RegExp(`^\\s*${BARE_SGR.source}`)
const stripBareSgr = (line: string): string => {
  const n = line.match(BARE_SGR)?.length ?? 0
  return n >= 2 || (n === 1 && BARE_SGR_FIRST.test(line)) ? line.replace(BARE_SGR, '') : line
}
const QUOTE = /^[ \t]*(?:>[ \t]?)+/
/**
 * A frame of box-drawing bars a terminal UI or a panel draws around each line (k9s' and Lens' log views, rich's panels: `│ ERROR 05-09 01:44:02
 * [core.py:387] …   │`, run-ai/runai-model-streamer#52 as stored, held-out batch 141): the bars and the padding before the closing one are
 * the viewer's, not the program's. No program here starts a log line with one.
 */
const BOX_LEFT = /^[│┃║] ?/
const BOX_RIGHT = /\s*[│┃║]\s*$/
/** A markdown code fence line (```` ``` ````, ```` ```text ````): not part of the log. */
const FENCE = /^\s*(?:```|~~~)[\w+-]*\s*$/
/** HTML entities a scraped page or a mail archive leaves in a log (`&gt;`, `&#39;`, `&quot;`). */
const ENTITY = /&(?:lt|gt|amp|quot|apos|nbsp|#\d{1,7}|#x[\da-f]{1,6});/gi
const NAMED_ENTITIES: Readonly<Record<string, string>> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'", nbsp: ' ' }
const decodeEntity = (e: string): string => {
  const name = e.slice(1, -1).toLowerCase()
  if (name[0] !== '#') return NAMED_ENTITIES[name] ?? e
  const code = name[1] === 'x' ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1))
  return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : e
}
/**
 * What a collector, a launcher or a program puts before each line it prints or forwards, taken off in any
 * number and order (`svc-1  | 2026-…Z (EngineCore_DP0 pid=1) [rank0]:…`), one alternative at a time:
 *
 * - an RFC 3339 time with a `T` and a zone: `kubectl logs --timestamps` and `docker logs -t` (RFC3339Nano),
 *   GitHub Actions' raw log (`2026-01-01T00:00:00.0000000Z `), `journalctl -o short-iso` (then `host ident[pid]: `);
 * - journalctl's short form `Dec 05 10:00:00 host ident[pid]: ` (`kernel: ` has no pid);
 * - docker compose's `service-1  | ` (v1 `service_1 | `); `kubectl logs --prefix`'s `[pod/name/container] `;
 * - the CRI log file's stream and tag after its time (`/var/log/pods/…/0.log`, containerd and CRI-O: `…Z stdout F `);
 * - Open MPI's `--tag-output` `[1,0]<stderr>:`, Slurm's `srun -l` `0: ` (padded ` 3: `), torchrun's
 *   `--tee` `[default0]:` and torch's own `[rank1]:` (torch >= 2.2);
 * - a process in parentheses with `key=value` fields: Ray's `(RayWorkerWrapper pid=1, ip=X)`, `(pid=1)`,
 *   `(raylet, ip=X)`, Ray Serve's `(ServeReplica:app:deployment pid=1, ip=X)` (ray-project/ray#54812), vLLM's `(EngineCore_DP0 pid=1)` / `(Worker_DP0_PP1_TP0_EP0 pid=1)` (0.34 builds it into the
 *   logger format), vLLM 0.8–0.10's `(VllmWorker rank=1 pid=1)` (fields apart by a blank), SkyPilot's `(worker1, rank=1, pid=1, ip=X)`;
 *   its `ip=` is the node the line was printed on;
 * - the same process in square brackets, as a log collector or a paste renders it: `[EngineCore_DP0 pid=37] ERROR …`
 *   (vllm-project/vllm#30969, and three more threads' pastes found with `find_string`);
 * - Ray's own process named alone, where its log monitor forwards a line of the head node's raylet or GCS to the driver before
 *   that process's own record (`(raylet) [2025-10-31 17:08:05,488 E 24507 24507] (raylet) worker_pool.cc:586: …`, RLinf/RLinf#227).
 * - a date and time with a blank and no zone (Docker Desktop's log view, `2025-03-07 18:32:47 `) before a traceback's lines — an indented
 *   frame, `Traceback`, an exception — which would otherwise not start the line (intel/ipex-llm#12953, held-out batch 141); before a
 *   level or a message it stays, as Python logging's and Ray's record heads are read with their time;
 * - other collectors' and viewers' heads, each as its tool prints it: pm2's `0|vllm     | ` (id|name), Loki's labels after the time
 *   (`{app="vllm", pod="vllm-0"} `, logcli's default output), `cat -n`'s and `nl`'s line number and tab, a time and a tab (Grafana's and
 *   Loki's exports), Go's standard log time (`2026/02/01 09:00:01 `: the NVIDIA container toolkit, device plugins), Airflow's task log
 *   head `[2026-02-01, 09:00:01 UTC] {subprocess.py:93} ` and, after it, the `INFO - ` under which Airflow forwards a child's output;
 * - a time a wrapper stamped on each line: `2025-06-27 17:14:23: ` (a date, the time and a colon: vllm-project/vllm#20177, held-out
 *   batch 151), moreutils' `ts` (`Jun 27 17:14:23 `, its default `%b %d %H:%M:%S`);
 * - Google Cloud Logging's lines as its Logs Explorer copies them: the severity, the time, then `[key: value]` fields (`ERROR
 *   2026-04-16T19:06:53.952592314Z [severity: ERROR] [resource.labels.containerName: sglang-container] …`): the severity is the shipper's
 *   (a container's stderr is ERROR), not the program's, so the head goes and the program's own line is read (sgl-project/sglang#22749,
 *   held-out batch 155);
 * - docker build's plain progress (BuildKit): the step and the seconds since it started, `#12 0.759 ` (`#12 ` alone before the
 *   step's own `ERROR: ` or `[3/5] `), or the seconds alone where a paste lost the step (`0.759   × No solution found …`,
 *   eugr/spark-vllm-docker#21, held-out batch 140): a number with exactly three decimals;
 * - a time alone in square brackets, as Buildkite's exported logs (`[2026-04-09T01:59:26Z] `, its web view copied with a `  | ` column
 *   before it) and shell log helpers (`[2026-04-09 01:59:26] `) put it: not where a level tag or a ` - logger - LEVEL` follows, which the
 *   failure-line reader takes with the time, and not Ray's `[2025-03-03 13:03:38,823 E 53766 2515875]` record head (level and pids inside).
 *
 * One space after a prefix is part of it; more is the message's own indentation (Ray's version block).
 *
 * (`[0] ` / `[0] [0] `: a launcher's per-process tag, the index `concurrently` prints by default (open-cli-tools/concurrently,
 * `--prefix index`, "[{index}]") and Monarch's process mesh prints before each line its procs write (meta-pytorch/torchforge PR #109:
 * "[0] [0] RuntimeError: Data processing error: CAS service error …"); a tag alone on its line when the program printed a blank one.)
 */
const PREFIX_FORMS: ReadonlyArray<readonly [string, RegExp]> = [
  [
    'Google Cloud Logging, as Logs Explorer copies a line',
    /(?:DEFAULT|DEBUG|INFO|NOTICE|WARNING|ERROR|CRITICAL|ALERT|EMERGENCY) \d{4}-\d\d-\d\dT[\d:.]+Z (?=\[(?:severity|resource\.labels\.[\w.]+|labels\.[\w.-]+|jsonPayload\.[\w.]+): )(?:\[[\w.-]+: [^\]\n]*\] )+/,
  ],
  ["a wrapper's date, time and colon", /\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d{1,9})?: /],
  ["moreutils' ts", /[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d (?![\w.-]+ (?:[^\s:[\]]+\[\d+\]|kernel):)/],
  ["a viewer's box bar", /[│┃║] ?/],
  ['pm2', /\d{1,4}\|[\w.@-]+ *\| /],
  ["logcli's labels", /\{(?:[\w.]+="[^"\n]*"(?:, ?)?)+\} /],
  ['cat -n, nl', /\s*\d{1,7}\t/],
  ['a time and a tab', /\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:\.\d{1,9})?(?:Z|[+-]\d\d:?\d\d)?\t/],
  ["Go's log", /\d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d(?:\.\d{1,6})? /],
  ["Airflow's task log", /\[\d{4}-\d\d-\d\d,? \d\d:\d\d:\d\d(?:,\d{3})?(?: [A-Z]{2,5}|[+-]\d{4})?\] \{[\w.-]+:\d+\} (?:(?:INFO|DEBUG) - )?/],
  [
    'a date column before a traceback (Docker Desktop)',
    /\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d{1,9})? (?= |Traceback \(|(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception): )/,
  ],
  ["BuildKit's step and seconds", /#\d{1,4} (?:\d{1,5}\.\d{3} |(?=ERROR: |\[[\w /-]*\] ))/],
  ["BuildKit's seconds alone", /\d{1,5}\.\d{3} (?=\S| )/],
  [
    'an RFC 3339 time (kubectl, docker -t, GitHub Actions, journalctl short-iso)',
    /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[.,]\d{1,9})?(?:Z|[+-]\d\d:?\d\d)(?: [\w.-]+ (?:[^\s:[\]]+\[\d+\]|kernel):)? /,
  ],
  ['journalctl short', /[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d [\w.-]+ (?:[^\s:[\]]+\[\d+\]|kernel): /],
  ['docker compose', /[\w][\w.-]* +\| /],
  ['kubectl logs --prefix', /\[pod\/[^\]\s]+\] /],
  ["the CRI log file's stream and tag", /(?:stdout|stderr) [FP] /],
  ['Open MPI --tag-output', /\[\d+,\d+\]<std(?:out|err|diag)>: ?/],
  ['srun -l', / {0,3}\d{1,4}: /],
  ["torchrun --tee, torch's rank", /\[[A-Za-z_]+\d+\]: ?/],
  ['a process in parentheses (Ray, vLLM, SkyPilot)', /\s*\((?:[\w.:/-]+(?:, ?| ))?\w+=[^\s,()]+(?:(?:, ?| )\w+=[^\s,()]+)*\) ?/],
  ['a process in square brackets', /\[(?:[\w.:/-]+ )?pid=\d+(?:, ?ip=[\d.a-fA-F:]+)?\] ?/],
  ["Ray's process named alone", /\((?:raylet|gcs_server|autoscaler|monitor|dashboard|dashboard_agent|runtime_env_agent|log_monitor)\) (?=\[\d{4}-)/],
  [
    'a time alone in square brackets (Buildkite, shell helpers)',
    /\s*(?:\| )?\[\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d{1,9})?(?:Z|[+-]\d\d:?\d\d)?\] (?!\[\s*(?:ERROR|FATAL|CRITICAL|WARN(?:ING)?|INFO|DEBUG|TRACE|SPAM)\s*\]|[-|] )/,
  ],
]
/** Every form above as one alternation, in that order (the first that fits at a line's start is taken). */
const PREFIX = new RegExp(`^(?:${PREFIX_FORMS.map(([, form]) => form.source).join('|')})`)
const PREFIX_IP = /\bip=([\d.a-fA-F:]+)/
/**
 * The `[0] ` tag (above) is taken off like a prefix but does not mark a record's start: NCCL and torch print `[0]` inside their
 * own lines (`… NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/Socket/0`), so a terminal's cut can leave a remainder that
 * starts with one.
 */
const LAUNCHER_TAG = /^\[\d{1,3}\](?: |$)/
/** Never take off more than this many prefixes from one line. */
const MAX_PREFIXES = 8
const REPEATED = /\s*\[repeated (\d+)x across cluster\](?:\s*\(Ray deduplicates logs by default\..*)?\s*$/
/**
 * What a record starts with in every program here: a timestamp, a level, a glog or c10d tag, a traceback, torch's
 * rank tag, Ray's autoscaler, NCCL's `host:pid:tid [dev] NCCL` or `file.cc:n WARN`, a comment or a shell prompt's
 * `#`, C++'s `terminate called`, the shell's report of a signal that ended a process (`Aborted (core dumped)` alone on
 * its line), a tool's own `Error: `, `Warning: ` or `Note: ` line (a launcher's "Note: Command requires 2 node(s) …" then "Error:
 * Command requires 4 nodes …", forwis/spark-vllm-docker's README, held-out batch 161: read as one re-wrapped sentence before). A terminal's cut rarely lands right before one of these, so a line after a cut that starts with one is a
 * record of its own.
 */
const RECORD_HEAD =
  /^\s*(?:\d{4}-\d\d-\d\d[ T]\d|\d\d-\d\d \d\d:\d\d|\[\d{4}-\d\d-\d\d|[IWEFCD](?:\d{8}|\d{4}) |\[[IWEFCD]\d{4}|\[[IWEFCD] [\w.]+:\d+\]|(?:INFO|WARNING|WARN|ERROR|DEBUG|CRITICAL|FATAL)(?::| +\d\d-\d\d | {2,}| \[)|(?:Error|Warning|Note): |Traceback|\[rank\d+\]|\(autoscaler|\w[\w.-]*:\d+:\d+ \[\d+\] NCCL|[\w./-]+\.(?:cc|cu|c):\d+ (?:NCCL )?(?:WARN|INFO)\b|#|(?:Aborted|Segmentation fault|Killed|Terminated|Bus error|Illegal instruction)(?: \(core dumped\))?\s*$|terminate called\b)/
/**
 * A line that starts a record of its own: a record's head (above), or a bare level word, an exception's name, `NCCL ` —
 * words a terminal's cut can also fall before (`…SYSTEM_` / `ERROR Worker exit`, `RuntimeError:` / `NCCL error`), so
 * they end a record only where no cut is known.
 */
const RECORD_START = new RegExp(
  `${RECORD_HEAD.source}|^\\s*(?:(?:INFO|WARNING|WARN|ERROR|DEBUG|CRITICAL|FATAL)\\b|[A-Z]\\w*(?:Error|Exception|Warning)\\b|NCCL )`,
)
/**
 * Messages a program prints over several lines, as `[head, continuation]`: a line after a record
 * matching `head` joins it while it matches `continuation`. Ray's version check prints
 * `Version mismatch: The cluster was started with:`, indented `Ray: x` / `Python: y` lines (also
 * `Ray location:`, `Cloudpickle:`, `Pyarrow:` in 0.x), then `This process on node <ip> was started with:`
 * and its own indented lines (python/ray/_private/utils.py `check_version_info`; services.py in 0.x).
 */
const BLOCKS: readonly (readonly [RegExp, RegExp])[] = [
  [/Version mismatch: The cluster was started with/i, /^\s+[A-Z][\w ]{1,30}: \S|^\s*This process on (?:Ray )?node \S+ was started with/i],
]
/**
 * A logger record re-wrapped by hand onto indented lines: the record has a level, its text stops
 * mid-sentence (a word or a comma), and the next line is indented and goes on in lower case
 * (`WARNING … is using /tmp instead` / `  of /dev/shm because …`).
 */
const SENTENCE_RECORD = /^\s*\S.{0,40}?\b(?:INFO|WARNING|WARN|ERROR|CRITICAL|FATAL)\b/
const SENTENCE_GOES_ON = /^\s{1,8}[a-z(]/
/**
 * A Python exception's message wrapped onto the next line by a paste or a page (`ValueError: Free memory … is less` /
 * `than desired GPU memory utilization …`): the message stops at a word and the next line goes on in lower case at the margin,
 * its second word in lower case too or an upper-case acronym (`… on startup is less than` / `desired GPU memory utilization (0.7, 85.18 GiB).`,
 * NVIDIA-AI-Blueprints/video-search-and-summarization PR #1743, noonghunna/club-3090#535: vLLM's request_memory wording cut before "desired").
 */
// (also an OSError's message without its class, `[Errno 13] Permission denied:` / `  '/usr/…/flashinfer'`: ai-dynamo/modelexpress PR #549)
const EXCEPTION_RECORD = /^\s*(?:(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception): \S|\[Errno \d+\] [A-Z])/
const EXCEPTION_GOES_ON = /^[a-z]{2,} (?:[a-z(]|[A-Z]{2,}\b)/
/**
 * The value an exception's message names, wrapped onto a line of its own after the colon that announces it
 * (`OSError: Repo id must be in the form 'repo_name' or 'namespace/repo_name':` / `'/root/.cache/…'`, kaito-project/kaito#2320;
 * `FileNotFoundError: No such file or directory:` / `"/models/x/config.json"`): a quoted value alone at the margin.
 */
const EXCEPTION_VALUE_FOLLOWS = /:\s*$/
const QUOTED_VALUE_LINE = /^\s{0,4}(['"`])[^'"`\s][^'"`]*\1[.,;]?(?:\s|$)/
/**
 * The message itself on a line of its own after the colon, a few plain words at the margin and nothing else (a C++ library's
 * `RuntimeError: Assertion error (deepgemm-src/csrc/apis/hyperconnection.hpp:56):` / `Unsupported architecture`, DeepGEMM's
 * DGException as a 2026 DGX Spark write-up quotes it): no quote, colon or bracket, so a traceback, a record or a frame never is one.
 */
const PLAIN_MESSAGE_LINE = /^[A-Z][a-z]+(?: [a-z][a-z-]*){1,7}(?:\.|: \/\S+)?\s*$/
/**
 * A path a page broke after one of its slashes (`Failed to open: /usr/local/lib/python3.12/dist-packages/vllm/third_party/deep_gemm/` /
 * `include/deep_gemm/impls/sm121_fp8_mqa_logits.cuh`, spark-arena/sparkrun#220 as quoted): the next line is a path's tail alone, so it goes
 * on with no blank.
 */
const PATH_CUT = /\/[\w.-]+\/$/
const PATH_TAIL_LINE = /^[\w.-]+(?:\/[\w.-]+)+$/
/**
 * A Python module path broken at a dot: the line ends in lower-case dotted names and a dot (`transformers.integrations.`), the next
 * goes on with another name of the path or the exception's class (`configuration_utils.`, `AmbiguousGlobalPerLayerAttributeError:`).
 * A sentence that ends on a module's name (`… see torch.distributed.` / `The …`) is not one: its next word is no class or path.
 */
const DOTTED_PATH_END = /(?:^|[\s(>:])(?:[a-z_][\w]*\.){2,}$/
const DOTTED_PATH_GOES_ON = /^(?:[a-z_]\w*\.[\w.]*|[A-Z]\w*(?:Error|Exception)(?::|\s*$))/

/**
 * A re-wrapped piece as it goes on the text before it: after a blank, the one the re-wrap took away; with none where it cut a dotted
 * module path at a dot (`transformers.integrations.heterogeneity.configuration_utils.` / `AmbiguousGlobalPerLayerAttributeError: …`, a
 * quote re-wrapped at 67 columns: tenstorrent/vllm-tt-plugin PR #106, held-out batch 67), so the exception's name is whole.
 */
const foldedPiece = (before: string, next: string): string => (DOTTED_PATH_END.test(before) && DOTTED_PATH_GOES_ON.test(next) ? next : ` ${next}`)

/** An indented line that carries on a request or a spec list printed on the line before. */
const CARRIES_ON = /^\s+(?:\{|\[|specs=|placement_group_specs=|current_node_resource=|current_ip=)/
/**
 * A comma-separated `key=value` record (the kernel's `oom-kill:constraint=…,task_memcg=…,task=…,pid=…`) that a page wrapped
 * after a comma onto an indented line going on with `key=value` (jethac/dgx-spark-hijinks' incident write-up, 2026).
 */
const KEY_VALUE_RECORD = /\b\w+=[^\s,]+,\s*$/
const KEY_VALUE_GOES_ON = /^\s+\w+=\S/
/**
 * A sentence a page re-wrapped between two words, whose blank went with the break (`… on startup is less` / `than desired …`):
 * a terminal keeps every character, so a cut between two words leaves the blank on one of the lines. Where the paste has one
 * longest line only and the next line starts with a whole word a sentence goes on with, that line is no terminal's cut
 * (detectWrapWidth), and the joins below read it with a blank.
 */
// (Only words that seldom end a longer word: not "on", "in", "is", "or", "and", "are", "at", "to", which a cut inside "utilization",
// "within", "analysis", "error", "command", "hardware", "format", "into" leaves at the next line's start.)
const SENTENCE_WORD_GOES_ON = /^(?:than|but|of|the|for|with|from|that|which|because|when|while|was|were|if)\s/
/** Never join more than this: a paste with a stray `{` must not swallow the rest of the log. */
const MAX_JOINED_LINES = 40
const MAX_JOINED_CHARS = 32 * 1024

/**
 * A log line pasted into prose as one markdown code span (`` `RuntimeError: CUDA unknown error` ``, `` > `Free memory on cuda:0 (…) …` ``):
 * the backticks are the page's, not the program's. Only a span with a space in it (a message, not a lone quoted value a line before
 * announced, which QUOTED_VALUE_LINE joins), and nothing after it: a sentence's last span wrapped onto a line of its own
 * (`` `ibv_modify_qp failed with 110 (Connection timed out)`. ``) stays as the prose has it.
 */
const CODE_SPAN_LINE = /^(\s*)`([^`\s][^`]*\s[^`]*[^`\s])`\s*$/
/**
 * A log line a reporter set in markdown bold to point at it (`[rank1]: **RuntimeError: world_size (8) is not equal to …**`,
 * modelscope/ms-swift#3739 as stored): the asterisks are the page's. Only a bold span that runs to the line's end and starts a word, read
 * on the logical line (its prefixes off, a wrap joined back).
 */
const BOLD_TO_END = /(^|\s)\*\*(?=\S)([^*\n]*?\S)\*\*\s*$/

/**
 * A markdown link a page or an editor made of a word that looks like a host name (`[net_ib.cc:101](http://net_ib.cc:101/)`,
 * `[10.1.3.201](http://10.1.3.201/)<33057>`: NVIDIA/nccl#1710's paste, where GitHub's autolinker took NCCL's `.cc` source
 * names and the peers' IPs for web addresses): only a link whose address is its own text (a scheme, an optional trailing
 * slash), so a real link (`[docs](https://docs.vllm.ai/…)`) and a log's own brackets stay as they are.
 */
const AUTOLINK = /\[([^\]\s()]+)\]\(https?:\/\/\1\/?\)/g

/**
 * What a web page's typesetting did to a log it shows (WordPress' wptexturize, Medium, Zhihu, CSDN, a forum's editor): quotes made
 * curly (`No module named ‘ray’`), `--` before a flag made a dash (`–tensor-parallel-size`, `—node-ip-address`), blanks made
 * non-breaking (a run of spaces copied from HTML), zero-width spaces and byte-order marks left in. No program here prints any of
 * them in a log line, so they are put back as typed. A dash is a flag's only at a word's start before a lower-case letter
 * (`10–20 s` and `foo — bar` stay).
 */
const TYPESET = /[\u2018\u2019\u201c\u201d\u00a0\u200b\u2060\ufeff\u2013\u2014]/
const TYPESET_QUOTE_1 = /[\u2018\u2019]/g
const TYPESET_QUOTE_2 = /[\u201c\u201d]/g
const TYPESET_INVISIBLE = /[\u200b\u2060\ufeff]/g
const TYPESET_FLAG_DASH = /(^|[\s=([,"'])[\u2013\u2014](?=[a-z][\w-])/g
const untypeset = (line: string): string =>
  line
    .replace(TYPESET_QUOTE_1, "'")
    .replace(TYPESET_QUOTE_2, '"')
    .replace(/\u00a0/g, ' ')
    .replace(TYPESET_INVISIBLE, '')
    .replace(TYPESET_FLAG_DASH, '$1--')

/** One physical line without its line ending, colour codes and quote markers. */
export function cleanPhysical(raw: string): string {
  const untyped = TYPESET.test(raw) ? untypeset(raw) : raw
  const uncoloured = untyped.replace(/\r$/, '').replace(ANSI, '')
  // (the left bar is a prefix, taken off with the others: a terminal's wrap is measured with it)
  const unboxed = BOX_LEFT.test(uncoloured) ? uncoloured.replace(BOX_RIGHT, '') : uncoloured
  const unquoted = (unboxed.includes('m') && unboxed.includes('[') ? stripBareSgr(unboxed) : unboxed).replace(QUOTE, '')
  const line = unquoted.includes('`') ? unquoted.replace(CODE_SPAN_LINE, '$1$2') : unquoted
  if (FENCE.test(line)) return ''
  return line.includes('&') ? line.replace(ENTITY, decodeEntity) : line
}

/**
 * Where a record starts inside a line whose breaks a page lost (a scraped blog, a forum that ran a pasted log into one paragraph,
 * CSDN's copy of a code block: `…[parallel_state.py:1165] rank 0 in world size 2INFO 12-01 10:00:02 [ray_utils.py:345] …`):
 * the heads that carry their own time or tag, so they cannot be a message's words — vLLM's `LEVEL MM-DD HH:MM:SS [file.py:N]`, SGLang's
 * `[YYYY-MM-DD HH:MM:SS`, Python logging's and Ray's `YYYY-MM-DD HH:MM:SS[,.]fff LEVEL`, glog's `I1201 10:00:00.123456 pid`,
 * NCCL's `host:pid:tid [dev] NCCL INFO`, a traceback's start (each head with the logger's `file:line` tag after it: vLLM logs a
 * traceback as `ERROR … [core.py:1197] Traceback (most recent call last):`, one line, its heads one after the other; torch as
 * `[rank0]: Traceback …`: a traceback after a tag's `]`, `:` or `|` starts no record) — each with the Ray/vLLM process prefix before it, if any — and that
 * prefix alone where it names the process or the node (`(RayWorkerWrapper pid=2214, ip=10.0.0.2) `, `(pid=2214, ip=10.0.0.2) `),
 * which Ray puts before every line a worker prints (a bare `(pid=4242)` is a message's words as often).
 */
const RUN_TOGETHER_HEAD =
  /(?:\((?:[A-Za-z_][\w-]*,? )?pid=\d+(?:, ip=[\d.a-fA-F:]+)?\) ?)?(?:(?:INFO|WARNING|ERROR|DEBUG|CRITICAL) \d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?(?: \[?[\w./-]+:\d+\])?|\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d[^\]\n]{0,40}\]|\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?\s+(?:INFO|WARNING|WARN|ERROR|DEBUG|CRITICAL|FATAL)(?=[\s:\]])(?:\s+[\w./-]+:\d+(?: --)?)?|[IWEF](?:\d{8}|\d{4}) \d\d:\d\d:\d\d\.\d{6}\s+\d+(?: [\w./-]+:\d+\])?|(?<![\]:|>]\s{0,3})Traceback \(most recent call last\):|(?<![\w.-])[\w.-]+:\d+:\d+ \[\d+\] NCCL (?:INFO|WARN))|(\((?:[A-Za-z_][\w-]*,? pid=\d+(?:, ip=[\d.a-fA-F:]+)?|pid=\d+, ip=[\d.a-fA-F:]+)\))(?= )/g
/** A line holds at least this many records' heads before it is read as several run together. */
const RUN_TOGETHER_MIN_HEADS = 2

/** A collector's time in brackets or not (`[2026-02-24T20:21:58Z]`, `2026-12-05T10:00:01.12Z`). */
const BARE_TIME = /^[[(]?\d{4}-\d\d-\d\d[T ][\d:.,]+(?:Z|[+-]\d\d:?\d\d)?[\])]?$/
/** Nothing but prefixes and times between two heads. */
const onlyPrefixes = (gap: string): boolean => gap === '' || BARE_TIME.test(gap) || stripPrefixes(`${gap} `).text.trim() === ''

/**
 * What every head above holds: a record's head a time, a traceback's start or NCCL's tag, a process prefix its pid. Fewer than two of
 * one kind, no split to look for (the common line: one prefix, one record head).
 */
const HEAD_MARK = /\d\d:\d\d:\d\d|Traceback \(| NCCL |pid=/g
const twoMarks = (line: string): boolean => {
  let records = 0
  let prefixes = 0
  for (const m of line.matchAll(HEAD_MARK)) {
    if (m[0] === 'pid=') prefixes++
    else records++
    if (records >= 2 || prefixes >= 2) return true
  }
  return false
}

/**
 * One line as the lines it was before a page ran them together: cut before every record head after the first, where the
 * line holds two or more. A program's own line holds one head at most (its own, at its start), so a log read from a file or a
 * terminal keeps every line whole.
 */
export function splitRunTogether(line: string): string[] {
  if (line.length < 40 || !twoMarks(line)) return [line]
  // Heads that follow one another with only blanks between are one record's (Ray's nested `(raylet, ip=…) (pid=…, ip=…)`). A
  // prefix alone and a record's head are counted apart: a collector's prefix before a line of another format (`(EngineCore_DP0
  // pid=1) | [2025-03-10T15:07:20Z] ERROR 03-10 …`) is one line with one head of each kind.
  const found = [...line.matchAll(RUN_TOGETHER_HEAD)].map((m) => ({ at: m.index, end: m.index + m[0].length, prefix: m[1] !== undefined }))
  const records = found.filter((h) => !h.prefix).length
  const prefixes = found.length - records
  const cuts: number[] = []
  let lastEnd = 0
  for (const h of found) {
    const many = (h.prefix ? prefixes : records) >= RUN_TOGETHER_MIN_HEADS
    // Only a collector's prefixes between two heads (`… pid=2231) [2026-02-24T20:21:58Z] (EngineCore_DP0 pid=6940) …`): one line.
    if (many && h.at > 0 && !onlyPrefixes(line.slice(lastEnd, h.at).trim())) cuts.push(h.at)
    lastEnd = h.end
  }
  if (cuts.length === 0) return [line]
  const out: string[] = []
  let from = 0
  for (const at of cuts) {
    const piece = line.slice(from, at).trimEnd()
    if (piece.trim() !== '') out.push(piece)
    from = at
  }
  out.push(line.slice(from))
  return out
}

/** `{`/`[` opened and not closed in a text (quotes ignored: prose apostrophes would mislead), after `depth` already open before it. */
function openBrackets(text: string, depth = 0): number {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 123 || c === 91)
      depth++ // { [
    else if ((c === 125 || c === 93) && depth > 0) depth-- // } ]
  }
  return depth
}

/** A physical line starts a record: it carries a prefix (a terminal's continuation never does) or a record's own start. */
const startsRecord = (clean: string): boolean => {
  const { text: body, tags = 0 } = stripPrefixes(clean)
  return body.length + tags !== clean.length || RECORD_START.test(body)
}

function stripPrefixes(text: string): { text: string; ip?: string; tags?: number } {
  let rest = text
  let ip: string | undefined
  let tags = 0
  for (let i = 0; i < MAX_PREFIXES; i++) {
    const tag = LAUNCHER_TAG.exec(rest)
    if (tag) {
      tags += tag[0].length
      rest = rest.slice(tag[0].length)
      continue
    }
    const m = PREFIX.exec(rest)
    if (!m || m[0].length === 0) break
    const found = m[0].includes('ip=') ? PREFIX_IP.exec(m[0]) : null
    if (found) ip = found[1]
    rest = rest.slice(m[0].length)
  }
  return { text: rest, ...(ip !== undefined ? { ip } : {}), ...(tags > 0 ? { tags } : {}) }
}

/** Where a column starts after a gap of two blanks or more: a table's rows (`kubectl get pods`, `df -h`, a timeline) share them. */
const columnStarts = (line: string): Set<number> => new Set(Array.from(line.matchAll(/\S {2,}(?=\S)/g), (m) => m.index + m[0].length))
const sharesColumns = (line: string, next: string): boolean => {
  if (!line.includes('  ') || !next.includes('  ')) return false
  const theirs = columnStarts(next)
  let shared = 0
  for (const at of columnStarts(line)) if (theirs.has(at) && ++shared >= 3) return true
  return false
}

/**
 * Where one record ended and the next began, not where a terminal cut. A terminal's cut falls inside a token or beside a blank; over
 * every capture's terminal-wrapped forms (80, 120, 160 columns, compose + 120: 18,856 cuts) none of these seams occurs once:
 *
 * - a closing bracket run into a word (`… MiB ( 0 %)` / `low memory! …`, earlyoom; `… [repeated 2x across cluster]` / `Worker …`);
 * - a number run into a capitalised word that opens a sentence (`…:8266` / `Ray runtime started.`), a sentence's end into the next
 *   (`… on startup.` / `Desired GPU memory …`);
 * - a rule run into a word (`======== Autoscaler status: … ========` / `GCS request time: …`, `-----` / `Healthy:`: `ray status`);
 * - a line, not ending in a blank, before a section's head alone on its line (`Idle:`, `Pending:`, `Total Usage:`: `ray status`);
 * - a table's border or row before the next (`+-----+` / `| GPU  Name …|`: nvidia-smi), rows that share three columns or more
 *   (`kubectl get pods`, `df -h`).
 */
const seamBetweenRecords = (line: string, next: string): boolean =>
  (/[)\]}]$/.test(line) && /^[A-Za-z]/.test(next)) ||
  (/\d$/.test(line) && /^[A-Z][a-z]+ [a-z]/.test(next)) ||
  (/[.!?]$/.test(line) && /^[A-Z][a-z]+ /.test(next)) ||
  (/([=\-_*#~])\1\1$/.test(line) && /^[A-Za-z]/.test(next)) ||
  (/\S$/.test(line) && /^[A-Z][a-z]+(?: [A-Za-z]+){0,3}:\s*$/.test(next)) ||
  (/[|+]$/.test(line) && /^[|+]/.test(next)) ||
  sharesColumns(line, next)

/** A cut inside a lower-case word or a number: the two pieces run on as one token. */
const insideToken = (line: string, next: string): boolean => (/[a-z]$/.test(line) && /^[a-z]/.test(next)) || (/\d$/.test(line) && /^\d/.test(next))

/**
 * A record's first columns with its numbers (hex ids too) as one shape: `mem avail:  9642 of …` and `mem avail:  6815 of …` start alike,
 * and ` 1 node_1334…` and ` 1 node_a4e8…` (`ray status`).
 */
const shapeOf = (start: string): string => start.slice(0, 16).replace(/[\da-f]*\d[\da-f]*/g, '0')
/**
 * The next line starts like `line` (the same words, other numbers: earlyoom's `mem avail:` lines, NVRM's `[81033.19] NVRM: …`, `frame #4:`
 * / `frame #5:`): the next record of a run printed in one format, never a cut's remainder. The start must hold a word (a cut inside a list of
 * numbers, `…, 232, 24` / `0, 248, 256, …`, leaves two pieces of one shape).
 */
const sameRun = (line: string, next: string): boolean => line.length >= 12 && /[A-Za-z]/.test(line.slice(0, 16)) && shapeOf(next) === shapeOf(line)
/** The same, or the very same start (blanks of a layout included). */
const sameShape = (line: string, next: string): boolean => (line.length >= 12 && next.slice(0, 16) === line.slice(0, 16)) || sameRun(line, next)

/** Widths terminals and issue trackers commonly cut at: one longest line of such a width counts as a cut. */
const COMMON_WIDTHS = new Set([60, 64, 72, 76, 78, 79, 80, 90, 96, 100, 110, 120, 128, 130, 132, 140, 150, 160, 180, 200, 220, 240, 250])

/**
 * The width a paste was cut at, if it was: the longest cleaned line length when at least two lines
 * have exactly that length (a log rarely has two longest lines by chance), or when one line has it
 * and it is a common terminal width; wide enough either way.
 */
export function detectWrapWidth(lines: readonly string[]): number | undefined {
  // A longest line followed by the same message again is a whole record (a cut line is followed by its remainder, never by
  // its own start): two workers loading the same kernel print `[aiter] LoadKernel: … .co` twice (vllm-project/vllm#43605), and
  // every copy of that line is a record, not a terminal's cut at its length.
  const whole = new Set<string>()
  lines.forEach((l, i) => {
    const next = lines[i + 1]
    if (next !== undefined && sameShape(l, next)) whole.add(l)
  })
  let max = 0
  let count = 0
  for (const l of lines) {
    if (whole.has(l)) continue
    if (l.length > max) {
      max = l.length
      count = 1
    } else if (l.length === max) count++
  }
  if (max < 40) return undefined
  if (count >= 2) {
    // Two longest lines each followed by a record of its own (a retry printed twice) or by the same message again are
    // records, not a cut; longest lines that all end in blanks or in a right-aligned column (rich's console log puts
    // `file.py:108` at the right edge) were laid out to a width, not cut.
    const cutAt = (l: string, i: number): boolean => {
      const next = lines[i + 1] ?? ''
      // A terminal's continuation starts where the cut fell; one that starts indented was re-wrapped by hand.
      return l.length === max && next !== '' && !/^\s{2}/.test(next) && !startsRecord(next) && !seamBetweenRecords(l, next) && !sameShape(l, next)
    }
    // A longest line that ends a record where the next starts (a seam no cut leaves, the next record of its run) is a record as wide
    // as the longest: fixed-width records (earlyoom's `mem avail:` lines, a table's rows) put several at one width by design, and a
    // line between them that is as wide (earlyoom's `killing process … VmRSS 7609 MiB`) is no cut either. A cut needs more lines that
    // read as cuts than lines of its width that read as records. (Not a record head after the line: a line whose length is a multiple
    // of the width leaves a piece of exactly the width before the next record, `…device.cc:88] … for: eth0` / `Aborted`.)
    // (Nor a line of the width after a cut: a record whose length is a multiple of the width ends a piece where its next begins.)
    const recordAt = (l: string, i: number): boolean => {
      const next = lines[i + 1] ?? ''
      return l.length === max && next !== '' && (seamBetweenRecords(l, next) || sameRun(l, next)) && !(i > 0 && cutAt(lines[i - 1]!, i - 1))
    }
    // (One blank at the end is where a cut fell after a word as often as padding: a layout pads with a run of blanks, or
    // every line of the width ends in one while its next line starts a record of its own.)
    const padded = lines.every((l, i) => l.length !== max || /\s{2,}$|\S {6,}\S+$/.test(l) || (/\s$/.test(l) && startsRecord(lines[i + 1] ?? '')))
    // A cut inside a word or a number (`…MetadataInco` / `mpleteBuffer`) weighs as two: it outweighs one line of the width that is a
    // whole record (a pasted title line exactly as wide), where a cut beside a capital or a unit (`…VmRSS 7609 MiB` / `process 27541
    // exited …`) does not.
    let score = 0
    lines.forEach((l, i) => {
      if (cutAt(l, i)) score += insideToken(l, lines[i + 1]!) ? 2 : 1
      else if (recordAt(l, i)) score--
    })
    return !padded && score > 0 ? max : undefined
  }
  // One longest line: a cut only at a common width, inside a word, a number or an address (`127.` / `0.0.1]`, `28` / `, kind`),
  // or at one blank (the next line carries the rest).
  const i = lines.findIndex((l) => l.length === max && !whole.has(l))
  const line = lines[i]!
  const next = lines[i + 1] ?? ''
  // (Not between a word and a whole word a sentence goes on with: with one longest line to go by, that is a page's re-wrap whose blank went
  // with the break more likely than a terminal's cut inside a word.)
  const cut =
    (/\w$/.test(line) && /^[\w,.:;)\]}/-]/.test(next) && !SENTENCE_WORD_GOES_ON.test(next)) ||
    (/[.:/-]$/.test(line) && /^[a-z\d]/.test(next)) ||
    // an opening bracket a re-wrap between words would never end a line on (`NumCudaDevices(` / `) that …`)
    (/[([{]$/.test(line) && /^\S/.test(next)) ||
    / $/.test(line) ||
    /^ \S/.test(next)
  // A terminal ends the record where its continuation ends; a continuation that itself stops mid-sentence and goes on in the
  // next line was wrapped by hand (a PR body or an e-mail at 72 columns), its cuts between words: no terminal wrap.
  const after = lines[i + 2]
  const byHand = after !== undefined && /[\w,]$/.test(next) && /^[a-z0-9(]/.test(after) && !startsRecord(after)
  return COMMON_WIDTHS.has(max) && cut && !byHand && !startsRecord(next) && !seamBetweenRecords(line, next) ? max : undefined
}

/**
 * A row of a column-aligned table (`kubectl get pods`, `docker ps`, `ray list nodes`: tabwriter pads its columns with three
 * spaces or more): two gaps of three spaces or more inside the line. Every row is about as wide as the next and starts with a
 * long first field, so rows look like a re-wrap's lines that broke where a word would not fit; a re-wrap between words never
 * leaves such gaps, so a table's rows are never read as one.
 */
const COLUMN_GAPS = / {3,}(?=\S)/g
const tableRow = (line: string): boolean => (line.trim().match(COLUMN_GAPS)?.length ?? 0) >= 2

/**
 * A page's marker before a program's output that it shows as shell comments inside a command block, so the block stays a
 * runnable script (Ray's and KubeRay's documentation: `kubectl logs $POD` / `# [Example output]` / `# 2023-07-11T02:14:58.109Z
 * INFO controllers.RayService Restart RayCluster …`; also `# Example output:`, `# Expected output:`, `# Output:`). The lines
 * after it that start with `#` are that output; the first other non-empty line (the next command) ends it.
 */
const COMMENTED_OUTPUT = /^\s*#\s*\[?(?:(?:example|sample|expected)\s+)?output\]?:?(?:\s*\([^)\n]*\))?:?\s*$/i

/** The first word of a line (what a greedy re-wrap would have tried to fit on the line before). */
const firstWord = (line: string): number => {
  const sp = line.indexOf(' ')
  return sp < 0 ? line.length : sp
}

/**
 * The width a paste was re-wrapped at between words (by a person, a mail client, `fmt`, a page), if it was. A greedy
 * re-wrap breaks a line only where the next word would not fit: line + blank + the next line's first word is wider than
 * the width. The width is the longest line of at most 200 columns (a word longer than the width stays whole); the paste
 * was re-wrapped when at least two lines, and most lines that a line not starting a record (nor starting like the line
 * before) follows, break that way.
 */
export function detectFoldWidth(lines: readonly string[]): number | undefined {
  const { width, folds, pairs } = foldEvidence(lines)
  return folds >= 2 && folds * 2 > pairs ? width : undefined
}

/** Line pairs that could be a re-wrap's (`pairs`), those that break where a word would not fit (`folds`), and of those the ones shorter than the width (`short`: a terminal never breaks there). */
function foldEvidence(lines: readonly string[]): { width: number; folds: number; pairs: number; short: number } {
  let width = 0
  for (const l of lines) if (l.length <= 200 && l.length > width) width = l.length
  let pairs = 0
  let folds = 0
  let short = 0
  if (width < 40) return { width, folds, pairs, short }
  for (let i = 0; i + 1 < lines.length; i++) {
    const line = lines[i]!
    const next = lines[i + 1]!
    // A line that starts like the one before is the next of a run of records (`[0] node0:… NCCL INFO Channel …`).
    if (line.length > width || line.trim() === '' || !/^\S/.test(next) || startsRecord(next) || next.slice(0, 4) === line.slice(0, 4)) continue
    if (tableRow(next) || tableRow(line)) continue
    pairs++
    if (line.length + 1 + firstWord(next) <= width) continue
    folds++
    if (line.length < width) short++
  }
  return { width, folds, pairs, short }
}

/**
 * How a whole paste was broken: cut by a terminal at a width (`wrapWidth`) or re-wrapped between words (`foldWidth`),
 * or neither. Both can look alike (after a cut, too, the next line's first piece would not have fitted); but a terminal
 * breaks only lines of exactly its width, so a paste that breaks more shorter lines where the next word would not fit
 * (two at least) than it has lines of the width was re-wrapped, and the line that a word filled to a common width was
 * no cut.
 */
export function detectPasteWidths(lines: readonly string[]): { wrapWidth?: number; foldWidth?: number } {
  const wrap = detectWrapWidth(lines)
  const fold = detectFoldWidth(lines)
  if (fold === undefined) return wrap === undefined ? {} : { wrapWidth: wrap }
  if (wrap === undefined) return { foldWidth: fold }
  const { short } = foldEvidence(lines)
  if (short >= 2 && short > lines.filter((l) => l.length === wrap).length) return { foldWidth: fold }
  return wrap === undefined ? {} : { wrapWidth: wrap }
}

export interface LineJoinerOptions {
  /** Physical lines of exactly this length continue on the next line (terminal wrap). */
  readonly wrapWidth?: number
  /** Lines were re-wrapped between words at this width: a line goes on where the next one's first word would not have fit. */
  readonly foldWidth?: number
}

export interface LineJoiner {
  /** One physical line (without its newline); returns the logical lines it completed. */
  push(raw: string): LogicalLine[]
  /** The text has ended. */
  end(): LogicalLine[]
  /** The logical line still open to continuation, as it stands (null when none). */
  peek(): LogicalLine | null
}

interface Pending {
  /** The first physical line's start: a next line that starts the same way is a new record. */
  start: string
  text: string
  line: number
  physical: number
  ip?: string
  lastLength: number
  /** openBrackets(text), kept as lines are added (a join reads it for every next line). */
  depth: number
}

/** How a physical line goes on the pending record: a terminal's wrap (no blank), a join (a blank), or not at all (a new record). */
function continues(opts: LineJoinerOptions, p: Pending, clean: string, stripped: { text: string; tags?: number }): 'wrap' | 'join' | false {
  if (p.physical >= MAX_JOINED_LINES || p.text.length >= MAX_JOINED_CHARS) return false
  const body = stripped.text
  // The same message again (a repeated log line of the same length) is a new record, not a wrap.
  if (p.start.length >= 12 && body.startsWith(p.start)) return false
  const prefixed = body.length + (stripped.tags ?? 0) !== clean.length
  if (
    opts.wrapWidth !== undefined &&
    p.lastLength === opts.wrapWidth &&
    clean.length > 0 &&
    !prefixed &&
    !RECORD_HEAD.test(body) &&
    // a record exactly as wide as the cut, followed by a record of its own (the seam read on the last line's columns only)
    !seamBetweenRecords(p.text.slice(-opts.wrapWidth), clean) &&
    !(p.physical === 1 && sameShape(p.text, body))
  )
    return 'wrap'
  const fold = opts.foldWidth
  if (
    fold !== undefined &&
    p.lastLength <= fold &&
    /^\S/.test(clean) &&
    !prefixed &&
    !RECORD_HEAD.test(body) &&
    p.lastLength + 1 + firstWord(clean) > fold &&
    !tableRow(clean)
  )
    return 'join'
  if (p.depth > 0 && body.trim() !== '' && !RECORD_START.test(body)) return 'join'
  // (each test of the next line, anchored at its start, before the pending text's: a record's tail is read only where the line could go on it)
  if (CARRIES_ON.test(body) || (KEY_VALUE_GOES_ON.test(body) && KEY_VALUE_RECORD.test(p.text))) return 'join'
  if (BLOCKS.some(([head, next]) => next.test(body) && head.test(p.text))) return 'join'
  const last = p.text.charAt(p.text.length - 1)
  if (SENTENCE_GOES_ON.test(body) && /[\w,]/.test(last) && SENTENCE_RECORD.test(p.text)) return 'join'
  if (last === '/' && !prefixed && PATH_TAIL_LINE.test(body) && PATH_CUT.test(p.text)) return 'wrap'
  if (p.physical !== 1) return false
  if (EXCEPTION_GOES_ON.test(body) && /\w/.test(last) && EXCEPTION_RECORD.test(p.text)) return 'join'
  if ((QUOTED_VALUE_LINE.test(body) || PLAIN_MESSAGE_LINE.test(body)) && EXCEPTION_VALUE_FOLLOWS.test(p.text) && EXCEPTION_RECORD.test(p.text)) return 'join'
  return false
}

/** Reads a page's output block shown as shell comments (COMMENTED_OUTPUT): its lines without their `# `, every other line as it is. */
function createUncommenter(): (raw: string) => string {
  let inBlock = false
  return (raw) => {
    if (COMMENTED_OUTPUT.test(raw)) {
      inBlock = true
      return ''
    }
    if (inBlock && /^\s*#(?: |$)/.test(raw)) return raw.replace(/^\s*# ?/, '')
    if (raw.trim() !== '') inBlock = false
    return raw
  }
}

export function createLineJoiner(opts: LineJoinerOptions = {}): LineJoiner {
  let lineNo = 0
  let cur: Pending | null = null

  // Autolinks are undone on the joined text, not on each physical line: the widths a wrap is detected by are the page's.
  const logical = (p: Pending, joined: string, ip: string | undefined, repeated: number | undefined): LogicalLine => {
    const linked = joined.includes('](http') ? joined.replace(AUTOLINK, '$1') : joined
    const text = linked.includes('**') ? linked.replace(BOLD_TO_END, '$1$2') : linked
    return {
      text,
      line: p.line,
      physicalLines: p.physical,
      ...(repeated !== undefined ? { repeated } : {}),
      ...(ip !== undefined ? { prefixIp: ip } : {}),
      // A line ending in a colon announces more (`…started with:`, `Traceback …:`): a live watcher waits for it. (The record's depth,
      // kept as its lines were added, where the text is the record's own.)
      open: (text === p.text ? p.depth : openBrackets(text)) > 0 || /:\s*$/.test(text),
    }
  }

  /**
   * The logical line(s) of a pending record: a structured record (structured-record.ts: docker's json-file, journald,
   * Loki, Cloud Logging, zap/klog, logfmt), read once a wrapped paste is joined back, gives the lines its message
   * printed, each with its own prefixes taken off, all on the record's line number.
   */
  const emit = (p: Pending): LogicalLine[] => {
    // Records a page ran together, once a terminal's wrap of them is joined back: each read as the line it was.
    const pieces = splitRunTogether(p.text)
    if (pieces.length > 1)
      return pieces.flatMap((piece, i) => {
        const inner = i === 0 ? { text: piece } : stripPrefixes(piece)
        return emitText({ ...p, ...inner, depth: openBrackets(inner.text) })
      })
    return emitText(p)
  }
  const emitText = (p: Pending): LogicalLine[] => {
    const rep = p.text.includes('[repeated ') ? REPEATED.exec(p.text) : null
    const text = rep ? p.text.slice(0, rep.index) : p.text
    const repeated = rep ? Number(rep[1]) : undefined
    const parts = text.includes('{') || text.includes('=') ? unwrapRecord(text) : undefined
    if (parts === undefined) return [logical(p, text, p.ip, repeated)]
    return parts.map((part) => {
      const inner = stripPrefixes(cleanPhysical(part))
      return logical(p, inner.text, inner.ip ?? p.ip, repeated)
    })
  }

  const uncomment = createUncommenter()

  return {
    push(physicalLine: string): LogicalLine[] {
      lineNo++
      const raw = uncomment(physicalLine)
      const clean = cleanPhysical(raw)
      const stripped = stripPrefixes(clean)
      if (cur) {
        const how = continues(opts, cur, clean, stripped)
        if (how === 'wrap') {
          cur.text += clean
          cur.depth = openBrackets(clean, cur.depth)
          cur.physical++
          cur.lastLength = clean.length
          return []
        }
        if (how === 'join') {
          const added = foldedPiece(cur.text, stripped.text.trim())
          cur.text += added
          cur.depth = openBrackets(added, cur.depth)
          cur.physical++
          cur.lastLength = clean.length
          return []
        }
      }
      const done = cur ? emit(cur) : []
      const { text, ip } = stripped
      cur = {
        start: text.slice(0, 16),
        text,
        line: lineNo,
        physical: 1,
        lastLength: clean.length,
        depth: openBrackets(text),
        ...(ip !== undefined ? { ip } : {}),
      }
      return done
    },
    end(): LogicalLine[] {
      const done = cur ? emit(cur) : []
      cur = null
      return done
    },
    peek(): LogicalLine | null {
      if (!cur) return null
      // Records a page ran together are judged once the line is whole, in their order (never the last one early).
      return splitRunTogether(cur.text).length > 1 ? null : (emitText(cur).at(-1) ?? null)
    },
  }
}
