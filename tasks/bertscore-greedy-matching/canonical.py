"""BERTScore (Zhang, Kishore, Wu, Weinberger and Artzi, "BERTScore: Evaluating
Text Generation with BERT", ICLR 2020) on given token embeddings."""

import math

import numpy as np

from bertscore.linalg import as_matrix, l2_normalize
from bertscore.weights import IdfTable


def compute_idf(references):
    """IdfTable of the reference corpus: log((M + 1) / (df + 1)), unseen log(M + 1)."""
    if len(references) == 0:
        raise ValueError("need at least one reference")
    m = len(references)
    # df(w): the number of reference sentences that contain w (a token repeated
    # in one sentence counts once).
    df = {}
    for tokens in references:
        for token in set(tokens):
            df[token] = df.get(token, 0) + 1
    # Eq. (3), importance weighting: idf(w) = -log(1/M sum_i 1[w in x^(i)]) over the
    # M references. The paper leaves smoothing out; as in the authors' code
    # (get_idf_dict), add one to numerator and denominator, so a token seen in
    # every reference still gets log((M + 1) / (M + 1)) = 0 and an unseen token
    # gets log(M + 1) rather than infinity.
    return IdfTable({w: math.log((m + 1) / (c + 1)) for w, c in df.items()}, math.log(m + 1))


def greedy_match(cand_emb, ref_emb):
    """Best cosine similarity of every candidate token and every reference token."""
    cand = as_matrix(cand_emb, "cand_emb")
    ref = as_matrix(ref_emb, "ref_emb")
    if cand.shape[1] != ref.shape[1]:
        raise ValueError(f"embedding sizes differ: {cand.shape[1]} and {ref.shape[1]}")
    # Similarity measure: x_i^T xhat_j / (||x_i|| ||xhat_j||), computed as
    # dot products of unit vectors (the repository's l2_normalize).
    sim = l2_normalize(cand) @ l2_normalize(ref).T
    # Eq. (1), greedy matching: each token is matched to the most similar token of the other
    # sentence (a token may be matched several times; no one-to-one alignment).
    return sim.max(axis=1), sim.max(axis=0)


def _weights(weights, n, name):
    if weights is None:
        return np.ones(n)
    w = np.asarray(weights, dtype=np.float64)
    if w.shape != (n,):
        raise ValueError(f"{name} must have one weight per token ({n}), got shape {w.shape}")
    if np.any(w < 0) or not np.all(np.isfinite(w)):
        raise ValueError(f"{name} must be finite and non-negative")
    if w.sum() == 0.0:
        raise ValueError(f"{name} sum to zero")
    return w


def bert_score(cand_emb, ref_emb, cand_weights=None, ref_weights=None):
    """(precision, recall, F1) of one candidate against one reference."""
    cand_best, ref_best = greedy_match(cand_emb, ref_emb)
    wc = _weights(cand_weights, cand_best.shape[0], "cand_weights")
    wr = _weights(ref_weights, ref_best.shape[0], "ref_weights")
    # Eq. (1) with importance weighting (Eq. (4)): precision averages, over the
    # candidate tokens and weighted by their idf, the best similarity to a
    # reference token; recall does the same over the reference tokens, weighted by
    # the reference tokens' idf. Without weights every token counts once.
    precision = float(np.dot(wc, cand_best) / wc.sum())
    recall = float(np.dot(wr, ref_best) / wr.sum())
    # Eq. (2): F_BERT = 2 P R / (P + R); 0 when P + R = 0 (the authors' code
    # replaces the resulting NaN by 0).
    f1 = 2.0 * precision * recall / (precision + recall) if precision + recall != 0.0 else 0.0
    return precision, recall, f1


def rescale_with_baseline(scores, baseline):
    """Map (P, R, F) to (s - b) / (1 - b) with the matching baseline b of each."""
    if len(scores) != 3 or len(baseline) != 3:
        raise ValueError("scores and baseline are (precision, recall, F1) triples")
    for b in baseline:
        if not b < 1.0:
            raise ValueError(f"a baseline must be below 1, got {b!r}")
    # Eq. (5), baseline rescaling: s_hat = (s - b) / (1 - b), applied to P, R and F
    # separately, each with its own empirical baseline b (the average score of
    # unrelated sentence pairs); F is not recomputed from the rescaled P and R.
    return tuple((s - b) / (1.0 - b) for s, b in zip(scores, baseline))


def score_corpus(candidates, references, encoder, idf=False, baseline=None):
    """BERTScore of aligned token lists: three float64 arrays (P, R, F) of length N."""
    if len(candidates) == 0 or len(candidates) != len(references):
        raise ValueError("need as many references as candidates, and at least one pair")
    # Importance weighting: the idf weights come from the references of the test set and
    # weight the tokens of both sides; without idf every token weighs one.
    table = compute_idf(references) if idf else None
    rows = []
    for cand, ref in zip(candidates, references):
        cw = table.weights_for(cand) if table else None
        rw = table.weights_for(ref) if table else None
        p_r_f = bert_score(encoder.encode(cand), encoder.encode(ref), cw, rw)
        if baseline is not None:
            p_r_f = rescale_with_baseline(p_r_f, baseline)
        rows.append(p_r_f)
    out = np.array(rows, dtype=np.float64)
    return out[:, 0].copy(), out[:, 1].copy(), out[:, 2].copy()
