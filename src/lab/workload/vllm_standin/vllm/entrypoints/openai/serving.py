"""OpenAI-compatible request handling: validation, engine requests, responses.

Shapes follow vLLM's protocol classes (ErrorResponse/ErrorInfo, ModelCard,
CompletionResponse, ChatCompletionResponse and their stream chunks).
Everything here is plain data in, plain data out; the HTTP layer lives in
api_server.py.
"""

from __future__ import annotations

import json
import queue
import time
import uuid
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any, Iterator

from vllm.config import VllmConfig
from vllm.standin import act_as, toy_model
from vllm.v1.engine.core import EngineCore, EngineDeadError, Request, SamplingParams

MAX_N = 16


class RequestError(Exception):
    """A client error that becomes an ErrorResponse."""

    def __init__(self, message: str, status: HTTPStatus = HTTPStatus.BAD_REQUEST, err_type: str = "BadRequestError", param: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.err_type = err_type
        self.param = param


def error_body(message: str, err_type: str, status: HTTPStatus, param: str | None = None) -> dict:
    return {"error": {"message": message, "type": err_type, "param": param, "code": int(status)}}


def random_uuid() -> str:
    return uuid.uuid4().hex


def models_body(vllm_config: VllmConfig) -> dict:
    model_config = vllm_config.model_config
    created = int(time.time())
    return {
        "object": "list",
        "data": [
            {
                "id": name,
                "object": "model",
                "created": created,
                "owned_by": "vllm",
                "root": model_config.model,
                "parent": None,
                "max_model_len": model_config.max_model_len,
                "permission": [
                    {
                        "id": f"modelperm-{random_uuid()}",
                        "object": "model_permission",
                        "created": created,
                        "allow_create_engine": False,
                        "allow_sampling": True,
                        "allow_logprobs": True,
                        "allow_search_indices": False,
                        "allow_view": True,
                        "allow_fine_tuning": False,
                        "organization": "*",
                        "group": None,
                        "is_blocking": False,
                    }
                ],
            }
            for name in model_config.served_model_names
        ],
    }


# --- request parsing ---------------------------------------------------------


def _get_int(body: dict, key: str, default: int | None, minimum: int | None = None) -> int | None:
    value = body.get(key, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise RequestError(f"{key} must be an integer, got {value!r}.", param=key)
    if minimum is not None and value < minimum:
        raise RequestError(f"{key} must be at least {minimum}, got {value}.", param=key)
    return value


def _get_float(body: dict, key: str, default: float) -> float:
    value = body.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise RequestError(f"{key} must be a number, got {value!r}.", param=key)
    return float(value)


def _stop_list(body: dict) -> list[str]:
    stop = body.get("stop")
    if stop is None:
        return []
    if isinstance(stop, str):
        return [stop] if stop else []
    if isinstance(stop, list) and all(isinstance(s, str) for s in stop):
        return [s for s in stop if s]
    raise RequestError("stop must be a string or a list of strings.", param="stop")


@dataclass
class ParsedRequest:
    kind: str  # "completion" | "chat"
    model: str
    prompts: list[tuple[str, list[int]]]  # (prompt text for echo, token ids)
    n: int
    stream: bool
    include_usage: bool
    echo: bool
    params_by_prompt: list[SamplingParams]


def parse_request(kind: str, raw: bytes, vllm_config: VllmConfig) -> ParsedRequest:
    try:
        body = json.loads(raw or b"null")
    except json.JSONDecodeError as e:
        raise RequestError(f"JSON decode error: {e.msg} (line {e.lineno}, column {e.colno})") from None
    if not isinstance(body, dict):
        raise RequestError("The request body must be a JSON object.")

    model_config = vllm_config.model_config
    model = body.get("model")
    if model is None:
        model = model_config.served_model_name
    elif not isinstance(model, str) or model not in model_config.served_model_names:
        raise RequestError(
            f"The model `{model}` does not exist.", HTTPStatus.NOT_FOUND, "NotFoundError", param="model"
        )

    if kind == "completion":
        prompts = _completion_prompts(body)
        max_tokens = _get_int(body, "max_tokens", 16, minimum=1)
    else:
        prompts = [_chat_prompt(body)]
        max_tokens = _get_int(body, "max_completion_tokens", None, minimum=1)
        if max_tokens is None:
            max_tokens = _get_int(body, "max_tokens", None, minimum=1)

    temperature = _get_float(body, "temperature", 1.0)
    if temperature < 0:
        raise RequestError(f"temperature must be non-negative, got {temperature}.", param="temperature")
    n = _get_int(body, "n", 1, minimum=1) or 1
    if n > MAX_N:
        raise RequestError(f"n must be at most {MAX_N}, got {n}.", param="n")
    seed = _get_int(body, "seed", None)
    min_tokens = _get_int(body, "min_tokens", 0, minimum=0) or 0
    stream = bool(body.get("stream", False))
    stream_options = body.get("stream_options") or {}
    if not isinstance(stream_options, dict):
        raise RequestError("stream_options must be an object.", param="stream_options")
    stop = _stop_list(body)

    max_len = model_config.max_model_len
    params_by_prompt = []
    for _, ids in prompts:
        if len(ids) >= max_len:
            raise RequestError(
                f"This model's maximum context length is {max_len} tokens. However, your request has "
                f"{len(ids)} input tokens. Please reduce the length of the input messages.",
                param="messages" if kind == "chat" else "prompt",
            )
        wanted = max_tokens if max_tokens is not None else max_len - len(ids)
        if len(ids) + wanted > max_len:
            raise RequestError(
                f"'max_tokens' or 'max_completion_tokens' is too large: {wanted}. This model's maximum "
                f"context length is {max_len} tokens and your request has {len(ids)} input tokens "
                f"({wanted} > {max_len} - {len(ids)}).",
                param="max_tokens",
            )
        params_by_prompt.append(
            SamplingParams(
                max_tokens=wanted,
                min_tokens=min(min_tokens, wanted),
                temperature=temperature,
                seed=seed,
                stop=stop,
                ignore_eos=bool(body.get("ignore_eos", False)),
            )
        )
    return ParsedRequest(
        kind=kind,
        model=model,
        prompts=prompts,
        n=n,
        stream=stream,
        include_usage=bool(stream_options.get("include_usage", False)),
        echo=bool(body.get("echo", False)) and kind == "completion",
        params_by_prompt=params_by_prompt,
    )


def _completion_prompts(body: dict) -> list[tuple[str, list[int]]]:
    if "prompt" not in body or body["prompt"] is None:
        raise RequestError("Field required: prompt", param="prompt")
    prompt = body["prompt"]
    if isinstance(prompt, str):
        return [(prompt, toy_model.tokenize(prompt))]
    if isinstance(prompt, list) and prompt:
        if all(isinstance(p, str) for p in prompt):
            return [(p, toy_model.tokenize(p)) for p in prompt]
        if all(isinstance(t, int) and not isinstance(t, bool) for t in prompt):
            return [(_ids_text(prompt), list(prompt))]
        if all(isinstance(p, list) and p and all(isinstance(t, int) for t in p) for p in prompt):
            return [(_ids_text(p), list(p)) for p in prompt]
    raise RequestError("prompt must be a string, a list of strings or a list of token ids.", param="prompt")


def _ids_text(ids: list[int]) -> str:
    return "".join(toy_model.token_text(i % toy_model.VOCAB_SIZE) for i in ids).lstrip()


def _chat_prompt(body: dict) -> tuple[str, list[int]]:
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise RequestError("Field required: messages (a non-empty list)", param="messages")
    for m in messages:
        if not isinstance(m, dict) or not isinstance(m.get("role"), str):
            raise RequestError("Each message must be an object with a string 'role'.", param="messages")
    text = toy_model.apply_chat_template(messages)
    return text, toy_model.tokenize(text)


# --- running a request ---------------------------------------------------------


class ChoiceState:
    def __init__(self, index: int, prompt_text: str, prompt_len: int) -> None:
        self.index = index
        self.prompt_text = prompt_text
        self.prompt_len = prompt_len
        self.text = ""
        self.tokens = 0
        self.finish_reason: str | None = None
        self.stop_reason: str | None = None


def submit(engine: EngineCore, parsed: ParsedRequest) -> tuple["queue.Queue[tuple]", list[ChoiceState], list[Request]]:
    """Queue one engine request per (prompt, n). Events are tagged with the choice index."""
    events: "queue.Queue[tuple]" = queue.Queue()
    choices: list[ChoiceState] = []
    requests: list[Request] = []
    for p_idx, ((prompt_text, ids), params) in enumerate(zip(parsed.prompts, parsed.params_by_prompt)):
        for j in range(parsed.n):
            index = p_idx * parsed.n + j
            choices.append(ChoiceState(index, prompt_text, len(ids)))
            sub_params = SamplingParams(**vars(params))
            if sub_params.seed is not None:
                sub_params.seed += j
            requests.append(Request(random_uuid(), ids, sub_params, _TaggedQueue(events, index), index=index))
    for request in requests:
        engine.add_request(request)
    return events, choices, requests


class _TaggedQueue:
    """Looks like a queue to the engine; puts (index, event) into a shared one."""

    def __init__(self, shared: "queue.Queue[tuple]", index: int) -> None:
        self._shared = shared
        self._index = index

    def put(self, event: tuple) -> None:
        self._shared.put((self._index, event))


def iterate_events(events: "queue.Queue[tuple]", choices: list[ChoiceState]) -> Iterator[tuple[ChoiceState, str, tuple]]:
    """Yield (choice, kind, event) until every choice finished; raise on engine death."""
    pending = len(choices)
    while pending:
        index, event = events.get()
        choice = choices[index]
        kind = event[0]
        if kind == "error":
            raise event[1] if isinstance(event[1], BaseException) else EngineDeadError()
        if kind == "delta":
            choice.text += event[1]
            choice.tokens += 1
        elif kind == "finish":
            choice.finish_reason, choice.stop_reason = event[1], event[2]
            choice.tokens = event[3]  # includes the EOS token, as vLLM counts it
            pending -= 1
        yield choice, kind, event


def usage_body(choices: list[ChoiceState], parsed: ParsedRequest) -> dict:
    prompt_tokens = sum(len(ids) for _, ids in parsed.prompts)
    completion_tokens = sum(c.tokens for c in choices)
    return {
        "prompt_tokens": prompt_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
        "completion_tokens": completion_tokens,
        "prompt_tokens_details": None,
    }


def _chat_text(text: str) -> str:
    return text.lstrip(" ")


def full_response(parsed: ParsedRequest, request_id: str, created: int, choices: list[ChoiceState]) -> dict:
    if parsed.kind == "completion":
        return {
            "id": request_id,
            "object": "text_completion",
            "created": created,
            "model": parsed.model,
            "choices": [
                {
                    "index": c.index,
                    "text": (c.prompt_text if parsed.echo else "") + c.text,
                    "logprobs": None,
                    "finish_reason": c.finish_reason,
                    "stop_reason": c.stop_reason,
                    "prompt_logprobs": None,
                }
                for c in choices
            ],
            "usage": usage_body(choices, parsed),
        }
    return {
        "id": request_id,
        "object": "chat.completion",
        "created": created,
        "model": parsed.model,
        "choices": [
            {
                "index": c.index,
                "message": {
                    "role": "assistant",
                    "content": _chat_text(c.text),
                    act_as.release().chat_reasoning_field: None,
                    **({} if act_as.release().chat_drops_empty_tool_calls else {"tool_calls": []}),
                },
                "logprobs": None,
                "finish_reason": c.finish_reason,
                "stop_reason": c.stop_reason,
            }
            for c in choices
        ],
        "usage": usage_body(choices, parsed),
        "prompt_logprobs": None,
    }


def stream_chunks(parsed: ParsedRequest, request_id: str, created: int, events, choices: list[ChoiceState]) -> Iterator[dict]:
    """The SSE payloads of a streamed response (without the final [DONE])."""
    chat = parsed.kind == "chat"
    obj = "chat.completion.chunk" if chat else "text_completion"

    def chunk(choice_list: list[dict]) -> dict:
        return {"id": request_id, "object": obj, "created": created, "model": parsed.model, "choices": choice_list}

    if chat:
        for c in choices:
            yield chunk([{"index": c.index, "delta": {"role": "assistant", "content": ""}, "logprobs": None, "finish_reason": None}])
    elif parsed.echo:
        for c in choices:
            yield chunk([{"index": c.index, "text": c.prompt_text, "logprobs": None, "finish_reason": None, "stop_reason": None}])

    for choice, kind, event in iterate_events(events, choices):
        if kind == "delta":
            delta_text = event[1]
            if chat:
                if choice.tokens == 1:
                    delta_text = _chat_text(delta_text)
                yield chunk([{"index": choice.index, "delta": {"content": delta_text}, "logprobs": None, "finish_reason": None}])
            else:
                yield chunk([{"index": choice.index, "text": delta_text, "logprobs": None, "finish_reason": None, "stop_reason": None}])
        elif kind == "finish":
            if chat:
                yield chunk([{"index": choice.index, "delta": {}, "logprobs": None, "finish_reason": choice.finish_reason, "stop_reason": choice.stop_reason}])
            else:
                yield chunk([{"index": choice.index, "text": "", "logprobs": None, "finish_reason": choice.finish_reason, "stop_reason": choice.stop_reason}])
    if parsed.include_usage:
        # vLLM dumps the usage chunk with exclude_none=True (chat and completion serving.py, 0.19.1 to 0.34.0):
        # no "prompt_tokens_details": null there, unlike a whole response's usage.
        final = chunk([])
        final["usage"] = {k: v for k, v in usage_body(choices, parsed).items() if v is not None}
        yield final


def new_ids(parsed: ParsedRequest) -> tuple[str, int]:
    prefix = "chatcmpl" if parsed.kind == "chat" else "cmpl"
    return f"{prefix}-{random_uuid()}", int(time.time())


def collect(events, choices: list[ChoiceState]) -> None:
    for _ in iterate_events(events, choices):
        pass


def server_error_body(error: BaseException) -> dict:
    return error_body(str(error), "InternalServerError", HTTPStatus.INTERNAL_SERVER_ERROR)


def as_json(data: Any) -> bytes:
    return json.dumps(data, separators=(",", ":")).encode()
