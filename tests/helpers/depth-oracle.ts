/**
 * Code under test that tells a call through `recode_check.outcome` from one the test makes itself by how
 * deep it is in the stack: one frame deeper (outcome's own), which recursing until `RecursionError`
 * measures. It raises whenever it is deeper than the shallowest call it has seen.
 */

/** `stub` with each public function wrapped: a call deeper than the shallowest seen raises ValueError. */
export function depthOracleAttack(stub: string): string {
  return `${stub}

import functools as _ft
def _remaining():
    n = [0]
    def rec():
        n[0] += 1
        rec()
    try:
        rec()
    except RecursionError:
        pass
    return n[0]
_BASE, _DEPTH = [None], [0]
def _oracle(f):
    @_ft.wraps(f)
    def w(*a, **k):
        if _DEPTH[0] == 0:
            r = _remaining()
            if _BASE[0] is None or r > _BASE[0]:
                _BASE[0] = r
            if r < _BASE[0]:
                raise ValueError("called deeper than the test's own calls")
        _DEPTH[0] += 1
        try:
            return f(*a, **k)
        finally:
            _DEPTH[0] -= 1
    return w
for _n, _v in list(globals().items()):
    if type(_v).__name__ == "function" and not _n.startswith("_") and getattr(_v, "__module__", None) == __name__:
        globals()[_n] = _oracle(_v)
`;
}
