/**
 * A `<dialog>` element shown modal: the one place the page's dialogs (the
 * settings, a student's work, a class's work, a task pack's import, a results
 * cell's episodes) open and close theirs.
 */
import { type RefObject, useEffect, useRef } from "react";

/** What `useModalDialog` gives: the ref to put on the `<dialog>`, and `close` (as Escape closes it, so its `onClose` runs). */
export interface ModalDialog {
  ref: RefObject<HTMLDialogElement | null>;
  close: () => void;
}

/**
 * Shows the dialog modal whenever `shown` becomes truthy (default: as soon as
 * it is mounted). A dialog leaves the screen when it closes (its `onClose` is
 * where its owner forgets it) or when its element leaves the document.
 */
export function useModalDialog(shown: unknown = true): ModalDialog {
  const ref = useRef<HTMLDialogElement | null>(null);
  useEffect(() => {
    const d = ref.current;
    if (shown && d && !d.open) d.showModal();
  }, [shown]);
  return { ref, close: () => ref.current?.close() };
}
