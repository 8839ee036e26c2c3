"""A toy German-to-English test set: system outputs and two human references
per segment (the second reference is a free paraphrase)."""

HYPOTHESES = [
    "The cat sat on the mat.",
    "He has read the book yesterday evening.",
    "We will meet us at the station at eight o'clock.",
    "The weather is today very nice, isn't it?",
    "Yes.",
    "She buyed three apples and a bread at the market.",
    "The meeting was postponed because of the strike.",
    "Please close the window before you go.",
    "In the year 2020 the company had 1,500 employees.",
    "It rains.",
]

REFERENCES_A = [
    "The cat sat on the mat.",
    "He read the book yesterday evening.",
    "We will meet at the station at eight o'clock.",
    "The weather is very nice today, isn't it?",
    "Yes!",
    "She bought three apples and a loaf of bread at the market.",
    "The meeting was postponed due to the strike.",
    "Please shut the window before you leave.",
    "In 2020 the company had 1,500 employees.",
    "It is raining.",
]

REFERENCES_B = [
    "A cat was sitting on the mat.",
    "Yesterday evening he read the book.",
    "We are meeting at the station at 8.",
    "Lovely weather today, isn't it?",
    "Yes, indeed.",
    "At the market she bought three apples and some bread.",
    "Because of the strike, the meeting was put off.",
    "Close the window before leaving, please.",
    "The company employed 1,500 people in 2020.",
    "Rain.",
]


def load_testset():
    """(hypotheses, references): references[i] is the list of the two
    reference translations of hypotheses[i]."""
    return list(HYPOTHESES), [[a, b] for a, b in zip(REFERENCES_A, REFERENCES_B)]
