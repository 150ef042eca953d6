"""The stand-in's "model": a word tokenizer and a vocabulary sharded by rank.

Nothing is downloaded. The vocabulary is the word list below. A request's
state is a 16-byte digest of everything seen so far (prompt, then each
generated token). A token's logit is a hash of (digest, token id), so a
worker can score its shard of the vocabulary without seeing the others, and
the next token is the argmax over the partial results of every worker: with
one worker missing there is no answer. Same digest, same token: output is
deterministic at temperature 0.
"""

from __future__ import annotations

import hashlib
import re
import zlib

EOS_TOKEN = "</s>"
EOS_ID = 0

_WORDS = """
the of and to in is that it for on with as was at by be this from or have an
are not but which one all were when we there can more if will out so up said
what about its than into them only other new some time could these two may
first then do any like my now over such our man me even most made after also
did many before must through back years where much your way well down should
because each just those people how too little state good very make world still
own see men work long get here between both life being under never day same
another know while last might great old year off come since against go came
right used take three states himself few house use during without again place
around however home small found thought went say part once general high upon
school every does got united left number course war until always away something
fact though water less public put think almost hand enough far took head yet
government system better set told nothing night end why called did eyes find
going look asked later knew point next city business give group toward young
days let room president side social given present several order national
possible rather second face per among form important often things looked early
white case john become large big need four within felt along children saw best
church ever least power development light thought family interest want members
mind country area others done turned although open god service certain kind
problem began different door thus help sense means whole matter perhaps itself
york times law human line above name example action company hands local show
whether five history gave today either act feet across taken past quite anything
seen having death experience body word half really week free car field
river mountain signal cluster node ray placement group bundle tensor parallel
worker driver engine token model serve health ready port address network route
""".split()

VOCAB: tuple[str, ...] = (EOS_TOKEN,) + tuple(dict.fromkeys(_WORDS))
VOCAB_SIZE = len(VOCAB)
_WORD_TO_ID = {w: i for i, w in enumerate(VOCAB)}
_PIECE_RE = re.compile(r"\w+|[^\w\s]")

TOP_K = 8  # candidates each worker returns per request and step


# --- tokenizer ---------------------------------------------------------------


def tokenize(text: str) -> list[int]:
    """Words and punctuation marks; unknown pieces hash into the vocabulary."""
    ids = []
    for piece in _PIECE_RE.findall(text.lower()):
        token_id = _WORD_TO_ID.get(piece)
        if token_id is None:
            token_id = 1 + zlib.crc32(piece.encode()) % (VOCAB_SIZE - 1)
        ids.append(token_id)
    return ids


def token_text(token_id: int) -> str:
    """Text of one generated token, with its leading space."""
    return "" if token_id == EOS_ID else " " + VOCAB[token_id % VOCAB_SIZE]


def apply_chat_template(messages: list[dict]) -> str:
    parts = []
    for message in messages:
        content = message.get("content") or ""
        if isinstance(content, list):  # [{"type": "text", "text": ...}, ...]
            content = " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
        parts.append(f"<|{message.get('role', 'user')}|> {content}")
    parts.append("<|assistant|>")
    return "\n".join(parts)


# --- state -------------------------------------------------------------------


def initial_digest(prompt_ids: list[int]) -> bytes:
    h = hashlib.blake2b(b"vllm-standin-toy-model-v1", digest_size=16)
    for token_id in prompt_ids:
        h.update(token_id.to_bytes(4, "little"))
    return h.digest()


def advance(digest: bytes, token_id: int) -> bytes:
    return hashlib.blake2b(digest + token_id.to_bytes(4, "little"), digest_size=16).digest()


# --- the sharded "forward pass" ----------------------------------------------


def shard_ids(rank: int, world_size: int) -> range:
    """Token ids owned by a rank: every world_size-th id, starting at rank."""
    return range(rank, VOCAB_SIZE, world_size)


def _unit(digest: bytes, token_id: int) -> float:
    raw = hashlib.blake2b(digest + token_id.to_bytes(4, "little"), digest_size=8).digest()
    return int.from_bytes(raw, "little") / 2**64


def score_shard(shard: range, digest: bytes, num_generated: int, top_k: int = TOP_K) -> list[tuple[int, float]]:
    """Top-k (token id, logit) of one shard for one sequence state."""
    scored = []
    for token_id in shard:
        if token_id == EOS_ID:
            # End of sequence becomes likelier as the output grows
            # (~25 tokens on average); it then beats every word.
            p_stop = min(0.5, num_generated / 400)
            logit = 2.0 if _unit(digest, EOS_ID) < p_stop else -1.0
        else:
            logit = _unit(digest, token_id)
        scored.append((token_id, logit))
    scored.sort(key=lambda item: (-item[1], item[0]))
    return scored[:top_k]


def merge_partials(partials: list[list[tuple[int, float]]], top_k: int = TOP_K) -> list[tuple[int, float]]:
    """Combine the workers' top-k lists into the global top-k (best first)."""
    merged = [item for partial in partials for item in partial]
    merged.sort(key=lambda item: (-item[1], item[0]))
    return merged[:top_k]
