/**
 * A small dataset folder in the official RECODE-H layout (RECODE-H.md, "Task
 * anatomy"), written for the import tests: `annotation_meta.jsonl` and
 * `annotations/annotation_<id>/` with instruction.txt, latex.txt, the
 * repository, canonical.py, test.py and test.sh as the official harness
 * writes them.
 *
 * Entries: 1 a standard-library task (the test and canonical copied into the
 * package folder, `--timeout 3`), 2 a numpy task (tests in their own folder,
 * `PYTHONPATH=` prefix, a whole paper as latex.txt), 3 a task with
 * `init_content`, 4 `if_test` false, 5 a broken entry (no canonical.py),
 * 6 a task importing a module no Python has, and a line whose `if_test` is
 * not a boolean.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

function write(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    const p = join(root, rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, text);
  }
}

/** A test.sh as the official tasks have them. */
function testSh(o: { env: string; repo: string; dest: string; cd: string; pythonpath?: string; timeout?: number }): string {
  const pytest = `pytest test.py --junitxml="\${SCRIPT_DIR}/pytest_report/report.xml"${o.timeout ? ` --timeout ${o.timeout}` : ""}`;
  return [
    "#!/bin/bash",
    `SCRIPT_DIR="$( cd "$( dirname "\${BASH_SOURCE[0]}" )" && pwd )"`,
    "source ~/miniconda3/etc/profile.d/conda.sh",
    `conda activate ${o.env}`,
    `TARGET_DIR="\${SCRIPT_DIR}/${o.repo}"`,
    "",
    "# place the reference and the tests",
    `cp "\${SCRIPT_DIR}/canonical.py" "\${TARGET_DIR}/${o.dest}"`,
    `cp "\${SCRIPT_DIR}/test.py" "\${TARGET_DIR}/${o.dest}"`,
    `cd "\${TARGET_DIR}/${o.cd}" || exit`,
    `mkdir -p "\${SCRIPT_DIR}/pytest_report"`,
    o.pythonpath ? `PYTHONPATH="\${TARGET_DIR}/${o.pythonpath}" ${pytest}` : pytest,
    `rm -f "\${TARGET_DIR}/${o.dest}canonical.py" "\${TARGET_DIR}/${o.dest}test.py"`,
    "",
  ].join("\n");
}

const EMA_CANONICAL = `"""Exponential moving average (reference)."""
from util import clamp


def ema(xs, alpha):
    # Paper Eq. (1): m_t = alpha * x_t + (1 - alpha) * m_{t-1}, m_0 = x_0
    alpha = clamp(alpha, 0.0, 1.0)
    out = []
    m = None
    for x in xs:
        m = x if m is None else alpha * x + (1 - alpha) * m
        out.append(m)
    return out


def debias(values, alpha):
    # Paper Eq. (2): divide by 1 - (1 - alpha)^t
    return [v / (1 - (1 - alpha) ** (t + 1)) for t, v in enumerate(values)]
`;

const EMA_TEST = `import math
import time

import pytest

from canonical import debias as ref_debias
from canonical import ema as ref_ema
from ema import debias, ema


class TestEma:
    def test_ema_matches_reference(self):
        xs = [1.0, 2.0, 4.0, 8.0]
        assert ema(xs, 0.5) == pytest.approx(ref_ema(xs, 0.5))

    def test_ema_clamps_alpha(self):
        assert ema([1.0, 3.0], 2.0) == pytest.approx(ref_ema([1.0, 3.0], 2.0))


def test_debias_matches_reference():
    vals = [0.5, 0.75, 0.875]
    assert debias(vals, 0.5) == pytest.approx(ref_debias(vals, 0.5))
`;

const SOFTMAX_CANONICAL = `import numpy as np


def softmax(z, temperature=1.0):
    # Eq. (3): p_i = exp(z_i / T) / sum_j exp(z_j / T), in the log domain
    z = np.asarray(z, dtype=np.float64) / temperature
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)
`;

const SOFTMAX_TEST = `import numpy as np

from canonical import softmax as ref_softmax
from nn.softmax import softmax


def test_softmax_matches_reference():
    rng = np.random.default_rng(0)
    z = rng.normal(size=(4, 7))
    np.testing.assert_allclose(softmax(z, 0.7), ref_softmax(z, 0.7), rtol=1e-12)


def test_softmax_large_logits():
    z = np.array([1000.0, 1001.0, 999.0])
    np.testing.assert_allclose(softmax(z), ref_softmax(z), rtol=1e-12)
`;

/** A whole paper, as official latex.txt files are. */
const PAPER = String.raw`\documentclass{article}
\usepackage{amsmath,amssymb}
\newcommand{\R}{\mathbb{R}}
\newcommand{\softmax}[1]{\operatorname{softmax}\left(#1\right)}
\title{Tempered Softmax for Everyone}
\author{Ada Lovelace \\ Analytical Engines \and Charles Babbage}
\begin{document}
\maketitle
\begin{abstract}
We revisit the softmax with a temperature $T > 0$~\cite{bridle1990}.
\end{abstract}
\section{Method}\label{sec:method}
Given logits $z \in \R^{V}$, the tempered distribution is
\begin{equation}\label{eq:softmax}
  p = \softmax{z / T}, \qquad p_i = \frac{\exp(z_i / T)}{\sum_{j} \exp(z_j / T)} .
\end{equation}
As Eq.~\eqref{eq:softmax} overflows for large $z$, subtract $\max_j z_j$ first (see Section~\ref{sec:method}).
\begin{algorithm}
\caption{Stable softmax}
\begin{algorithmic}[1]
\Require logits $z$, temperature $T$
\State $z \gets z / T - \max_j z_j / T$
\State \Return $\exp(z) / \sum_j \exp(z_j)$
\end{algorithmic}
\end{algorithm}
\bibliographystyle{plain}
\bibliography{refs}
\end{document}
`;

const METRICS_INIT = `"""Regression metrics."""
import math


def _mean(xs):
    return sum(xs) / len(xs)


def rmse(pred, target):
    raise NotImplementedError
`;

const METRICS_CANONICAL = `import math


def _mean(xs):
    return sum(xs) / len(xs)


def rmse(pred, target):
    # Eq. (4): sqrt(mean((p - t)^2))
    return math.sqrt(_mean([(p - t) ** 2 for p, t in zip(pred, target)]))
`;

const METRICS_TEST = `import unittest

from canonical import rmse as ref_rmse
from metrics import rmse


class RmseTest(unittest.TestCase):
    def test_rmse_matches_reference(self):
        self.assertAlmostEqual(rmse([1, 2, 3], [1, 2, 5]), ref_rmse([1, 2, 3], [1, 2, 5]))

    def test_rmse_zero(self):
        self.assertEqual(rmse([1.0], [1.0]), 0.0)
`;

/**
 * Write the dataset into a new temporary folder and return its path (the
 * folder that holds annotation_meta.jsonl).
 */
export function writeRecodeHDataset(): string {
  const root = mkdtempSync(join(tmpdir(), "recodeh-dataset-"));
  const meta = [
    {
      index: 1,
      repo_dir_name: "ema-repo",
      target_file_path: "stats/ema.py",
      if_test: true,
      init_content: "",
      // JUnit names, as the official metadata lists them: a parametrised test once per case.
      test_cases: [
        "test_ema_matches_reference",
        "test_ema_clamps_alpha[0.5]",
        "test_ema_clamps_alpha[1.5]",
        "test_debias_matches_reference",
      ],
    },
    {
      index: 2,
      repo_dir_name: "softmax-repo",
      target_file_path: "nn/softmax.py",
      if_test: true,
      init_content: "",
      test_cases: ["test_softmax_matches_reference", "test_softmax_large_logits"],
    },
    {
      index: 3,
      repo_dir_name: "metrics-repo",
      target_file_path: "metrics.py",
      if_test: true,
      init_content: METRICS_INIT,
      test_cases: ["test_rmse_matches_reference", "test_rmse_zero"],
    },
    { index: 4, repo_dir_name: "skipped-repo", target_file_path: "x.py", if_test: false, init_content: "", test_cases: [] },
    { index: 5, repo_dir_name: "broken-repo", target_file_path: "b.py", if_test: true, init_content: "", test_cases: ["test_b"] },
    { index: 6, repo_dir_name: "absent-repo", target_file_path: "absent.py", if_test: true, init_content: "", test_cases: ["test_absent"] },
  ];
  const lines = meta.map((m) => JSON.stringify(m));
  lines.splice(
    4,
    0,
    JSON.stringify({ index: 7, repo_dir_name: "r", target_file_path: "r.py", if_test: "yes", init_content: "", test_cases: [] }),
  );
  write(root, { "annotation_meta.jsonl": `${lines.join("\n")}\n` });
  const a = (i: number) => `annotations/annotation_${i}`;
  write(root, {
    [`${a(1)}/instruction.txt`]:
      "Implement ema(xs, alpha) and debias(values, alpha) in stats/ema.py.\nInputs: a list of floats and alpha in [0, 1].\n",
    [`${a(1)}/latex.txt`]: String.raw`\section{Moving averages}
The average is $m_t = \alpha x_t + (1 - \alpha) m_{t-1}$ with $m_0 = x_0$, and
\[ \hat m_t = \frac{m_t}{1 - (1 - \alpha)^{t+1}} . \]
`,
    [`${a(1)}/canonical.py`]: EMA_CANONICAL,
    [`${a(1)}/test.py`]: EMA_TEST,
    [`${a(1)}/test.sh`]: testSh({ env: "test_1", repo: "ema-repo", dest: "stats/", cd: "stats", timeout: 3 }),
    [`${a(1)}/ema-repo/README.md`]: "# ema\n",
    [`${a(1)}/ema-repo/stats/util.py`]: "def clamp(x, lo, hi):\n    return max(lo, min(hi, x))\n",
    [`${a(1)}/ema-repo/stats/ema.py`]: "# the original implementation, removed by the benchmark\n",
  });
  write(root, {
    [`${a(2)}/instruction.txt`]: "Implement softmax(z, temperature=1.0) in nn/softmax.py, stable for large logits.\n",
    [`${a(2)}/latex.txt`]: PAPER,
    [`${a(2)}/canonical.py`]: SOFTMAX_CANONICAL,
    [`${a(2)}/test.py`]: SOFTMAX_TEST,
    [`${a(2)}/test.sh`]: testSh({ env: "test_2", repo: "softmax-repo", dest: "tests/", cd: "tests", pythonpath: "." }),
    [`${a(2)}/softmax-repo/nn/__init__.py`]: "",
    [`${a(2)}/softmax-repo/nn/softmax.py`]: "",
    [`${a(2)}/softmax-repo/tests/.keep`]: "",
  });
  // A binary file in the repository: left out of the task, and said so.
  mkdirSync(join(root, a(2), "softmax-repo", "data"), { recursive: true });
  writeFileSync(join(root, a(2), "softmax-repo", "data", "weights.bin"), Buffer.from([0, 1, 2, 255, 0]));
  write(root, {
    [`${a(3)}/instruction.txt`]: "Implement rmse(pred, target) in metrics.py; _mean is given.\n",
    [`${a(3)}/latex.txt`]: String.raw`\section{Error}The root mean squared error is $\sqrt{\frac{1}{n}\sum_i (p_i - t_i)^2}$.`,
    [`${a(3)}/canonical.py`]: METRICS_CANONICAL,
    [`${a(3)}/test.py`]: METRICS_TEST,
    [`${a(3)}/test.sh`]: testSh({ env: "test_3", repo: "metrics-repo", dest: "", cd: "" }).replace(/\/"/g, '"'),
    [`${a(3)}/metrics-repo/metrics.py`]: "# original\n",
  });
  write(root, {
    [`${a(5)}/instruction.txt`]: "Broken.\n",
    [`${a(5)}/latex.txt`]: "x",
    [`${a(5)}/test.py`]: "def test_b():\n    pass\n",
    [`${a(5)}/test.sh`]: testSh({ env: "test_5", repo: "broken-repo", dest: "", cd: "." }),
    [`${a(5)}/broken-repo/b.py`]: "",
  });
  write(root, {
    [`${a(6)}/instruction.txt`]: "Implement value() in absent.py.\n",
    [`${a(6)}/latex.txt`]: "A value.",
    [`${a(6)}/canonical.py`]: "def value():\n    return 1\n",
    [`${a(6)}/test.py`]:
      "import recode_absent_module\nfrom canonical import value as ref\nfrom absent import value\n\n\ndef test_absent():\n    assert value() == ref()\n",
    [`${a(6)}/test.sh`]: testSh({ env: "test_6", repo: "absent-repo", dest: ".", cd: "." }),
    [`${a(6)}/absent-repo/absent.py`]: "",
  });
  return root;
}
