// Placeholder shapes; the full declaration model is written with the core package.
export interface ToolDeclaration {
  readonly name: string;
}
export interface ResourceDeclaration {
  readonly name: string;
}
export interface PromptDeclaration {
  readonly name: string;
}
