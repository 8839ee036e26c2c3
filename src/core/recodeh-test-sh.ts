/**
 * Reading an official RECODE-H `test.sh` the way the official runner
 * (agent/clean_test_runner.py) reads it: line by line, blank lines and `#`
 * comments skipped, and only these lines understood:
 *
 * - `conda activate <env>`: the environment the tests ran in;
 *
 * (`${SCRIPT_DIR}` and `$SCRIPT_DIR` alike, and the same for `TARGET_DIR`, the
 * words quoted or not, and `|| exit` with a status or none.)
 *
 * - `TARGET_DIR="${SCRIPT_DIR}/<repo>"`: the repository folder;
 * - `cp "${SCRIPT_DIR}/<file>" "${TARGET_DIR}/<dir>"`: where canonical.py and
 *   test.py are placed (copies of other files are ignored);
 * - `cd "${TARGET_DIR}/<dir>" || exit`: the folder pytest runs in;
 * - `PYTHONPATH="${TARGET_DIR}/<dir>" pytest ...`: the Python root, when set
 *   (else the repository folder); read for that alone: a `--timeout` on this
 *   line is not read, as the official runner does not read it;
 * - a line running pytest with `--junitxml=...` and, optionally,
 *   `--timeout=N` or `--timeout N`: the per-test time limit.
 *
 * Everything else (the removal of the copies, `echo`s, `set -e`) is ignored,
 * as the official runner ignores it. Platform-free.
 */

/** What a test.sh says. Folders are relative to the repository (`.` for the repository itself). */
export interface TestShSpec {
  /** `conda activate` environment, or null when the script names none. */
  condaEnv: string | null;
  /** The repository folder name (`TARGET_DIR`). */
  targetDir: string;
  /** Where test.py is copied. */
  testDir: string;
  /** Where canonical.py is copied. */
  canonicalDir: string;
  /** The folder pytest runs in (`cd`). */
  cwd: string;
  /** PYTHONPATH folders (the `PYTHONPATH=` prefix of the pytest line, else the repository). */
  pythonpath: string[];
  /** Per-test time limit in seconds (`--timeout`), or null. */
  timeoutS: number | null;
}

/** A test.sh that cannot be read as the official runner reads it: which line (when one is to blame) and what. */
export class TestShError extends Error {
  constructor(
    readonly problem: string,
    readonly line: number | null = null,
  ) {
    super(line === null ? problem : `line ${line}: ${problem}`);
    this.name = "TestShError";
  }
}

// The script's variables as the shell takes them: `${SCRIPT_DIR}` or `$SCRIPT_DIR`, the word quoted or not.
const SD = String.raw`"?\$(?:\{SCRIPT_DIR\}|SCRIPT_DIR)`;
const TD = String.raw`"?\$(?:\{TARGET_DIR\}|TARGET_DIR)`;
const CONDA = /^conda\s+activate\s+([^\s#]+)\s*$/;
const TARGET = new RegExp(String.raw`^TARGET_DIR\s*=\s*${SD}\/([^"\s]+)"?\s*$`);
const CD = new RegExp(String.raw`^cd\s+${TD}(?:\/([^"\s]*))?"?\s*(?:\|\|\s*exit(?:\s+\d+)?\s*)?$`);
const CP = new RegExp(String.raw`^cp\s+${SD}\/([^"\s]+)"?\s+${TD}(?:\/([^"\s]*))?"?\s*$`);
const PYTHONPATH = new RegExp(String.raw`^PYTHONPATH\s*=\s*${TD}(?:\/([^"\s]*))?"?\s+(?:python3?\s+-m\s+)?pytest\b`);
const TIMEOUT = /--timeout(?:=|\s+)(\d+)/;

/**
 * A folder of the script, relative to `${TARGET_DIR}`, in task.json form:
 * no leading or trailing slashes, `.` parts dropped, `.` for the repository.
 * @throws TestShError for a path that leaves the repository or is absolute.
 */
function folder(raw: string | undefined, line: number, what: string): string {
  const parts = (raw ?? "").split("/").filter((p) => p !== "" && p !== ".");
  if (parts.some((p) => p === ".." || p.includes("$") || p.includes("\\"))) {
    throw new TestShError(`${what} "${raw}" is not a folder inside the repository`, line);
  }
  return parts.length === 0 ? "." : parts.join("/");
}

/**
 * Read a test.sh. Requires, as the official runner does, the repository
 * (`TARGET_DIR`) and the `cd`; requires too the copies of canonical.py and
 * test.py and a pytest line (without them there is nothing to run). A copy
 * whose destination ends in the file's own name (`.../canonical.py`) places
 * the file there.
 * @throws TestShError naming the line or the missing part.
 */
export function parseTestSh(text: string): TestShSpec {
  let condaEnv: string | null = null;
  let targetDir: string | null = null;
  let cwd: string | null = null;
  let pythonpath: string | null = null;
  let testDir: string | null = null;
  let canonicalDir: string | null = null;
  let pytestLine = false;
  let timeoutS: number | null = null;
  /** The first line that looks like a part the script needs but is not in a form read here. */
  const unread: { target?: { n: number; line: string }; cd?: { n: number; line: string } } = {};
  const seen = (u: { n: number; line: string } | undefined) =>
    u ? ` (line ${u.n}, \`${u.line.slice(0, 120)}\`, is not in that form)` : "";
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const n = i + 1;
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    let m = CONDA.exec(line);
    if (m) {
      condaEnv = m[1] as string;
      continue;
    }
    m = TARGET.exec(line);
    if (!m && /^TARGET_DIR\s*=/.test(line)) unread.target ??= { n, line };
    if (m) {
      const name = (m[1] as string).replace(/\/+$/, "");
      if (name === "" || name.includes("/") || name === "." || name === "..")
        throw new TestShError(`TARGET_DIR "${m[1]}" is not a folder beside test.sh`, n);
      targetDir = name;
      continue;
    }
    m = CD.exec(line);
    if (!m && /^cd\s/.test(line)) unread.cd ??= { n, line };
    if (m) {
      cwd = folder(m[1], n, "cd");
      continue;
    }
    m = CP.exec(line);
    if (m) {
      const file = (m[1] as string).split("/").pop() as string;
      let dest = m[2] ?? "";
      if (dest.split("/").pop() === file) dest = dest.slice(0, -file.length);
      if (file === "canonical.py") canonicalDir = folder(dest, n, "the copy of canonical.py to");
      else if (file === "test.py") testDir = folder(dest, n, "the copy of test.py to");
      continue;
    }
    if (/(?:^|[\s/=])pytest\b/.test(line) && !line.startsWith("rm ")) {
      pytestLine = true;
      m = PYTHONPATH.exec(line);
      if (m) {
        // The official runner takes a PYTHONPATH= line for its folder alone: a --timeout on it is not read.
        pythonpath = folder(m[1], n, "PYTHONPATH");
        continue;
      }
      const t = TIMEOUT.exec(line);
      if (t && timeoutS === null) timeoutS = Number(t[1]);
    }
  }
  // The shell's variables, as test.sh writes them.
  const S = `$${"{SCRIPT_DIR}"}`;
  const T = `$${"{TARGET_DIR}"}`;
  if (targetDir === null) throw new TestShError(`no TARGET_DIR="${S}/<repository>" line${seen(unread.target)}`);
  if (cwd === null) throw new TestShError(`no cd "${T}/<folder>" || exit line${seen(unread.cd)}`);
  if (canonicalDir === null) throw new TestShError(`no cp "${S}/canonical.py" "${T}/<folder>" line`);
  if (testDir === null) throw new TestShError(`no cp "${S}/test.py" "${T}/<folder>" line`);
  if (!pytestLine) throw new TestShError("no line runs pytest");
  return {
    condaEnv,
    targetDir,
    testDir,
    canonicalDir,
    cwd,
    pythonpath: [pythonpath ?? "."],
    timeoutS: timeoutS !== null && timeoutS > 0 ? timeoutS : null,
  };
}
