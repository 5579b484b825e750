/** The `src` folders of every workspace under `roots` (default `packages` and `apps`). */
export declare function sourceFolders(repoRoot: string, roots?: readonly string[]): string[];
/** file → the files among `files` it imports, as TypeScript resolves the specifiers. */
export declare function importGraph(files: readonly string[]): Map<string, string[]>;
/** Every circle of `graph`: its strongly connected components of more than one file, and self-imports. */
export declare function findCycles(graph: ReadonlyMap<string, readonly string[]>): string[][];
/** The circles among the TypeScript files of `folders`, with paths relative to `repoRoot`. */
export declare function checkImportCycles(folders: readonly string[], repoRoot?: string): string[][];
