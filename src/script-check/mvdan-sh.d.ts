// Types for the parts of mvdan-sh (the GopherJS build of mvdan.cc/sh/v3/syntax) that bash-ast.ts uses.
declare module 'mvdan-sh' {
  interface ShPos {
    Line(): number
    Col(): number
    Offset(): number
  }
  export interface ShNode {
    Pos(): ShPos
    End(): ShPos
    // Every field of every node type is read through bash-ast.ts, which narrows by NodeType.
    readonly [field: string]: unknown
  }
  interface ShParser {
    Parse(src: string, name: string): ShNode
  }
  interface ShSyntax {
    NewParser(...opts: unknown[]): ShParser
    KeepComments(on: boolean): unknown
    Variant(lang: unknown): unknown
    readonly LangBash: unknown
    NodeType(node: ShNode): string
    Walk(node: ShNode, fn: (node: ShNode | null) => boolean): void
  }
  const sh: { readonly syntax: ShSyntax }
  export default sh
}
