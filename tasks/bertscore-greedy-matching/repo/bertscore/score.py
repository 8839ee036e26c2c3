"""BERTScore (Zhang, Kishore, Wu, Weinberger and Artzi, "BERTScore: Evaluating
Text Generation with BERT", ICLR 2020) on given token embeddings."""

import numpy as np
