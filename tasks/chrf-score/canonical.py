"""chrF and chrF++: character (and word) n-gram F-scores for machine
translation evaluation (Popovic, WMT 2015 and WMT 2017)."""

import math

from mteval.ngrams import char_ngrams, split_punctuation, word_ngrams


def _check_int(name, value, lowest):
    if isinstance(value, bool) or not isinstance(value, int) or value < lowest:
        raise ValueError(f"{name} must be an integer >= {lowest}, got {value!r}")


def _check_beta(beta):
    if isinstance(beta, bool) or not isinstance(beta, (int, float)) or not (0.0 < beta < float("inf")):
        raise ValueError(f"beta must be a positive finite number, got {beta!r}")


def ngram_statistics(hypothesis, reference, char_order=6, word_order=0):
    """Match statistics of one hypothesis against one reference.

    Returns a list of char_order + word_order tuples (hyp_count, ref_count,
    matches): character orders 1..char_order first, then word orders
    1..word_order."""
    _check_int("char_order", char_order, 1)
    _check_int("word_order", word_order, 0)
    # Sec. 1: character n-grams of orders 1..N; spaces are not taken into account
    # (the repository's char_ngrams removes all whitespace).
    hyp_grams = [char_ngrams(hypothesis, n) for n in range(1, char_order + 1)]
    ref_grams = [char_ngrams(reference, n) for n in range(1, char_order + 1)]
    if word_order > 0:
        # Sec. 2, chrF++: word n-grams of orders 1..M are added; words come from the
        # repository's split_punctuation, which detaches a leading or trailing mark.
        hyp_words = split_punctuation(hypothesis)
        ref_words = split_punctuation(reference)
        hyp_grams += [word_ngrams(hyp_words, n) for n in range(1, word_order + 1)]
        ref_grams += [word_ngrams(ref_words, n) for n in range(1, word_order + 1)]
    stats = []
    for hyp, ref in zip(hyp_grams, ref_grams):
        ref_count = sum(ref.values())
        if ref_count == 0:
            # The paper leaves this out: when the reference has no n-gram of this
            # order, as in sacreBLEU (Sec. 3), the hypothesis n-grams are not
            # counted either.
            stats.append((0, 0, 0))
            continue
        hyp_count = sum(hyp.values())
        # An n-gram "has a counterpart in the reference" at most as many times as it
        # occurs there: matches are clipped counts, min(count in hyp, count in ref).
        matches = sum(min(count, ref[gram]) for gram, count in hyp.items() if gram in ref)
        stats.append((hyp_count, ref_count, matches))
    return stats


def chrf_from_statistics(stats, beta=2.0):
    """chrF_beta (0..100) from a list of (hyp_count, ref_count, matches) per order."""
    _check_beta(beta)
    factor = beta * beta
    precisions = []
    recalls = []
    for hyp_count, ref_count, matches in stats:
        # Eq. (1) averages over all N orders; the paper leaves out orders with no
        # n-gram at all. As in sacreBLEU (Sec. 3, "effective order"), only orders
        # where both sides have n-grams enter the averages.
        if hyp_count > 0 and ref_count > 0:
            # chrP_n: share of hypothesis n-grams with a counterpart in the
            # reference; chrR_n: share of reference n-grams found in the hypothesis.
            precisions.append(matches / hyp_count)
            recalls.append(matches / ref_count)
    if not precisions:
        return 0.0
    # Eq. (1) (Eq. (3) for chrF++): chrP and chrR are arithmetic means over the
    # orders (math.fsum keeps the sums exactly rounded on every Python version).
    chr_p = math.fsum(precisions) / len(precisions)
    chr_r = math.fsum(recalls) / len(recalls)
    if chr_p + chr_r == 0.0:
        return 0.0
    # Eq. (2): chrF_beta = (1 + beta^2) chrP chrR / (beta^2 chrP + chrR), in percent.
    return 100.0 * (1.0 + factor) * chr_p * chr_r / (factor * chr_p + chr_r)


def _best_statistics(hypothesis, references, char_order, word_order, beta):
    if isinstance(references, str) or not isinstance(references, (list, tuple)) or len(references) == 0:
        raise ValueError("references must be a non-empty list of strings")
    best_stats = None
    best_score = -1.0
    # The paper leaves several references out; as in sacreBLEU (Sec. 3 of
    # paper.tex), the reference giving the best score is kept, the first on a tie.
    for reference in references:
        stats = ngram_statistics(hypothesis, reference, char_order, word_order)
        score = chrf_from_statistics(stats, beta)
        if score > best_score:
            best_score = score
            best_stats = stats
    return best_stats


def sentence_chrf(hypothesis, references, char_order=6, word_order=0, beta=2.0):
    """Sentence-level chrF (word_order=0) or chrF++ (word_order=2), 0..100."""
    _check_beta(beta)
    stats = _best_statistics(hypothesis, references, char_order, word_order, beta)
    return chrf_from_statistics(stats, beta)


def corpus_chrf(hypotheses, references, char_order=6, word_order=0, beta=2.0):
    """Corpus-level chrF: statistics of every segment (against its best
    reference) are summed per order, then turned into one score."""
    _check_beta(beta)
    if len(hypotheses) == 0 or len(hypotheses) != len(references):
        raise ValueError("need one list of references per hypothesis, and at least one hypothesis")
    totals = None
    for hypothesis, refs in zip(hypotheses, references):
        stats = _best_statistics(hypothesis, refs, char_order, word_order, beta)
        if totals is None:
            totals = [list(s) for s in stats]
        else:
            for total, s in zip(totals, stats):
                for j in range(3):
                    total[j] += s[j]
    # Sec. 3, corpus level: the n-gram counts of all segments are pooled per order
    # before precision and recall are taken; not a mean of sentence scores.
    return chrf_from_statistics([tuple(t) for t in totals], beta)
