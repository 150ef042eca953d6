"""Write a tiny random Llama (config, bf16 safetensors, byte-level BPE tokenizer with a chat
template) that vLLM can serve with no hub access. Needs numpy and tokenizers only (no torch).

    python3 make_tiny_model.py OUT_DIR [TRAINING_TEXT_FILE ...]

The weights are random: the model talks nonsense, which is all a serving test needs."""

import json
import os
import struct
import sys

import numpy as np
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers

HIDDEN, INTER, LAYERS, HEADS, KV_HEADS, HEAD_DIM, VOCAB, CTX = 256, 512, 2, 4, 2, 64, 1024, 2048
SPECIAL = ["<|begin_of_text|>", "<|end_of_text|>", "<|user|>", "<|assistant|>", "<|system|>"]
CHAT_TEMPLATE = (
    "{{ bos_token }}{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}{{ eos_token }}{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}"
)


def train_tokenizer(out, texts):
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=VOCAB, special_tokens=SPECIAL, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    tok.train_from_iterator(texts, trainer)
    bos = tok.token_to_id(SPECIAL[0])
    tok.post_processor = processors.TemplateProcessing(
        single=f"{SPECIAL[0]} $A", pair=f"{SPECIAL[0]} $A {SPECIAL[0]} $B", special_tokens=[(SPECIAL[0], bos)]
    )
    tok.save(os.path.join(out, "tokenizer.json"))
    cfg = {
        "tokenizer_class": "PreTrainedTokenizerFast",
        "bos_token": SPECIAL[0],
        "eos_token": SPECIAL[1],
        "pad_token": SPECIAL[1],
        "model_max_length": CTX,
        "add_bos_token": True,
        "clean_up_tokenization_spaces": False,
        "chat_template": CHAT_TEMPLATE,
    }
    json.dump(cfg, open(os.path.join(out, "tokenizer_config.json"), "w"), indent=2)
    json.dump(
        {"bos_token": SPECIAL[0], "eos_token": SPECIAL[1], "pad_token": SPECIAL[1]},
        open(os.path.join(out, "special_tokens_map.json"), "w"),
        indent=2,
    )
    return tok.get_vocab_size(), bos, tok.token_to_id(SPECIAL[1])


def bf16_bytes(a):
    """float32 → bfloat16 (round to nearest even), as little-endian bytes."""
    u = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32)
    u = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    return u.astype("<u2").tobytes()


def write_safetensors(path, tensors):
    header, blobs, off = {}, [], 0
    for name, arr in tensors.items():
        b = bf16_bytes(arr)
        header[name] = {"dtype": "BF16", "shape": list(arr.shape), "data_offsets": [off, off + len(b)]}
        blobs.append(b)
        off += len(b)
    header["__metadata__"] = {"format": "pt"}
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)


def weights(vocab, rng):
    w = lambda *s: rng.normal(0, 0.02, size=s).astype(np.float32)  # noqa: E731
    t = {"model.embed_tokens.weight": w(vocab, HIDDEN), "model.norm.weight": np.ones(HIDDEN, np.float32)}
    for i in range(LAYERS):
        p = f"model.layers.{i}."
        t[p + "input_layernorm.weight"] = np.ones(HIDDEN, np.float32)
        t[p + "post_attention_layernorm.weight"] = np.ones(HIDDEN, np.float32)
        t[p + "self_attn.q_proj.weight"] = w(HEADS * HEAD_DIM, HIDDEN)
        t[p + "self_attn.k_proj.weight"] = w(KV_HEADS * HEAD_DIM, HIDDEN)
        t[p + "self_attn.v_proj.weight"] = w(KV_HEADS * HEAD_DIM, HIDDEN)
        t[p + "self_attn.o_proj.weight"] = w(HIDDEN, HEADS * HEAD_DIM)
        t[p + "mlp.gate_proj.weight"] = w(INTER, HIDDEN)
        t[p + "mlp.up_proj.weight"] = w(INTER, HIDDEN)
        t[p + "mlp.down_proj.weight"] = w(HIDDEN, INTER)
    t["lm_head.weight"] = w(vocab, HIDDEN)
    return t


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    texts = []
    for p in sys.argv[2:]:
        texts += open(p, encoding="utf-8", errors="replace").read().splitlines()
    texts += ["Hello, my name is", "The capital of France is", "Say hello in one word."] * 50
    vocab, bos, eos = train_tokenizer(out, texts)
    config = {
        "architectures": ["LlamaForCausalLM"],
        "model_type": "llama",
        "hidden_size": HIDDEN,
        "intermediate_size": INTER,
        "num_hidden_layers": LAYERS,
        "num_attention_heads": HEADS,
        "num_key_value_heads": KV_HEADS,
        "head_dim": HEAD_DIM,
        "hidden_act": "silu",
        "max_position_embeddings": CTX,
        "rms_norm_eps": 1e-5,
        "rope_theta": 10000.0,
        "vocab_size": vocab,
        "bos_token_id": bos,
        "eos_token_id": eos,
        "tie_word_embeddings": False,
        "attention_bias": False,
        "mlp_bias": False,
        "torch_dtype": "bfloat16",
        "transformers_version": "4.57.0",
    }
    json.dump(config, open(os.path.join(out, "config.json"), "w"), indent=2)
    json.dump(
        {"bos_token_id": bos, "eos_token_id": eos, "transformers_version": "4.57.0"},
        open(os.path.join(out, "generation_config.json"), "w"),
        indent=2,
    )
    write_safetensors(os.path.join(out, "model.safetensors"), weights(vocab, np.random.default_rng(37)))


if __name__ == "__main__":
    main()
