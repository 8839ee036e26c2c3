/**
 * Two panes side by side (`row`) or one above the other (`column`) with a
 * separator between them: drag it, or focus it and use the arrow keys, Home
 * and End; Enter or a double click collapses the collapsible pane and brings
 * it back. The size and the collapsed state are kept in this browser per
 * split id (`recode.split.<id>` in localStorage), so the layout is the same
 * after a reload. A collapsed pane stays mounted (hidden), so what it holds
 * (an editor, a scroll position) is kept.
 *
 * (A library such as react-resizable-panels does this too, at 17 KB gzipped:
 * more than the page's first-load budget leaves, docs/benchmarks.md.)
 */
import { type KeyboardEvent, type PointerEvent, type ReactNode, useEffect, useRef, useState } from "react";

/** Props of {@link SplitPane}. */
export interface SplitPaneProps {
  /** Names the split in storage and in `data-split`; unique on the page. */
  id: string;
  direction: "row" | "column";
  /** Size of the first pane when nothing is stored, in percent of the split (0-100). */
  defaultSize: number;
  /** Smallest size of either pane, in pixels (default 120). */
  minPx?: number;
  /** Which pane may collapse (none by default). */
  collapsible?: "first" | "second";
  /** The separator's accessible name, e.g. "Resize the task list". */
  label: string;
  first: ReactNode;
  second: ReactNode;
}

interface SplitState {
  /** First pane's size, percent. */
  size: number;
  collapsed: boolean;
}

const KEY = (id: string) => `recode.split.${id}`;

function load(id: string, defaultSize: number): SplitState {
  try {
    const raw = JSON.parse(localStorage.getItem(KEY(id)) ?? "null") as Partial<SplitState> | null;
    const size = typeof raw?.size === "number" && raw.size > 0 && raw.size < 100 ? raw.size : defaultSize;
    return { size, collapsed: raw?.collapsed === true };
  } catch {
    return { size: defaultSize, collapsed: false };
  }
}

function save(id: string, s: SplitState): void {
  try {
    localStorage.setItem(KEY(id), JSON.stringify(s));
  } catch {
    // kept for this visit
  }
}

/** Collapse or bring back the collapsible pane of the split `id` (e.g. from a keyboard shortcut). */
export function togglePane(id: string): void {
  window.dispatchEvent(new CustomEvent("recode:toggle-pane", { detail: id }));
}

/** A resizable split of two panes; see the module comment. */
export function SplitPane({ id, direction, defaultSize, minPx = 120, collapsible, label, first, second }: SplitPaneProps) {
  const [state, setState] = useState<SplitState>(() => load(id, defaultSize));
  const box = useRef<HTMLDivElement | null>(null);
  const dragging = useRef(false);
  const update = (next: SplitState, persist = true) => {
    setState(next);
    if (persist) save(id, next);
  };
  const toggle = () => {
    if (collapsible) update({ ...state, collapsed: !state.collapsed });
  };
  const toggleRef = useRef(toggle);
  toggleRef.current = toggle;
  useEffect(() => {
    const on = (e: Event) => {
      if ((e as CustomEvent<string>).detail === id) toggleRef.current();
    };
    window.addEventListener("recode:toggle-pane", on);
    return () => window.removeEventListener("recode:toggle-pane", on);
  }, [id]);

  /** The size (percent) that keeps both panes at least `minPx` wide or high. */
  const clamp = (pct: number): number => {
    const el = box.current;
    const total = el ? (direction === "row" ? el.clientWidth : el.clientHeight) : 0;
    const min = total > 0 ? Math.min(45, (100 * minPx) / total) : 5;
    return Math.min(100 - min, Math.max(min, pct));
  };
  const at = (e: PointerEvent): number => {
    const r = (box.current as HTMLDivElement).getBoundingClientRect();
    return clamp(direction === "row" ? (100 * (e.clientX - r.left)) / r.width : (100 * (e.clientY - r.top)) / r.height);
  };
  const onPointerDown = (e: PointerEvent<HTMLDivElement>) => {
    if (e.button !== 0) return;
    dragging.current = true;
    e.currentTarget.setPointerCapture(e.pointerId);
    e.preventDefault();
  };
  const onPointerMove = (e: PointerEvent<HTMLDivElement>) => {
    if (dragging.current) update({ size: at(e), collapsed: false }, false);
  };
  const onPointerUp = (e: PointerEvent<HTMLDivElement>) => {
    if (!dragging.current) return;
    dragging.current = false;
    update({ size: at(e), collapsed: false });
  };
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const step = e.shiftKey ? 10 : 2;
    const back = direction === "row" ? "ArrowLeft" : "ArrowUp";
    const forth = direction === "row" ? "ArrowRight" : "ArrowDown";
    let size: number | null = null;
    if (e.key === back) size = state.size - step;
    else if (e.key === forth) size = state.size + step;
    else if (e.key === "Home") size = 0;
    else if (e.key === "End") size = 100;
    else if (e.key === "Enter") {
      e.preventDefault();
      toggle();
      return;
    }
    if (size === null) return;
    e.preventDefault();
    update({ size: clamp(size), collapsed: false });
  };

  const firstHidden = state.collapsed && collapsible === "first";
  const secondHidden = state.collapsed && collapsible === "second";
  return (
    <div ref={box} className={`split split-${direction}`} data-split={id} data-collapsed={state.collapsed ? collapsible : undefined}>
      <div className="split-pane" hidden={firstHidden} style={secondHidden ? { flex: "1 1 0" } : { flex: `0 0 ${state.size}%` }}>
        {first}
      </div>
      {/* biome-ignore lint/a11y/useSemanticElements: a focusable separator is the ARIA pattern for a splitter (hr cannot take focus or pointer drags) */}
      <div
        className="split-handle"
        role="separator"
        tabIndex={0}
        aria-label={label}
        aria-orientation={direction === "row" ? "vertical" : "horizontal"}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={Math.round(state.collapsed ? (collapsible === "first" ? 0 : 100) : state.size)}
        title={collapsible ? `${label} (drag; double-click or Enter to ${state.collapsed ? "show" : "hide"} the pane)` : `${label} (drag)`}
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onPointerUp={onPointerUp}
        onPointerCancel={() => {
          dragging.current = false;
        }}
        onDoubleClick={toggle}
        onKeyDown={onKeyDown}
      />
      <div className="split-pane" hidden={secondHidden} style={{ flex: "1 1 0" }}>
        {second}
      </div>
    </div>
  );
}
