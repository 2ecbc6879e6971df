"""The position curve of read times, estimated from the logged reads themselves (no knowledge of the readers' fatigue).

A read's log seconds depend on the comment as this article's readers see it and on the position it was read at
(fatigue). To average a comment's reads without the positions they happened to be shown at, each read's log seconds
are taken relative to its position's offset: log seconds = a[article, comment] + offset[position] + noise, fitted by
least squares over every read logged so far with a free effect per (article, comment) pair (so a comment shown high
because it is good does not make the top positions look slow or fast: only reads of the same comment at different
positions inform the offsets), offset[0] = 0. The front end that sends reads back as counter increments subtracts the
current offset from each read (simulator.counter_updates), so the counter `read_logms` holds position-corrected log
milliseconds and feature read_logtime is their smoothed mean.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

import numpy as np


def fit_position_offsets(pair: np.ndarray, position: np.ndarray, log_seconds: np.ndarray, positions: int) -> np.ndarray:
    """Least-squares offsets per position (offset[0] = 0) of log_seconds = a[pair] + offset[position] + noise, the
    pair effects eliminated exactly (the K x K normal equations of the offsets after profiling the pairs out).
    Positions that no pair with reads at two positions connects to position 0 get offset 0."""
    pair, position, y = np.asarray(pair, dtype=np.int64), np.asarray(position, dtype=np.int64), np.asarray(log_seconds, dtype=np.float64)
    if len(y) == 0:
        return np.zeros(positions)
    if position.min() < 0 or position.max() >= positions:
        raise ValueError(f"positions must lie in [0, {positions})")
    _, pair = np.unique(pair, return_inverse=True)
    n_pairs = int(pair.max()) + 1
    cell = pair * positions + position
    counts = np.bincount(cell, minlength=n_pairs * positions).reshape(n_pairs, positions)
    sums = np.bincount(cell, weights=y, minlength=n_pairs * positions).reshape(n_pairs, positions)
    n = counts.sum(axis=1)
    several = (counts > 0).sum(axis=1) > 1          # only pairs read at two positions or more say anything
    c, s, n = counts[several].astype(np.float64), sums[several], n[several].astype(np.float64)
    if len(c) == 0:
        return np.zeros(positions)
    normal = np.diag(c.sum(axis=0)) - (c / n[:, None]).T @ c
    rhs = s.sum(axis=0) - (c / n[:, None]).T @ s.sum(axis=1)
    # offset[0] = 0: drop its row and column; positions never connected stay at 0 (their rows are 0)
    reduced, b = normal[1:, 1:], rhs[1:]
    connected = np.abs(reduced).sum(axis=1) > 0
    out = np.zeros(positions)
    if connected.any():
        sol = np.linalg.lstsq(reduced[np.ix_(connected, connected)], b[connected], rcond=None)[0]
        out[1:][connected] = sol
    return out


@dataclass
class PositionCurve:
    """The logged reads so far, kept as arrays, and the position offsets fitted on them (`offsets`)."""

    positions: int
    _pairs: dict[tuple[str, str], int] = field(default_factory=dict, repr=False)
    _pair: list[np.ndarray] = field(default_factory=list, repr=False)
    _position: list[np.ndarray] = field(default_factory=list, repr=False)
    _log: list[np.ndarray] = field(default_factory=list, repr=False)
    offsets: np.ndarray | None = None

    def __post_init__(self) -> None:
        if self.offsets is None:
            self.offsets = np.zeros(self.positions)

    def add(self, signals: Iterable[Mapping[str, Any]]) -> int:
        """Adds the reads of reader signals (simulator.Readers.read) and refits the offsets; returns the reads added."""
        pair, position, log = [], [], []
        for sig in signals:
            for r in sig["reads"]:
                key = (sig["article"], r["id"])
                pair.append(self._pairs.setdefault(key, len(self._pairs)))
                position.append(int(r["position"]))
                log.append(math.log(max(float(r["seconds"]), 1e-3)))
        if pair:
            self._pair.append(np.array(pair))
            self._position.append(np.array(position))
            self._log.append(np.array(log))
            self.offsets = fit_position_offsets(np.concatenate(self._pair), np.concatenate(self._position),
                                                np.concatenate(self._log), self.positions)
        return len(pair)


def corrected_log_ms(seconds: float, position: int, offsets: np.ndarray) -> int:
    """One read's increment of read_logms: 1000 * (log seconds - offsets[position]), rounded (seconds floored at 1 ms,
    as the read_ms counter counts them)."""
    if not 0 <= position < len(offsets):
        raise ValueError(f"position {position} outside the curve's {len(offsets)} positions")
    return int(round(1000.0 * (math.log(max(float(seconds), 1e-3)) - float(offsets[position]))))
