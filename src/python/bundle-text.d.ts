/** `import text, { sha256 } from "./file.ts?bundle"` (scripts/bundle-text-plugin.ts). */
declare module "*?bundle" {
  /** The module and everything it imports, as the text of one classic script. */
  const text: string;
  export default text;
  /** SHA-256 of `text`, base64. */
  export const sha256: string;
}
