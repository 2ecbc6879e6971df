"""What Vespa's colbert-embedder and splade-embedder make of a text, outside Vespa: the same tokenizer.json
(tokenizers) and ONNX model (onnxruntime), the inputs built and the output reduced as Vespa's ColBertEmbedder and
SpladeEmbedder (model-integration) do, written from their documented behaviour; and the ranking expressions the
sample apps use over them (ColBERT's max-sim over unpacked bits or floats, SPLADE's sparse dot product), in numpy.
Tests compare the container's tensors and the content nodes' scores with these."""
from __future__ import annotations

from pathlib import Path

import numpy as np

PUNCTUATION = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"  # left out of a ColBERT document's tokens


class ColBert:
    """A colbert-embedder with its defaults: 32 query tokens (padded with [MASK], unattended), documents unpadded,
    [CLS] [unused0]/[unused1] ... [SEP] around the text's word pieces, punctuation dropped from documents."""

    def __init__(self, model: Path, tokenizer: Path, output: str = "contextual", max_query_tokens: int = 32,
                 max_document_tokens: int = 512) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer
        self.tokenizer = Tokenizer.from_file(str(tokenizer))
        self.tokenizer.no_padding()
        self.session = ort.InferenceSession(str(model), providers=["CPUExecutionProvider"])
        self.output = output
        self.max_query_tokens = max_query_tokens
        self.max_document_tokens = max_document_tokens
        self.skip = {i for c in PUNCTUATION for i in self.tokenizer.encode(c, add_special_tokens=False).ids}

    def _run(self, ids: list[int], mask: list[int]) -> np.ndarray:
        out = self.session.run([self.output], {"input_ids": np.array([ids], dtype=np.int64),
                                               "attention_mask": np.array([mask], dtype=np.int64)})[0]
        return out[0]

    def query(self, text: str) -> np.ndarray:
        """query(qt): [max_query_tokens, dim] float32, a row per qt label 0, 1, ..."""
        words = self.tokenizer.encode(text, add_special_tokens=False).ids[:self.max_query_tokens - 3]
        ids = [101, 1] + words + [102]
        length = len(ids)
        ids += [103] * (self.max_query_tokens - length)
        mask = [1] * length + [0] * (self.max_query_tokens - length)
        return self._run(ids, mask)

    def document(self, text: str) -> np.ndarray:
        """The document's token vectors: [tokens, dim] float32, a row per dt label 0, 1, ..."""
        words = [i for i in self.tokenizer.encode(text, add_special_tokens=False).ids if i not in self.skip]
        ids = [101, 2] + words[:self.max_document_tokens - 3] + [102]
        return self._run(ids, [1] * len(ids))


def pack_bits(vectors: np.ndarray, cells: int) -> np.ndarray:
    """The int8 cells of tensor<int8>(dt{}, x[cells]): the first 8 * cells dimensions, 1 where > 0, first bit highest."""
    return np.packbits(vectors[:, :8 * cells] > 0, axis=1).view(np.int8)


def unpack_bits(cells: np.ndarray) -> np.ndarray:
    """unpack_bits(t): each int8 cell as 8 floats, highest bit first."""
    return np.unpackbits(np.asarray(cells, dtype=np.int8).view(np.uint8), axis=1).astype(np.float64)


def max_sim(query: np.ndarray, document: np.ndarray) -> float:
    """sum(reduce(sum(query(qt) * d, x), max, dt), qt)."""
    return float((query.astype(np.float64) @ document.astype(np.float64).T).max(axis=1).sum())


class Splade:
    """A splade-embedder: the text's word pieces with [CLS] and [SEP], the logits' maximum over the sequence per
    vocabulary entry, log(1 + relu(.)), kept where above the threshold, labeled by the decoded word piece."""

    def __init__(self, model: Path, tokenizer: Path, threshold: float = 0.0) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer
        self.tokenizer = Tokenizer.from_file(str(tokenizer))
        self.tokenizer.no_padding()
        self.session = ort.InferenceSession(str(model), providers=["CPUExecutionProvider"])
        self.threshold = threshold

    def embed(self, text: str) -> dict[str, float]:
        encoding = self.tokenizer.encode(text)
        feed = {"input_ids": [encoding.ids], "attention_mask": [encoding.attention_mask],
                "token_type_ids": [encoding.type_ids]}
        logits = self.session.run(["logits"], {k: np.array(v, dtype=np.int64) for k, v in feed.items()})[0][0]
        top = np.maximum(logits.max(axis=0).astype(np.float64), 0.0)
        scores = np.log(1.0 + top)
        return {self.tokenizer.decode([int(v)], skip_special_tokens=False): float(scores[v])
                for v in np.flatnonzero(scores > self.threshold)}


def sparse_dot(query: dict[str, float], document: dict[str, float]) -> float:
    """sum(query(q) * attribute(d)) over a mapped dimension."""
    return sum(w * document[t] for t, w in query.items() if t in document)
