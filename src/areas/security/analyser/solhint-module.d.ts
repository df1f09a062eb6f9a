/** The part of solhint's CommonJS API the cross-check uses (the package ships no types). */
declare module 'solhint' {
  interface SolhintReport {
    readonly line: number;
    readonly column: number;
    readonly severity: number;
    readonly message: string;
    readonly ruleId: string;
  }
  export function processStr(
    text: string,
    config: { rules: Record<string, string | [string, ...unknown[]]> },
  ): { reports: SolhintReport[] };
  const solhint: { processStr: typeof processStr };
  export default solhint;
}
