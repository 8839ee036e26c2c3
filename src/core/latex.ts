/**
 * Converts the LaTeX subset used in task papers (paper.tex) to Markdown with
 * `$..$` / `$$..$$` math, for the page's Markdown renderer (remark-math +
 * KaTeX). Supported: \section, \subsection, \subsubsection, \paragraph,
 * \textbf, \emph, \textit, \texttt, \cite (and \citep, \citet) -> [key],
 * \url, \href, inline $..$ and \(..\), display \[..\] and $$..$$, equation(*),
 * align(*) (as aligned), itemize/enumerate with \item, verbatim/lstlisting as
 * code, `%` comments, `~`, escaped specials and TeX quotes. Anything else
 * passes through as text; unknown environments keep their content.
 */

const PH = "\uE000M";

function findClosingBrace(s: string, open: number): number {
  let depth = 0;
  for (let i = open; i < s.length; i++) {
    const c = s[i];
    if (c === "\\") {
      i++;
      continue;
    }
    if (c === "{") depth++;
    else if (c === "}") {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

/** Drop `%` comments (not `\%`); a line that was only a comment disappears. */
export function stripComments(tex: string): string {
  const out: string[] = [];
  for (const line of tex.split("\n")) {
    let cut = -1;
    for (let i = 0; i < line.length; i++) {
      if (line[i] === "\\") {
        i++;
        continue;
      }
      if (line[i] === "%") {
        cut = i;
        break;
      }
    }
    if (cut < 0) out.push(line);
    else if (line.slice(0, cut).trim() !== "") out.push(line.slice(0, cut).trimEnd());
  }
  return out.join("\n");
}

/** Replace `\name{arg}` (balanced braces, optional `[..]` option skipped) using `fn`. */
function replaceCommand(s: string, names: string[], fn: (arg: string, name: string) => string): string {
  const re = new RegExp(`\\\\(${names.join("|")})\\*?(?![A-Za-z])\\s*(\\[[^\\]]*\\])?\\s*\\{`, "g");
  let out = "";
  let last = 0;
  for (let m = re.exec(s); m; m = re.exec(s)) {
    const open = m.index + m[0].length - 1;
    const close = findClosingBrace(s, open);
    if (close < 0) break;
    out += s.slice(last, m.index) + fn(s.slice(open + 1, close), m[1] as string);
    last = close + 1;
    re.lastIndex = close + 1;
  }
  return out + s.slice(last);
}

function cleanMath(m: string): string {
  return m
    .replace(/\\label\{[^}]*\}/g, "")
    .replace(/\\(nonumber|notag)\b/g, "")
    .trim();
}

/** Convert inline text (no math inside: math is replaced by placeholders first). */
function convertText(s: string): string {
  let t = s;
  t = replaceCommand(t, ["href"], (arg) => `\uE001HREF${arg}\uE001`);
  t = t.replace(/\uE001HREF([^\uE001]*)\uE001\s*\{([^}]*)\}/g, (_m, url: string, text: string) => `[${text}](${url})`);
  t = replaceCommand(t, ["url"], (arg) => `<${arg}>`);
  t = replaceCommand(
    t,
    ["cite", "citep", "citet", "citealp"],
    (arg) =>
      `[${arg
        .split(",")
        .map((k) => k.trim())
        .join(", ")}]`,
  );
  t = replaceCommand(t, ["ref", "eqref", "cref", "Cref"], (arg) => `(${arg})`);
  t = replaceCommand(t, ["label"], () => "");
  t = replaceCommand(t, ["footnote"], (arg) => ` (${convertText(arg)})`);
  // Inner-first so nesting works: repeat until stable.
  for (let i = 0; i < 5; i++) {
    const before = t;
    t = replaceCommand(t, ["texttt"], (arg) => `\`${arg.replace(/\\_/g, "_").replace(/\\([&%#$])/g, "$1")}\``);
    t = replaceCommand(t, ["textbf"], (arg) => `**${convertText(arg)}**`);
    t = replaceCommand(t, ["emph", "textit"], (arg) => `*${convertText(arg)}*`);
    if (t === before) break;
  }
  t = t
    .replace(/``/g, "\u201c")
    .replace(/''/g, "\u201d")
    .replace(/(?<!\\)~/g, " ")
    .replace(/\\\\/g, "  \n")
    .replace(/\\([%&#{}$])/g, "$1")
    .replace(/\\_/g, "\\_")
    .replace(/\\(ldots|dots)\b\s?/g, "\u2026")
    .replace(/---/g, "\u2014")
    .replace(/--/g, "\u2013")
    .replace(/\\(noindent|medskip|bigskip|smallskip|centering|par)\b\s?/g, "");
  return t;
}

/**
 * Convert paper LaTeX to Markdown. Never throws: unbalanced input passes
 * through as text.
 */
export function latexToMarkdown(tex: string): string {
  let s = stripComments(tex.replace(/\r\n?/g, "\n"));
  const body = /\\begin\{document\}([\s\S]*?)\\end\{document\}/.exec(s);
  if (body) s = body[1] as string;

  const math: string[] = [];
  const keep = (m: string) => {
    math.push(m);
    return `${PH}${math.length - 1}\uE000`;
  };
  const code: string[] = [];
  // Verbatim first: nothing inside is converted.
  s = s.replace(/\\begin\{(verbatim|lstlisting|minted)\}(?:\[[^\]]*\]|\{[^}]*\})*\n?([\s\S]*?)\\end\{\1\}/g, (_m, _env, inner: string) => {
    code.push(inner.replace(/\n$/, ""));
    return `\n\n\uE000C${code.length - 1}\uE000\n\n`;
  });
  // Display math.
  s = s.replace(
    /\\begin\{(align|align\*|aligned|gather|gather\*|multline|multline\*|eqnarray|eqnarray\*)\}([\s\S]*?)\\end\{\1\}/g,
    (_m, env: string, inner: string) => {
      const e = env.replace("*", "");
      const wrapped =
        e === "gather" || e === "multline"
          ? `\\begin{gathered}\n${cleanMath(inner)}\n\\end{gathered}`
          : `\\begin{aligned}\n${cleanMath(inner)}\n\\end{aligned}`;
      return `\n\n${keep(`$$\n${wrapped}\n$$`)}\n\n`;
    },
  );
  s = s.replace(
    /\\begin\{(equation\*?|displaymath|math)\}([\s\S]*?)\\end\{\1\}/g,
    (_m, _env, inner: string) => `\n\n${keep(`$$\n${cleanMath(inner)}\n$$`)}\n\n`,
  );
  s = s.replace(/\\\[([\s\S]*?)\\\]/g, (_m, inner: string) => `\n\n${keep(`$$\n${cleanMath(inner)}\n$$`)}\n\n`);
  s = s.replace(/\$\$([\s\S]+?)\$\$/g, (_m, inner: string) => `\n\n${keep(`$$\n${cleanMath(inner)}\n$$`)}\n\n`);
  s = s.replace(/\\\(([\s\S]*?)\\\)/g, (_m, inner: string) => keep(`$${inner.trim()}$`));
  s = s.replace(/(?<!\\)\$((?:\\.|[^$\\])+?)\$/g, (_m, inner: string) => keep(`$${inner.replace(/\s*\n\s*/g, " ").trim()}$`));

  // Headings.
  s = replaceCommand(s, ["section"], (a) => `\n\n## ${convertText(a).trim()}\n\n`);
  s = replaceCommand(s, ["subsection"], (a) => `\n\n### ${convertText(a).trim()}\n\n`);
  s = replaceCommand(s, ["subsubsection"], (a) => `\n\n#### ${convertText(a).trim()}\n\n`);
  s = replaceCommand(s, ["paragraph"], (a) => `\n\n**${convertText(a).trim()}**`);
  s = replaceCommand(s, ["title"], (a) => `\n\n# ${convertText(a).trim()}\n\n`);
  s = replaceCommand(s, ["caption"], (a) => `\n\n*${convertText(a).trim()}*\n\n`);

  // Lists and other environments, line by line.
  const lines: string[] = [];
  const stack: ("ul" | "ol")[] = [];
  const listEnvRe = /\\(begin|end)\{(itemize|enumerate|description)\}/g;
  for (const raw of s.replace(listEnvRe, "\n$&\n").split("\n")) {
    const line = raw.trim();
    const env = /^\\(begin|end)\{(itemize|enumerate|description)\}$/.exec(line);
    if (env) {
      if (env[1] === "begin") stack.push(env[2] === "enumerate" ? "ol" : "ul");
      else stack.pop();
      if (stack.length === 0) lines.push("");
      continue;
    }
    if (/^\\(begin|end)\{[A-Za-z*]+\}(\[[^\]]*\])?(\{[^}]*\})?$/.test(line)) {
      lines.push("");
      continue;
    }
    const indent = "  ".repeat(Math.max(0, stack.length - 1));
    const item = /^\\item(?:\s*\[([^\]]*)\])?\s*(.*)$/.exec(line);
    if (item && stack.length > 0) {
      const kind = stack[stack.length - 1];
      const bullet = kind === "ol" ? "1." : "-";
      const label = item[1] ? `**${convertText(item[1])}** ` : "";
      lines.push(`${indent}${bullet} ${label}${convertText(item[2] as string)}`);
      continue;
    }
    if (stack.length > 0 && line !== "") {
      // Continuation of an item: indent under it so Markdown keeps it in the item.
      lines.push(`${indent}   ${convertText(line)}`);
      continue;
    }
    lines.push(convertText(line));
  }
  let md = lines.join("\n");
  md = md.replace(/\uE000C(\d+)\uE000/g, (_m, i: string) => `\`\`\`\n${code[Number(i)]}\n\`\`\``);
  md = md.replace(/\uE000M(\d+)\uE000/g, (_m, i: string) => math[Number(i)] as string);
  md = md.replace(/\n{3,}/g, "\n\n").trim();
  return `${md}\n`;
}
