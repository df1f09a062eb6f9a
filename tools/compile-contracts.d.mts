export interface CompiledArtifact {
  readonly contractName: string;
  readonly source: string;
  readonly compiler: string;
  readonly settings: { readonly optimizer: { enabled: boolean; runs: number }; readonly evmVersion: string };
  readonly abi: readonly unknown[];
  readonly bytecode: `0x${string}`;
}
export declare const PROTOCOLS_DIR: string;
export declare function contractSources(protocolsDir?: string): Map<string, string>;
export declare function artifactFile(artifact: CompiledArtifact): string;
export declare const SETTINGS: Record<string, unknown>;
export declare function compileContracts(): Record<string, CompiledArtifact>;
export declare const MORPHO_PACKAGE: string;
export declare const MORPHO_ARTIFACT: string;
export declare const MORPHO_SETTINGS: Record<string, unknown>;
export declare function compileMorpho(): CompiledArtifact;
