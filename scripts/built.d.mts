export declare const root: string;
export interface BuiltOptions {
  /** false: dist/src even for an entry that is bundled (tests of the module graph). */
  bundle?: boolean;
}
export declare function builtIsFresh(entry?: string, options?: BuiltOptions): boolean;
export declare function builtPath(entry: string, options?: BuiltOptions): string;
export declare function nodeArgsFor(entry: string, options?: BuiltOptions): string[];
