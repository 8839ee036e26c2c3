/** Markdown with $math$ (KaTeX), sanitised: the renderer for instructions, papers and feedback. */
import "katex/dist/katex.min.css";
import { memo } from "react";
import ReactMarkdown from "react-markdown";
import rehypeKatex from "rehype-katex";
import rehypeSanitize, { defaultSchema } from "rehype-sanitize";
import remarkMath from "remark-math";

/**
 * Sanitiser schema: the default one, with no image (an image is a request the page would make to any address the
 * text names: feedback quotes what the code under test wrote), plus the classes remark-math puts on math code nodes.
 */
const schema = {
  ...defaultSchema,
  tagNames: (defaultSchema.tagNames ?? []).filter((t) => t !== "img"),
  attributes: {
    ...defaultSchema.attributes,
    code: [...(defaultSchema.attributes?.code ?? []), ["className", /^language-./, "math-inline", "math-display"]],
  },
};

/** The same with no link either: for text that quotes the code under test (a link would send the reader anywhere). */
const schemaWithoutLinks = { ...schema, tagNames: schema.tagNames.filter((t) => t !== "a") };

/**
 * Render Markdown text (untrusted) with math. Memoised: parsing and typesetting
 * run again only when the text changes, not on every run of the tests.
 * `links`: false to show a link's text alone (feedback, which quotes the code under test). Images are never
 * shown.
 */
export const Markdown = memo(function Markdown({ text, links = true }: { text: string; links?: boolean }) {
  return (
    <div className="markdown">
      <ReactMarkdown remarkPlugins={[remarkMath]} rehypePlugins={[[rehypeSanitize, links ? schema : schemaWithoutLinks], rehypeKatex]}>
        {text}
      </ReactMarkdown>
    </div>
  );
});
