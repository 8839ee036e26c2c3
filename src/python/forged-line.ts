/**
 * What stands in the event stream for a line the harness did not write: put
 * there by the channel's verifier (event-auth.ts), read by the assembler as
 * "not trusted". Apart from the verifier, so that the host's reader does not
 * carry the verifier's hashing.
 */
export const FORGED_LINE = '{"type": "forged"}';
