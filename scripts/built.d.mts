export declare const root: string;
export declare function builtIsFresh(entry?: string): boolean;
export declare function nodeArgsFor(entry: string): string[];
