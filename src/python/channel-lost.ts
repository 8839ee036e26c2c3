/**
 * An interpreter that ended because its event channel was taken from it: code under test pointed the channel's
 * descriptor elsewhere, and the harness (harness.py `event_writer`) ended rather than write its events there.
 * Node and the worker only (not the page's first bundle).
 */

/** The exit status of such an interpreter (harness.py `CHANNEL_LOST_EXIT`). */
export const CHANNEL_LOST_EXIT = 75;

/** Why an interpreter that exited with `code` died, for the run's incident ("exit code 3"). */
export function exitReason(code: number | null): string {
  return code === CHANNEL_LOST_EXIT
    ? `exit code ${CHANNEL_LOST_EXIT}: the code under test took its event channel (pointed the descriptor elsewhere, and the harness stopped), or exited with that code itself`
    : `exit code ${code}`;
}
