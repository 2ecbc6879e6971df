"""A stand-in for the GGUF language models sample apps give Vespa's LocalLLM (ai.vespa.llm.clients, llama.cpp through
its JNI binding jllama) by url: retrieval-augmented-generation's llama-3.2-1b-instruct (data.vespa-cloud.com) and
field-generator's Phi-3.5-mini (huggingface.co), neither reachable here.

    python3 tests/sample_apps/gguf_llm_standin.py <app>/standin/llm.gguf

writes a llama-architecture GGUF (version 3, float32 tensors) with random weights: 2 layers, 64 dimensions, 4 heads,
a feed-forward of 128, and a character-level SentencePiece vocabulary (`tokenizer.ggml.model` llama) of 354 tokens:
<unk>, <s>, </s>, the 256 byte tokens <0x00>..<0xFF> and the printable ASCII characters, "▁" for the space. A text
is its characters' tokens (any other character its UTF-8 bytes' tokens), as llama.cpp tokenizes it. The model never
picks a special or byte token (dimension 0 of the residual stream is a constant 4 no layer changes, and the output
weights of those tokens are -500 there, 0 elsewhere), so it never stops on </s> and writes ASCII until its token
limit: what it writes means nothing, but it is what llama.cpp computes from these weights. `complete(prompt, n)`
computes the same greedily in numpy (temperature 0), `shortfalls` how far a completion's tokens are from greedy. Only the standard library writes the file.
"""
import random
import struct
import sys
from array import array

SEED = 18
EMBED = 64
HEADS = 4
HEAD_DIM = EMBED // HEADS
FF = 128
LAYERS = 2
CONTEXT = 4096
EPS = 1e-5
ROPE_BASE = 10000.0
CONSTANT = 4.0
SUPPRESS = -500.0
CHAT_TEMPLATE = ("{% for message in messages %}{% if message['role'] == 'user' %}{{ message['content'] }}"
                 "{% endif %}{% endfor %}")

SPECIALS = ["<unk>", "<s>", "</s>"]
BYTES = [f"<0x{b:02X}>" for b in range(256)]
CHARS = ["▁"] + [chr(c) for c in range(0x21, 0x7F)]
TOKENS = SPECIALS + BYTES + CHARS
ALLOWED_FROM = len(SPECIALS) + len(BYTES)


def _matrix(rng: random.Random, rows: int, cols: int, scale: float) -> list[list[float]]:
    return [[rng.gauss(0.0, scale) for _ in range(cols)] for _ in range(rows)]


def weights() -> dict[str, list[list[float]] | list[float]]:
    """The tensors by GGUF name, each a list of rows (numpy's row-major shape: [out, in], GGUF's ne reversed)."""
    rng = random.Random(SEED)
    vocab = len(TOKENS)
    embd = _matrix(rng, vocab, EMBED, 1.0)
    for row in embd:
        row[0] = CONSTANT
    tensors: dict[str, list[list[float]] | list[float]] = {"token_embd.weight": embd}
    for layer in range(LAYERS):
        b = f"blk.{layer}."
        tensors[b + "attn_norm.weight"] = [1.0] * EMBED
        for name in ("attn_q", "attn_k", "attn_v"):
            tensors[b + name + ".weight"] = _matrix(rng, EMBED, EMBED, EMBED ** -0.5)
        out = _matrix(rng, EMBED, EMBED, EMBED ** -0.5)
        out[0] = [0.0] * EMBED
        tensors[b + "attn_output.weight"] = out
        tensors[b + "ffn_norm.weight"] = [1.0] * EMBED
        tensors[b + "ffn_gate.weight"] = _matrix(rng, FF, EMBED, EMBED ** -0.5)
        tensors[b + "ffn_up.weight"] = _matrix(rng, FF, EMBED, EMBED ** -0.5)
        down = _matrix(rng, EMBED, FF, FF ** -0.5)
        down[0] = [0.0] * FF
        tensors[b + "ffn_down.weight"] = down
    tensors["output_norm.weight"] = [1.0] * EMBED
    output = _matrix(rng, vocab, EMBED, 20.0)  # logits far apart: sampling at the default temperature picks the greedy token
    for token, row in enumerate(output):
        row[0] = 0.0
        if token < ALLOWED_FROM:
            row[:] = [SUPPRESS] + [0.0] * (EMBED - 1)
    tensors["output.weight"] = output
    return tensors


def _string(value: str) -> bytes:
    data = value.encode("utf-8")
    return struct.pack("<Q", len(data)) + data


def _kv(key: str, kind: str, value) -> bytes:
    head = _string(key)
    if kind == "str":
        return head + struct.pack("<I", 8) + _string(value)
    if kind == "u32":
        return head + struct.pack("<II", 4, value)
    if kind == "f32":
        return head + struct.pack("<If", 6, value)
    if kind == "bool":
        return head + struct.pack("<IB", 7, 1 if value else 0)
    if kind == "strs":
        return head + struct.pack("<IIQ", 9, 8, len(value)) + b"".join(_string(v) for v in value)
    if kind == "f32s":
        return head + struct.pack("<IIQ", 9, 6, len(value)) + struct.pack(f"<{len(value)}f", *value)
    if kind == "i32s":
        return head + struct.pack("<IIQ", 9, 5, len(value)) + struct.pack(f"<{len(value)}i", *value)
    raise ValueError(kind)


def metadata() -> list[bytes]:
    types = [2, 3, 3] + [6] * len(BYTES) + [1] * len(CHARS)
    return [_kv("general.architecture", "str", "llama"),
            _kv("general.name", "str", "dwell gguf stand-in"),
            _kv("general.alignment", "u32", 32),
            _kv("llama.context_length", "u32", CONTEXT),
            _kv("llama.embedding_length", "u32", EMBED),
            _kv("llama.block_count", "u32", LAYERS),
            _kv("llama.feed_forward_length", "u32", FF),
            _kv("llama.rope.dimension_count", "u32", HEAD_DIM),
            _kv("llama.attention.head_count", "u32", HEADS),
            _kv("llama.attention.head_count_kv", "u32", HEADS),
            _kv("llama.attention.layer_norm_rms_epsilon", "f32", EPS),
            _kv("llama.rope.freq_base", "f32", ROPE_BASE),
            _kv("llama.vocab_size", "u32", len(TOKENS)),
            _kv("tokenizer.ggml.model", "str", "llama"),
            _kv("tokenizer.ggml.tokens", "strs", TOKENS),
            _kv("tokenizer.ggml.scores", "f32s", [0.0] * len(TOKENS)),
            _kv("tokenizer.ggml.token_type", "i32s", types),
            _kv("tokenizer.ggml.bos_token_id", "u32", 1),
            _kv("tokenizer.ggml.eos_token_id", "u32", 2),
            _kv("tokenizer.ggml.unknown_token_id", "u32", 0),
            _kv("tokenizer.ggml.add_bos_token", "bool", True),
            _kv("tokenizer.ggml.add_eos_token", "bool", False),
            _kv("tokenizer.chat_template", "str", CHAT_TEMPLATE)]


def _pad(n: int) -> int:
    return (32 - n % 32) % 32


def standin(path: str) -> None:
    tensors = weights()
    kvs = metadata()
    infos, blobs, offset = [], [], 0
    for name, value in tensors.items():
        matrix = isinstance(value[0], list)
        rows = value if matrix else [value]
        shape = [len(rows[0]), len(rows)] if matrix else [len(value)]  # GGUF's ne: the fastest dimension first
        data = array("f", [x for row in rows for x in row]).tobytes()
        infos.append(_string(name) + struct.pack("<I", len(shape)) + struct.pack(f"<{len(shape)}Q", *shape)
                     + struct.pack("<IQ", 0, offset))
        blobs.append(data + b"\0" * _pad(len(data)))
        offset += len(blobs[-1])
    head = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(kvs)) + b"".join(kvs) + b"".join(infos)
    with open(path, "wb") as out:
        out.write(head + b"\0" * _pad(len(head)))
        for blob in blobs:
            out.write(blob)


def tokenize(text: str) -> list[int]:
    """llama.cpp's SentencePiece tokens of a text with this vocabulary: <s>, "▁" first, a token per character."""
    ids = {token: i for i, token in enumerate(TOKENS)}
    out = [1]
    for char in "▁" + text.replace(" ", "▁"):
        if char in ids and ids[char] >= ALLOWED_FROM:
            out.append(ids[char])
        else:
            out.extend(len(SPECIALS) + b for b in char.encode("utf-8"))
    return out


def _next_logits():
    """A function of the token ids that gives the model's logits after the last one (numpy; K, V, Q and the attention
    weights rounded to float16 as llama.cpp's float16 key-value cache has them)."""
    import numpy as np

    w = {k: np.array(v, dtype=np.float32) for k, v in weights().items()}
    inv = (ROPE_BASE ** (-np.arange(0, HEAD_DIM, 2, dtype=np.float64) / HEAD_DIM))

    def rms(x: np.ndarray, g: np.ndarray) -> np.ndarray:
        return (x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + EPS) * g).astype(np.float32)

    def rope(x: np.ndarray) -> np.ndarray:  # [seq, heads, dim], adjacent pairs (llama.cpp's normal rope)
        angle = np.arange(x.shape[0])[:, None] * inv[None, :]
        cos, sin = np.cos(angle)[:, None, :], np.sin(angle)[:, None, :]
        even, odd = x[..., 0::2], x[..., 1::2]
        out = np.empty_like(x)
        out[..., 0::2] = even * cos - odd * sin
        out[..., 1::2] = even * sin + odd * cos
        return out.astype(np.float32)

    def f16(x: np.ndarray) -> np.ndarray:
        return x.astype(np.float16).astype(np.float32)

    def logits(tokens: list[int]) -> np.ndarray:
        x = w["token_embd.weight"][tokens]
        seq = len(tokens)
        mask = np.triu(np.full((seq, seq), -np.inf, dtype=np.float32), 1)
        for layer in range(LAYERS):
            b = f"blk.{layer}."
            h = rms(x, w[b + "attn_norm.weight"])
            q = rope((h @ w[b + "attn_q.weight"].T).reshape(seq, HEADS, HEAD_DIM))
            k = rope((h @ w[b + "attn_k.weight"].T).reshape(seq, HEADS, HEAD_DIM))
            v = (h @ w[b + "attn_v.weight"].T).reshape(seq, HEADS, HEAD_DIM)
            scores = np.einsum("qhd,khd->hqk", f16(q), f16(k)) / np.float32(np.sqrt(HEAD_DIM)) + mask
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            att = scores / scores.sum(axis=-1, keepdims=True)
            o = np.einsum("hqk,khd->qhd", f16(att), f16(v)).reshape(seq, EMBED)
            x = x + o @ w[b + "attn_output.weight"].T
            h = rms(x, w[b + "ffn_norm.weight"])
            gate = h @ w[b + "ffn_gate.weight"].T
            x = x + ((gate / (1 + np.exp(-gate))) * (h @ w[b + "ffn_up.weight"].T)) @ w[b + "ffn_down.weight"].T
        return rms(x[-1], w["output_norm.weight"]) @ w["output.weight"].T
    return logits


def _ids(completion: str) -> list[int]:
    ids = {token: i for i, token in enumerate(TOKENS)}
    return [ids[char] for char in completion.replace(" ", "▁")]


def complete(prompt: str, n: int) -> str:
    """The n tokens the model picks greedily after the prompt (temperature 0), as text."""
    logits = _next_logits()
    ids, out = tokenize(prompt), []
    for _ in range(n):
        out.append(int(logits(ids + out).argmax()))
    return "".join(TOKENS[t] for t in out).replace("▁", " ")


def shortfalls(prompt: str, completion: str) -> list[float]:
    """For each token of a completion of the prompt, how far its logit is below the best one's given the tokens
    before it (0 where it is the greedy choice). Over long prompts llama.cpp's float16 attention (its flash attention
    accumulates in float16) moves logits by a few hundredths, which may flip a near tie; tests allow that much."""
    logits = _next_logits()
    ids, shown = tokenize(prompt), _ids(completion)
    out = []
    for i, token in enumerate(shown):
        row = logits(ids + shown[:i])
        out.append(float(row.max() - row[token]))
    return out


if __name__ == "__main__":
    standin(sys.argv[1])
