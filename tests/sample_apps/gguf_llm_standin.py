"""A stand-in for the GGUF language models sample apps give Vespa's LocalLLM (ai.vespa.llm.clients, llama.cpp through
its JNI binding jllama) by url: retrieval-augmented-generation's llama-3.2-1b-instruct (data.vespa-cloud.com) and
field-generator's Phi-3.5-mini (huggingface.co), neither reachable here.

    python3 tests/sample_apps/gguf_llm_standin.py <app>/standin/llm.gguf [char|subword]

writes a llama-architecture GGUF (version 3, float32 tensors) with random weights: 2 layers, 64 dimensions, 4 heads,
a feed-forward of 128, and a SentencePiece vocabulary (`tokenizer.ggml.model` llama) that starts with <unk>, <s>, </s>,
the 256 byte tokens <0x00>..<0xFF> and the printable ASCII characters, "▁" for the space. The `char` variant (the
default) has only those 354 tokens, so a text is its characters' tokens (any other character its UTF-8 bytes' tokens).
The `subword` variant adds, for the 3,000 words most frequent in the standard library's pydoc_data.topics (Python's
own documentation text), every prefix of the word and of "▁" + the word (about 19,600 pieces, each scored by its
rank, -index, as SentencePiece's BPE models are), so llama.cpp's SentencePiece merges make about 2.6 characters a
token of English text (Phi-3.5's tokenizer about 4; the char variant 1). `tokenize` is llama.cpp's SentencePiece
algorithm (adjacent pairs merged by the best score, the leftmost first).

The model never picks a special or byte token (dimension 0 of the residual stream is a constant 4 no layer changes, and
the output weights of those tokens are very negative there, 0 elsewhere), so without a grammar it never stops on </s>
and writes ASCII until its token limit: what it writes means nothing, but it is what llama.cpp computes from these
weights. `complete(prompt, n)` computes the same greedily in numpy (temperature 0), `shortfalls` how far a completion's
tokens are from greedy. In the subword variant the logits are ten times as far apart (sampling at the default
temperature all but always picks the greedy token), "\\" is never picked, and '"' has no random weights but a
constant bias on dimension 0, so that under llama.cpp's grammar for a JSON schema (LocalLLM's structured output) it
closes a string after a few words: `complete_json(prompt, key)` is the greedy completion under the grammar Vespa's
JsonSchemaToGrammar makes of the schema LanguageModelFieldGenerator gives an array<string> field {"key": [strings]}.
Only the standard library writes the file.
"""
import functools
import json
import re
import random
import struct
import sys
from array import array
from collections import Counter

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
EOS = 2

VARIANTS = ("char", "subword")
WORDS = 3000
# The subword variant: output weights ten times the char variant's, and '"' a constant logit of QUOTE_BIAS times the
# normalized dimension 0 (about 3.6 there), near the best of the random logits, so strings end after a few tokens
SUBWORD_SCALE = 200.0
QUOTE_BIAS = 2100.0
CLOSE_BIAS = 600.0  # "]" (a constant logit too, below '"': an array has a string or more)


@functools.lru_cache(maxsize=None)
def tokens(variant: str = "char") -> tuple[str, ...]:
    """The vocabulary: the char variant's 354 tokens, then (subword) the words' prefixes by the words' frequency."""
    if variant == "char":
        return tuple(TOKENS)
    if variant != "subword":
        raise ValueError(f"variant {variant!r}: one of {VARIANTS}")
    import pydoc_data.topics as topics

    text = " ".join(topics.topics[key] for key in sorted(topics.topics))
    counts = Counter(re.findall(r"[A-Za-z]+", text))
    words = [word for word, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))][:WORDS]
    seen, pieces = set(TOKENS), []
    for word in words:
        for form in ("▁" + word, word):
            for end in range(2, len(form) + 1):
                if form[:end] not in seen:
                    seen.add(form[:end])
                    pieces.append(form[:end])
    return tuple(TOKENS + pieces)


def _scale(variant: str) -> float:
    return 20.0 if variant == "char" else SUBWORD_SCALE


def _matrix(rng: random.Random, rows: int, cols: int, scale: float) -> list[list[float]]:
    return [[rng.gauss(0.0, scale) for _ in range(cols)] for _ in range(rows)]


def weights(variant: str = "char") -> dict[str, list[list[float]] | list[float]]:
    """The tensors by GGUF name, each a list of rows (numpy's row-major shape: [out, in], GGUF's ne reversed)."""
    rng = random.Random(SEED)
    vocab = tokens(variant)
    embd = _matrix(rng, len(vocab), EMBED, 1.0)
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
    scale = _scale(variant)
    # logits far apart: sampling at the default temperature picks the greedy token
    output = _matrix(rng, len(vocab), EMBED, scale)
    suppress = SUPPRESS * scale / 20.0
    for token, row in enumerate(output):
        row[0] = 0.0
        if token < ALLOWED_FROM:
            row[:] = [suppress] + [0.0] * (EMBED - 1)
    if variant == "subword":
        output[vocab.index("\\")] = [suppress] + [0.0] * (EMBED - 1)
        output[vocab.index('"')] = [QUOTE_BIAS] + [0.0] * (EMBED - 1)
        output[vocab.index(']')] = [CLOSE_BIAS] + [0.0] * (EMBED - 1)
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


def scores(variant: str = "char") -> list[float]:
    """SentencePiece scores: 0 for the char variant's tokens (no two of them merge), -index for the pieces after."""
    return [0.0 if i < len(TOKENS) else float(-i) for i in range(len(tokens(variant)))]


def metadata(variant: str = "char") -> list[bytes]:
    vocab = tokens(variant)
    types = [2, 3, 3] + [6] * len(BYTES) + [1] * (len(vocab) - ALLOWED_FROM)
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
            _kv("llama.vocab_size", "u32", len(vocab)),
            _kv("tokenizer.ggml.model", "str", "llama"),
            _kv("tokenizer.ggml.tokens", "strs", list(vocab)),
            _kv("tokenizer.ggml.scores", "f32s", scores(variant)),
            _kv("tokenizer.ggml.token_type", "i32s", types),
            _kv("tokenizer.ggml.bos_token_id", "u32", 1),
            _kv("tokenizer.ggml.eos_token_id", "u32", EOS),
            _kv("tokenizer.ggml.unknown_token_id", "u32", 0),
            _kv("tokenizer.ggml.add_bos_token", "bool", True),
            _kv("tokenizer.ggml.add_eos_token", "bool", False),
            _kv("tokenizer.chat_template", "str", CHAT_TEMPLATE)]


def _pad(n: int) -> int:
    return (32 - n % 32) % 32


def standin(path: str, variant: str = "char") -> None:
    tensors = weights(variant)
    kvs = metadata(variant)
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


def tokenize(text: str, variant: str = "char") -> list[int]:
    """llama.cpp's SentencePiece tokens of a text: <s>, then "▁" + the text with "▁" for spaces, split into characters,
    adjacent symbols merged while their concatenation is a token, the best-scored pair first (the leftmost of equals);
    a symbol that is no token its UTF-8 bytes' tokens."""
    import heapq

    vocab = tokens(variant)
    ids = {token: i for i, token in enumerate(vocab)}
    score = scores(variant)
    symbols: list[str | None] = list("▁" + text.replace(" ", "▁"))
    after = list(range(1, len(symbols))) + [-1]
    before = list(range(-1, len(symbols) - 1))
    queue: list[tuple[float, int, str]] = []

    def pair(left: int, right: int) -> None:
        if left >= 0 and right >= 0:
            merged = symbols[left] + symbols[right]
            if ids.get(merged, 0) >= ALLOWED_FROM:
                heapq.heappush(queue, (-score[ids[merged]], left, merged))

    for i in range(len(symbols) - 1):
        pair(i, i + 1)
    while queue:
        _, left, merged = heapq.heappop(queue)
        right = after[left]
        if symbols[left] is None or right < 0 or symbols[left] + symbols[right] != merged:
            continue
        symbols[left], symbols[right] = merged, None
        after[left] = after[right]
        if after[right] >= 0:
            before[after[right]] = left
        pair(before[left], left)
        pair(left, after[left])
    out = [1]
    for symbol in symbols:
        if symbol is None:
            continue
        if ids.get(symbol, 0) >= ALLOWED_FROM:
            out.append(ids[symbol])
        else:
            out.extend(len(SPECIALS) + b for b in symbol.encode("utf-8"))
    return out


@functools.lru_cache(maxsize=None)
def _next_logits(variant: str = "char"):
    """A function of the token ids that gives the model's logits after the last one (numpy; K, V, Q and the attention
    weights rounded to float16 as llama.cpp's float16 key-value cache has them)."""
    import numpy as np

    w = {k: np.array(v, dtype=np.float32) for k, v in weights(variant).items()}
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

    def logits(ids: list[int]) -> np.ndarray:
        x = w["token_embd.weight"][ids]
        seq = len(ids)
        mask = np.triu(np.full((seq, seq), -np.inf, dtype=np.float32), 1)
        for layer in range(LAYERS):
            b = f"blk.{layer}."
            h = rms(x, w[b + "attn_norm.weight"])
            q = rope((h @ w[b + "attn_q.weight"].T).reshape(seq, HEADS, HEAD_DIM))
            k = rope((h @ w[b + "attn_k.weight"].T).reshape(seq, HEADS, HEAD_DIM))
            v = (h @ w[b + "attn_v.weight"].T).reshape(seq, HEADS, HEAD_DIM)
            scores_ = np.einsum("qhd,khd->hqk", f16(q), f16(k)) / np.float32(np.sqrt(HEAD_DIM)) + mask
            scores_ = np.exp(scores_ - scores_.max(axis=-1, keepdims=True))
            att = scores_ / scores_.sum(axis=-1, keepdims=True)
            o = np.einsum("hqk,khd->qhd", f16(att), f16(v)).reshape(seq, EMBED)
            x = x + o @ w[b + "attn_output.weight"].T
            h = rms(x, w[b + "ffn_norm.weight"])
            gate = h @ w[b + "ffn_gate.weight"].T
            x = x + ((gate / (1 + np.exp(-gate))) * (h @ w[b + "ffn_up.weight"].T)) @ w[b + "ffn_down.weight"].T
        return rms(x[-1], w["output_norm.weight"]) @ w["output.weight"].T
    return logits


def _text(ids: list[int], variant: str) -> str:
    vocab = tokens(variant)
    return "".join(vocab[t] for t in ids).replace("▁", " ")


def _ids(completion: str) -> list[int]:
    ids = {token: i for i, token in enumerate(TOKENS)}
    return [ids[char] for char in completion.replace(" ", "▁")]


def complete(prompt: str, n: int, variant: str = "char") -> str:
    """The n tokens the model picks greedily after the prompt (temperature 0), as text."""
    logits = _next_logits(variant)
    ids, out = tokenize(prompt, variant), []
    for _ in range(n):
        out.append(int(logits(ids + out).argmax()))
    return _text(out, variant)


def shortfalls(prompt: str, completion: str) -> list[float]:
    """For each token of a completion of the prompt (char variant), how far its logit is below the best one's given the
    tokens before it (0 where it is the greedy choice). Over long prompts llama.cpp's float16 attention (its flash
    attention accumulates in float16) moves logits by a few hundredths, which may flip a near tie; tests allow that."""
    logits = _next_logits("char")
    ids, shown = tokenize(prompt), _ids(completion)
    out = []
    for i, token in enumerate(shown):
        row = logits(ids + shown[:i])
        out.append(float(row.max() - row[token]))
    return out


class _ArrayOfStrings:
    """The language of the GBNF grammar Vespa's JsonSchemaToGrammar (a port of llama.cpp's json_schema_to_grammar)
    makes of {"type": "object", "properties": {key: {"type": "array", "items": {"type": "string"}}}, "required": [key],
    "additionalProperties": false}:
        root ::= "{" space key-kv "}" space    key-kv ::= "\\"key\\"" space ":" space key
        key ::= "[" space ( string ( "," space string )* )? "]" space    string ::= "\\"" char* "\\"" space
        char ::= [^"\\\\\\x7F\\x00-\\x1F] | [\\\\] (["\\\\bfnrt] | "u" [0-9a-fA-F]{4})    space ::= | " " | "\\n" [ \\t]{0,20}
    as a nondeterministic automaton over characters: states are ints, edges (predicate, target), epsilon edges."""

    def __init__(self, key: str) -> None:
        self.edges: dict[int, list] = {}
        self.empty: dict[int, list[int]] = {}
        self.count = 0
        s = self._literal(self._node(), "{")
        self.start = 0
        s = self._literal(self._space(s), f'"{key}"')
        s = self._literal(self._space(self._literal(self._space(s), ":")), "[")
        s = self._space(s)
        body = self._node()
        self._eps(s, body)
        inside = self._node()
        self._edge(s, lambda c: c == '"', inside)
        self._edge(inside, lambda c: c not in '"\\' and 0x20 <= ord(c) != 0x7F, inside)
        escape = self._node()
        self._edge(inside, lambda c: c == "\\", escape)
        self._edge(escape, lambda c: c in '"\\bfnrt', inside)
        hexes = escape
        for i in range(4):
            nxt = self._node()
            self._edge(hexes, (lambda c: c == "u") if i == 0 else (lambda c: c in "0123456789abcdefABCDEF"), nxt)
            hexes = nxt
        self._edge(hexes, lambda c: c in "0123456789abcdefABCDEF", inside)
        closed = self._space(self._literal(inside, '"'))
        self._eps(closed, body)
        self._edge(self._space(self._literal(closed, ",")), lambda c: c == '"', inside)
        self.accept = self._space(self._literal(self._space(self._literal(body, "]")), "}"))

    def _node(self) -> int:
        self.count += 1
        return self.count - 1

    def _edge(self, source: int, test, target: int) -> None:
        self.edges.setdefault(source, []).append((test, target))

    def _eps(self, source: int, target: int) -> None:
        self.empty.setdefault(source, []).append(target)

    def _literal(self, source: int, text: str) -> int:
        for char in text:
            target = self._node()
            self._edge(source, lambda c, char=char: c == char, target)
            source = target
        return source

    def _space(self, source: int) -> int:
        end = self._node()
        self._eps(source, end)
        self._edge(source, lambda c: c == " ", end)
        tabs = self._node()
        self._edge(source, lambda c: c == "\n", tabs)
        self._eps(tabs, end)
        for _ in range(20):
            more = self._node()
            self._edge(tabs, lambda c: c in " \t", more)
            self._eps(more, end)
            tabs = more
        return end

    def closure(self, states: frozenset[int]) -> frozenset[int]:
        todo, seen = list(states), set(states)
        while todo:
            for target in self.empty.get(todo.pop(), []):
                if target not in seen:
                    seen.add(target)
                    todo.append(target)
        return frozenset(seen)

    def step(self, states: frozenset[int], text: str) -> frozenset[int]:
        for char in text:
            states = self.closure(frozenset(t for s in states for test, t in self.edges.get(s, []) if test(char)))
            if not states:
                break
        return states


def complete_json(prompt: str, key: str, max_tokens: int = 500, variant: str = "subword") -> str:
    """The model's greedy completion of the prompt under the grammar of {key: array of strings} (see _ArrayOfStrings):
    at each step the best-scored token whose text the grammar allows, </s> (which ends it) only where the grammar is
    complete; at most max_tokens tokens."""
    import numpy as np

    logits = _next_logits(variant)
    vocab = tokens(variant)
    texts = [token.replace("▁", " ") for token in vocab]
    grammar = _ArrayOfStrings(key)
    masks: dict[frozenset[int], np.ndarray] = {}
    ids, out = tokenize(prompt, variant), []
    states = grammar.closure(frozenset([grammar.start]))
    for _ in range(max_tokens):
        if states not in masks:
            allowed = np.full(len(vocab), -np.inf, dtype=np.float32)
            for token in range(ALLOWED_FROM, len(vocab)):
                if grammar.step(states, texts[token]):
                    allowed[token] = 0.0
            if grammar.accept in states:
                allowed[EOS] = 0.0
            masks[states] = allowed
        token = int((logits(ids + out) + masks[states]).argmax())
        if token == EOS:
            break
        out.append(token)
        states = grammar.step(states, texts[token])
    return _text(out, variant)


if __name__ == "__main__":
    standin(sys.argv[1], *(sys.argv[2:3]))
