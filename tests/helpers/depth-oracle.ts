import { wrapPublicFunctions } from "./wrap-public";

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
_BASE = [None]
${wrapPublicFunctions(`            r = _remaining()
            if _BASE[0] is None or r > _BASE[0]:
                _BASE[0] = r
            if r < _BASE[0]:
                raise ValueError("called deeper than the test's own calls")`)}`;
}
