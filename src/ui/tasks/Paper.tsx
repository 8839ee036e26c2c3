/**
 * The Paper tab: the task's LaTeX rendered with unified-latex and KaTeX
 * (core/latex-html.ts), sanitised. The converter is loaded when a paper is
 * first opened, and runs after the tab has painted (a whole paper takes a
 * moment); rendered papers are kept for the session.
 */
import "katex/dist/katex.min.css";
import type { Root } from "hast";
import { toJsxRuntime } from "hast-util-to-jsx-runtime";
import { Fragment, memo, useEffect, useState } from "react";
import { jsx, jsxs } from "react/jsx-runtime";

/** Rendered papers by text, most recent last (a few; a paper is re-rendered only when its text changes). */
const rendered = new Map<string, Root>();

async function render(tex: string): Promise<Root> {
  const hit = rendered.get(tex);
  if (hit) return hit;
  const { renderPaper } = await import("../../core/latex-html");
  const tree = renderPaper(tex);
  rendered.set(tex, tree);
  if (rendered.size > 6) rendered.delete(rendered.keys().next().value as string);
  return tree;
}

/** The paper `tex` (LaTeX, a method section or a whole paper) as the reader sees it. */
export const Paper = memo(function Paper({ tex }: { tex: string }) {
  const [tree, setTree] = useState<Root | null>(() => rendered.get(tex) ?? null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let alive = true;
    setError(null);
    setTree(rendered.get(tex) ?? null);
    const timer = setTimeout(() => {
      render(tex).then(
        (t) => alive && setTree(t),
        (e: Error) => alive && setError(e.message),
      );
    }, 0);
    return () => {
      alive = false;
      clearTimeout(timer);
    };
  }, [tex]);
  if (error) {
    return (
      <p className="panel error" role="alert">
        The paper could not be shown: {error}
      </p>
    );
  }
  if (!tree) return <p className="muted">Rendering the paper…</p>;
  return <div className="markdown paper">{toJsxRuntime(tree, { Fragment, jsx, jsxs })}</div>;
});
