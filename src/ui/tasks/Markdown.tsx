/** Markdown with $math$ (KaTeX), sanitised: the renderer for instructions and papers. */
import "katex/dist/katex.min.css";
import { memo } from "react";
import ReactMarkdown from "react-markdown";
import rehypeKatex from "rehype-katex";
import rehypeSanitize, { defaultSchema } from "rehype-sanitize";
import remarkMath from "remark-math";

/** Sanitiser schema: the default one, plus the classes remark-math puts on math code nodes. */
const schema = {
  ...defaultSchema,
  attributes: {
    ...defaultSchema.attributes,
    code: [...(defaultSchema.attributes?.code ?? []), ["className", /^language-./, "math-inline", "math-display"]],
  },
};

/**
 * Render Markdown text (untrusted) with math. Memoised: parsing and typesetting
 * run again only when the text changes, not on every run of the tests.
 */
export const Markdown = memo(function Markdown({ text }: { text: string }) {
  return (
    <div className="markdown">
      <ReactMarkdown remarkPlugins={[remarkMath]} rehypePlugins={[[rehypeSanitize, schema], rehypeKatex]}>
        {text}
      </ReactMarkdown>
    </div>
  );
});
