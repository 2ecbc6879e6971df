"""The reference embedding of the comment embedder, outside Vespa: the same ONNX model and
tokenizer (application/embedder/, fetched by embedder/fetch.py) run with onnxruntime and
tokenizers, mean-pooled over the attention mask and normalized, as services.xml configures
Vespa's hugging-face-embedder. Tests compare the container's embeddings with this; the ANN
benchmark embeds the corpus with it."""

from __future__ import annotations

from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
MODEL_DIR = ROOT / "application" / "embedder"


class ReferenceEmbedder:
    def __init__(self, model_dir: Path = MODEL_DIR, threads: int = 1) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self.tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self.tokenizer.no_padding()  # the file pads to 128; Vespa's embedder does not pad
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        self.session = ort.InferenceSession(str(model_dir / "minilm-l6-v2-int8.onnx"), options,
                                            providers=["CPUExecutionProvider"])

    def embed(self, text: str) -> np.ndarray:
        """One text, exactly as the container embeds it: shape (384,), float32, unit length."""
        return self.embed_batch([text])[0]

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        """Several texts at once (padded to the longest; the mask keeps padding out of the mean)."""
        encodings = self.tokenizer.encode_batch(texts)
        length = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(texts), length), dtype=np.int64)
        mask = np.zeros((len(texts), length), dtype=np.int64)
        types = np.zeros((len(texts), length), dtype=np.int64)
        for i, e in enumerate(encodings):
            ids[i, :len(e.ids)] = e.ids
            mask[i, :len(e.ids)] = e.attention_mask
            types[i, :len(e.ids)] = e.type_ids
        hidden = self.session.run(["last_hidden_state"],
                                  {"input_ids": ids, "attention_mask": mask, "token_type_ids": types})[0]
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        return (pooled / np.linalg.norm(pooled, axis=1, keepdims=True)).astype(np.float32)


def embed_corpus(texts: list[str], batch: int = 64, threads: int = 2) -> np.ndarray:
    """Embeds many texts, in batches of similar length (less padding), in their original order."""
    embedder = ReferenceEmbedder(threads=threads)
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    out = np.zeros((len(texts), 384), dtype=np.float32)
    for start in range(0, len(order), batch):
        chunk = order[start:start + batch]
        out[chunk] = embedder.embed_batch([texts[i] for i in chunk])
    return out
