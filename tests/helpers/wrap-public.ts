/**
 * The tail most oracle attacks share: every public function of the candidate module wrapped so that its
 * outermost call (not the calls it makes of the module's other functions) first runs a decision of the
 * attack's, which may raise or return in the function's place.
 */

/**
 * Python text that wraps the module's public functions. `decide`: statements run at the outermost call, in
 * a function of `f` (the wrapped function), `a` and `k` (its arguments), indented by eight spaces; the text
 * above it must import `functools as _ft`.
 */
export function wrapPublicFunctions(decide: string): string {
  return `_DEPTH = [0]
def _oracle(f):
    @_ft.wraps(f)
    def w(*a, **k):
        if _DEPTH[0] == 0:
${decide}
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
