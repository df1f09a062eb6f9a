export interface CompiledArtifact {
  readonly contractName: string;
  readonly source: string;
  readonly compiler: string;
  readonly settings: { readonly optimizer: { enabled: boolean; runs: number }; readonly evmVersion: string };
  readonly abi: readonly unknown[];
  readonly bytecode: `0x${string}`;
}
export declare const CONTRACTS_DIR: string;
export declare const SETTINGS: Record<string, unknown>;
export declare function compileContracts(dir?: string): Record<string, CompiledArtifact>;
export declare const MORPHO_PACKAGE: string;
export declare const MORPHO_ARTIFACT: string;
export declare const MORPHO_SETTINGS: Record<string, unknown>;
export declare function compileMorpho(): CompiledArtifact;
