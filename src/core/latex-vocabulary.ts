/**
 * The LaTeX commands and environments the paper renderer (latex-html.ts)
 * knows by name: what it drops, what becomes a citation or a reference, what
 * the parser hands to HTML as is, accents, plain-text wrappers, algorithm
 * keywords, theorem-like and display-math environments, argument signatures
 * of commands the parser may not know, and verbatim-like environments.
 */

/** Commands that only lay out the page, or that hold nothing for a reader of the method: dropped. */
export const DROPPED = new Set([
  "label",
  "index",
  "nonumber",
  "notag",
  "centering",
  "raggedright",
  "raggedleft",
  "newpage",
  "clearpage",
  "cleardoublepage",
  "pagebreak",
  "nopagebreak",
  "vspace",
  "hspace",
  "vfill",
  "hfill",
  "bibliographystyle",
  "bibliography",
  "printbibliography",
  "tableofcontents",
  "listoffigures",
  "listoftables",
  "addcontentsline",
  "phantomsection",
  "setlength",
  "addtolength",
  "setcounter",
  "addtocounter",
  "thispagestyle",
  "pagestyle",
  "thanks",
  "footnotemark",
  "protect",
  "xspace",
  "ignorespaces",
  "relax",
  "nocite",
  "looseness",
  "small",
  "footnotesize",
  "normalsize",
  "hline",
  "toprule",
  "midrule",
  "bottomrule",
  "cline",
  "cmidrule",
  "noalign",
  "date",
  "title",
  "author",
  "affiliation",
  "institute",
  "email",
  "keywords",
  "usepackage",
  "documentclass",
  "DeclareMathOperator",
  "def",
  "newtheorem",
  "theoremstyle",
  "graphicspath",
  "hypersetup",
  "definecolor",
  "captionsetup",
  "newlength",
  "newcounter",
  "makeatletter",
  "makeatother",
  "today",
  "indent",
  "noindent",
  "hrule",
  "vrule",
  "linebreak",
  "strut",
  "vskip",
  "hskip",
  "kern",
  "vspace*",
]);

/**
 * Commands that stand for a word or a symbol (abbreviation macros papers define or take from a package, text
 * symbols): written out. A paper's own definition of one wins (its definitions are expanded first).
 */
export const TEXT_SYMBOLS: Record<string, string> = {
  eg: "e.g.",
  Eg: "E.g.",
  ie: "i.e.",
  Ie: "I.e.",
  etal: "et al.",
  cf: "cf.",
  Cf: "Cf.",
  wrt: "w.r.t.",
  vs: "vs.",
  resp: "resp.",
  etc: "etc.",
  iid: "i.i.d.",
  checkmark: "✓",
  cmark: "✓",
  xmark: "✗",
  LaTeX: "LaTeX",
  TeX: "TeX",
  BibTeX: "BibTeX",
  AA: "Å",
  aa: "å",
  dag: "†",
  ddag: "‡",
  textgreater: ">",
  textless: "<",
  textbar: "|",
  textbackslash: "\\",
  textunderscore: "_",
  textasciicircum: "^",
  textdegree: "°",
  textpm: "±",
  texttimes: "×",
  textregistered: "®",
  texttrademark: "™",
  textellipsis: "…",
  cdots: "⋯",
  P: "¶",
};

/** Spacing commands followed by a length (`\vskip 2pt`, `\kern-1em`): dropped with the length. */
export const SPACING_WITH_LENGTH = new Set(["vskip", "hskip", "kern"]);

export const CITE = new Set([
  "cite",
  "citep",
  "citet",
  "citealp",
  "citealt",
  "citeauthor",
  "citeyear",
  "citeyearpar",
  "parencite",
  "textcite",
  "autocite",
  "footcite",
  "citenum",
]);
export const REF = new Set(["ref", "eqref", "cref", "Cref", "autoref", "pageref", "nameref", "vref", "Eqref"]);

/** Commands unified-latex-to-hast converts itself (with their arguments). */
export const TO_HAST = new Set([
  "emph",
  "textrm",
  "textsf",
  "texttt",
  "textsl",
  "textit",
  "textbf",
  "sout",
  "textsuperscript",
  "textsubscript",
  "underline",
  "mbox",
  "phantom",
  "part",
  "chapter",
  "section",
  "subsection",
  "subsubsection",
  "paragraph",
  "subparagraph",
  "url",
  "href",
  "hyperref",
  "\\",
  "textcolor",
  "textsize",
  "makebox",
  "item",
  "color",
]);

/** Accents (`\'{e}`, `\c{c}`, ...): left to the converter's ligatures. */
export const ACCENTS = new Set(["'", "`", "^", '"', "~", "=", ".", "c", "v", "u", "H", "k", "r", "d", "b", "t"]);

/** Text-style commands that the converter does not know: their content is kept as is. */
export const PLAIN_TEXT = new Set([
  "textsc",
  "textnormal",
  "textup",
  "textmd",
  "text",
  "textrm",
  "mbox",
  "hbox",
  "fbox",
  "framebox",
  "uppercase",
]);

/** Algorithm keywords (algorithmic / algpseudocode), shown in bold at the start of a line. */
export const ALGORITHM_KEYWORDS: Record<string, string> = {
  State: "",
  STATE: "",
  Statex: "",
  Require: "Require:",
  REQUIRE: "Require:",
  Ensure: "Ensure:",
  ENSURE: "Ensure:",
  Input: "Input:",
  Output: "Output:",
  KwIn: "Input:",
  KwOut: "Output:",
  KwData: "Data:",
  KwResult: "Result:",
  Return: "return",
  RETURN: "return",
  If: "if",
  IF: "if",
  ElsIf: "else if",
  ELSIF: "else if",
  Else: "else",
  ELSE: "else",
  EndIf: "end if",
  ENDIF: "end if",
  For: "for",
  FOR: "for",
  ForAll: "for all",
  FORALL: "for all",
  EndFor: "end for",
  ENDFOR: "end for",
  While: "while",
  WHILE: "while",
  EndWhile: "end while",
  ENDWHILE: "end while",
  Repeat: "repeat",
  REPEAT: "repeat",
  Until: "until",
  UNTIL: "until",
  Loop: "loop",
  EndLoop: "end loop",
  Function: "function",
  EndFunction: "end function",
  Procedure: "procedure",
  EndProcedure: "end procedure",
  Comment: "▷",
  COMMENT: "▷",
};

/**
 * Algorithm words that stand inside a line (algorithmic's `\TO`, `\AND`, `\TRUE`; algorithm2e's `\KwTo`), shown in
 * bold where they stand.
 */
export const ALGORITHM_WORDS: Record<string, string> = {
  TO: "to",
  AND: "and",
  OR: "or",
  XOR: "xor",
  NOT: "not",
  TRUE: "true",
  FALSE: "false",
  KwTo: "to",
  KwTrue: "true",
  KwFalse: "false",
};

/**
 * Argument signatures (xparse style) of environments whose arguments are placement, size or numbering, not
 * text: the floats' placement (`\begin{table*}[t]`), wrapfig's and subcaption's placement and width
 * (`\begin{wrapfigure}{r}{0.5\textwidth}`), a minipage's. Read as arguments, they are not left in the text.
 */
export const ENVIRONMENT_SIGNATURES: Record<string, string> = Object.fromEntries([
  // (algorithmic's option is its line numbering, `\begin{algorithmic}[1]`.)
  ...["figure", "table", "algorithm", "algorithmic", "algorithm2e", "sidewaysfigure", "sidewaystable", "floatingfigure", "listing"].flatMap(
    (n) => [
      [n, "o"],
      [`${n}*`, "o"],
    ],
  ),
  ["subfigure", "o m"],
  ["subtable", "o m"],
  ["wrapfigure", "o m o m"],
  ["wraptable", "o m o m"],
  ["minipage", "o o o m"],
]);

/** Theorem-like environments, shown with their name in bold. */
export const THEOREMS: Record<string, string> = {
  theorem: "Theorem",
  lemma: "Lemma",
  proposition: "Proposition",
  corollary: "Corollary",
  definition: "Definition",
  remark: "Remark",
  example: "Example",
  assumption: "Assumption",
  claim: "Claim",
  conjecture: "Conjecture",
  observation: "Observation",
  proof: "Proof",
};

/** Display-math environments, and the KaTeX environment their body is set in (null: the body alone). */
export const DISPLAY_MATH: Record<string, { env: string | null; arg?: string }> = {
  equation: { env: null },
  "equation*": { env: null },
  displaymath: { env: null },
  align: { env: "aligned" },
  "align*": { env: "aligned" },
  flalign: { env: "aligned" },
  "flalign*": { env: "aligned" },
  alignat: { env: "alignedat" },
  "alignat*": { env: "alignedat" },
  gather: { env: "gathered" },
  "gather*": { env: "gathered" },
  multline: { env: "gathered" },
  "multline*": { env: "gathered" },
  eqnarray: { env: "array", arg: "{rcl}" },
  "eqnarray*": { env: "array", arg: "{rcl}" },
};

/**
 * Argument signatures (xparse style) of the commands handled here that the
 * parser may not know (natbib, cleveref, algorithmicx, ...), so that their
 * arguments are read as arguments and not left in the text.
 */
export const SIGNATURES: Record<string, { signature: string }> = Object.fromEntries([
  ...[...CITE].map((n) => [n, { signature: "s o o m" }]),
  ...[...REF].map((n) => [n, { signature: "s m" }]),
  ...["label", "index", "bibliographystyle", "bibliography", "thispagestyle", "pagestyle", "thanks", "date", "email", "keywords"].map(
    (n) => [n, { signature: "m" }],
  ),
  ...["affiliation", "institute", "theoremstyle", "graphicspath", "hypersetup", "newlength", "nocite"].map((n) => [
    n,
    { signature: "o m" },
  ]),
  ...["setlength", "addtolength", "setcounter", "addtocounter"].map((n) => [n, { signature: "m m" }]),
  ["addcontentsline", { signature: "m m m" }],
  ["definecolor", { signature: "m m m" }],
  ["captionsetup", { signature: "o m" }],
  ["newcounter", { signature: "m o" }],
  ["newtheorem", { signature: "s m o m o" }],
  ["cmidrule", { signature: "o d() m" }],
  ["caption", { signature: "s o m" }],
  ["subcaption", { signature: "s o m" }],
  ["footnote", { signature: "o m" }],
  ["ensuremath", { signature: "m" }],
  // (unified-latex-to-hast converts these, but its parser does not read their argument.)
  ...["sout", "textsuperscript", "textsubscript", "ding"].map((n) => [n, { signature: "m" }]),
  ["multirow", { signature: "o m o m o m" }],
  ...["nicefrac", "sfrac"].map((n) => [n, { signature: "o m m" }]),
  ["enquote", { signature: "s m" }],
  ["texorpdfstring", { signature: "m m" }],
  ...[...PLAIN_TEXT].map((n) => [n, { signature: "m" }]),
  ...["If", "IF", "ElsIf", "ELSIF", "For", "FOR", "ForAll", "FORALL", "While", "WHILE", "Until", "UNTIL", "Comment", "COMMENT"].map((n) => [
    n,
    { signature: "m" },
  ]),
  ...["Function", "Procedure"].map((n) => [n, { signature: "m m" }]),
  ...["KwIn", "KwOut", "KwData", "KwResult"].map((n) => [n, { signature: "m" }]),
]);

/** Verbatim-like environments, shown as preformatted text. */
export const CODE_ENVS = new Set(["lstlisting", "minted", "Verbatim", "alltt", "verbatim*", "spverbatim"]);
