/**
 * The detectors: named and rated as Slither names and rates its own where it has one (its "Detector
 * Documentation"), in the same style where it has none (SWC classes it does not cover). Each reads the function
 * summaries (`summary.ts`) of one contract seen from its most derived form, or one function's own facts.
 *
 * `revision` counts changes of a detector's logic: bump it with any change that can change its findings, and say
 * why in docs/methodology/security-analyser.md; the rule-set hash covers it.
 */
import type { Span } from './ast.js';
import { type Context, type Contract, type Func, funcOf, type Project } from './model.js';
import type { Interaction, Sources, Summaries, Summary } from './summary.js';
import { compareVersions, lowestAllowed, parseVersion } from './version.js';

export type Impact = 'high' | 'medium' | 'low' | 'informational' | 'optimization';
export type Confidence = 'high' | 'medium' | 'low';

export interface DetectorInfo {
  readonly id: string;
  readonly impact: Impact;
  readonly confidence: Confidence;
  /** SWC registry entries it covers. */
  readonly swc: readonly string[];
  readonly title: string;
  /** Slither's own name for the same check, when it has one. */
  readonly slither?: string;
  readonly revision: number;
}

export const DETECTORS: readonly DetectorInfo[] = [
  {
    id: 'reentrancy-eth',
    impact: 'high',
    confidence: 'medium',
    swc: ['SWC-107'],
    title: 'Reentrancy with ether sent: state read before an external call is written after it',
    slither: 'reentrancy-eth',
    revision: 1,
  },
  {
    id: 'reentrancy-no-eth',
    impact: 'medium',
    confidence: 'medium',
    swc: ['SWC-107'],
    title: 'Reentrancy without ether: state read before an external call is written after it',
    slither: 'reentrancy-no-eth',
    revision: 1,
  },
  {
    id: 'arbitrary-send-eth',
    impact: 'high',
    confidence: 'medium',
    swc: ['SWC-105'],
    title: 'Ether sent to an address the caller chooses, without access control',
    slither: 'arbitrary-send-eth',
    revision: 1,
  },
  {
    id: 'unprotected-ether-withdrawal',
    impact: 'high',
    confidence: 'medium',
    swc: ['SWC-105'],
    title: "Anyone can withdraw the contract's ether to themselves: no access control and no record of what they own",
    revision: 1,
  },
  {
    id: 'controlled-delegatecall',
    impact: 'high',
    confidence: 'medium',
    swc: ['SWC-112'],
    title: 'delegatecall to an address the caller chooses, without access control',
    slither: 'controlled-delegatecall',
    revision: 1,
  },
  {
    id: 'suicidal',
    impact: 'high',
    confidence: 'high',
    swc: ['SWC-106'],
    title: 'Anyone can destroy the contract (selfdestruct without access control)',
    slither: 'suicidal',
    revision: 1,
  },
  {
    id: 'unprotected-upgrade',
    impact: 'high',
    confidence: 'high',
    swc: ['SWC-105', 'SWC-106', 'SWC-112'],
    title: 'Anyone can change the implementation, or initialise a logic contract that can be destroyed',
    slither: 'unprotected-upgrade',
    revision: 1,
  },
  {
    id: 'missing-access-control',
    impact: 'high',
    confidence: 'medium',
    swc: ['SWC-105', 'SWC-118'],
    title:
      'A function anyone can call writes the owner, an admin, a role or an implementation (missing or wrong access control, re-initialisation)',
    revision: 1,
  },
  {
    id: 'tx-origin',
    impact: 'medium',
    confidence: 'medium',
    swc: ['SWC-115'],
    title: 'Authorisation through tx.origin',
    slither: 'tx-origin',
    revision: 1,
  },
  {
    id: 'unchecked-lowlevel',
    impact: 'medium',
    confidence: 'medium',
    swc: ['SWC-104'],
    title: 'The success of a low-level call is not checked',
    slither: 'unchecked-lowlevel',
    revision: 1,
  },
  {
    id: 'unchecked-send',
    impact: 'medium',
    confidence: 'medium',
    swc: ['SWC-104'],
    title: 'The result of send is not checked',
    slither: 'unchecked-send',
    revision: 1,
  },
  {
    id: 'integer-overflow',
    impact: 'high',
    confidence: 'medium',
    swc: ['SWC-101'],
    title:
      'Unchecked arithmetic (before 0.8, or in an unchecked block) on caller-supplied values is stored without a bounding check',
    revision: 1,
  },
  {
    id: 'weak-prng',
    impact: 'high',
    confidence: 'medium',
    swc: ['SWC-120'],
    title: 'Randomness from block values (modulo of timestamp, number, blockhash, difficulty)',
    slither: 'weak-prng',
    revision: 1,
  },
  {
    id: 'tod',
    impact: 'medium',
    confidence: 'low',
    swc: ['SWC-114'],
    title:
      'Transaction-order dependence: the ether a caller receives is set by another transaction that can front-run it',
    revision: 1,
  },
  {
    id: 'dos-failed-call',
    impact: 'medium',
    confidence: 'medium',
    swc: ['SWC-113'],
    title: 'Denial of service: a payment to a stored address whose failure reverts the whole call',
    revision: 1,
  },
  {
    id: 'dos-unbounded-loop',
    impact: 'medium',
    confidence: 'low',
    swc: ['SWC-128'],
    title: 'Denial of service: a loop over a storage array that anyone can grow',
    revision: 1,
  },
  {
    id: 'locked-ether',
    impact: 'medium',
    confidence: 'high',
    swc: [],
    title: 'The contract receives ether and has no way to send it out',
    slither: 'locked-ether',
    revision: 1,
  },
  {
    id: 'incorrect-equality',
    impact: 'medium',
    confidence: 'high',
    swc: ['SWC-132'],
    title: 'Strict equality on an ether or token balance',
    slither: 'incorrect-equality',
    revision: 1,
  },
  {
    id: 'timestamp',
    impact: 'low',
    confidence: 'medium',
    swc: ['SWC-116'],
    title: 'Comparisons that depend on block.timestamp',
    slither: 'timestamp',
    revision: 1,
  },
  {
    id: 'missing-zero-check',
    impact: 'low',
    confidence: 'medium',
    swc: [],
    title: 'An address parameter stored or paid without a check against the zero address',
    slither: 'missing-zero-check',
    revision: 1,
  },
  {
    id: 'calls-loop',
    impact: 'low',
    confidence: 'medium',
    swc: ['SWC-113'],
    title: 'External calls inside a loop',
    slither: 'calls-loop',
    revision: 1,
  },
  {
    id: 'assembly',
    impact: 'informational',
    confidence: 'high',
    swc: [],
    title: 'Inline assembly',
    slither: 'assembly',
    revision: 1,
  },
  {
    id: 'low-level-calls',
    impact: 'informational',
    confidence: 'high',
    swc: [],
    title: 'Low-level calls (call, delegatecall, staticcall)',
    slither: 'low-level-calls',
    revision: 1,
  },
  {
    id: 'solc-version',
    impact: 'informational',
    confidence: 'high',
    swc: ['SWC-102', 'SWC-103'],
    title: 'The pragma allows a compiler older than 0.8.0 (no checked arithmetic, known compiler bugs)',
    slither: 'solc-version',
    revision: 1,
  },
];

export const DETECTOR = Object.fromEntries(DETECTORS.map((d) => [d.id, d])) as Record<string, DetectorInfo>;

/** The oldest compiler `solc-version` accepts: 0.8.0 brought checked arithmetic. */
export const OLDEST_ACCEPTED_COMPILER = '0.8.0';
/** State variables whose names say they hold who may act, whoever writes them. */
export const PRIVILEGED_NAME =
  /^_?(owner|pendingOwner|admin|pendingAdmin|governance|governor|guardian|operator|controller|minter|paused)$/i;
/** Modifiers that make a function callable once (OpenZeppelin's Initializable and its copies). */
export const ONE_TIME_MODIFIER = /^(initializer|reinitializer|onlyInitializing)$/;

export interface RawFinding {
  readonly detector: string;
  /** The function it is in (null for a contract- or file-level finding). */
  readonly func: Func | null;
  /** The contract whose code it is in (null for a file-level finding). */
  readonly contract: Contract | null;
  readonly file: string;
  readonly span: Span;
  /** The most derived contract it was found in, when the code sits in a base. */
  readonly context?: Contract;
}

const hasParam = (s: Sources) => [...s].some((x) => /^p\d+$/.test(x));
const stateKeys = (s: Sources) => [...s].filter((x) => x.startsWith('state:')).map((x) => x.slice(6));

function isEntry(f: Func): boolean {
  const d = f.def;
  return (
    (d.visibility === 'public' || d.visibility === 'external') &&
    (d.kind === 'function' || d.kind === 'fallback' || d.kind === 'receive') &&
    !!d.body
  );
}

const isStateChanging = (f: Func) => f.def.mutability !== 'view' && f.def.mutability !== 'pure';

/** A function meant to run once: an initializer modifier, or an `initialize` that checks and sets its own flag. */
function isOneTime(f: Func, s: Summary): boolean {
  if (f.def.modifiers.some((m) => ONE_TIME_MODIFIER.test(m.name))) return true;
  if (!/^_?init/i.test(f.def.name)) return false;
  const checked = new Set(s.conditions.flatMap((c) => stateKeys(c)));
  return [...s.writes.keys()].some((k) => checked.has(k));
}

/** Everything the contract-level detectors need about one contract seen from its most derived form. */
interface ContractView {
  readonly ctx: Context;
  readonly contract: Contract;
  readonly functions: readonly Func[];
  readonly entries: readonly { func: Func; s: Summary }[];
  readonly summaries: ReadonlyMap<Func, Summary>;
  /** State that anyone can set to a value of their choosing. */
  readonly userWritable: ReadonlySet<string>;
  /** State that anyone can set, to a value of their choosing or to themselves. */
  readonly anyoneSets: ReadonlySet<string>;
  readonly privileged: ReadonlySet<string>;
}

function viewOf(project: Project, summaries: Summaries, contract: Contract): ContractView {
  const ctx = project.context(contract);
  const functions = ctx.functions().filter((f) => f.def.body);
  const map = new Map<Func, Summary>();
  for (const f of functions) map.set(f, summaries.of(f, ctx));
  const entries = functions.filter(isEntry).map((func) => ({ func, s: map.get(func)! }));
  const userWritable = new Set<string>();
  const anyoneSets = new Set<string>();
  for (const { func, s } of entries) {
    if (s.accessCheck || isOneTime(func, s)) continue;
    for (const [k, srcs] of s.writes) {
      if (hasParam(srcs)) userWritable.add(k);
      if (hasParam(srcs) || srcs.has('sender')) anyoneSets.add(k);
    }
  }
  const privileged = new Set<string>();
  for (const s of map.values()) for (const k of s.checkedAccounts) privileged.add(k);
  for (const v of ctx.allStateVars()) if (PRIVILEGED_NAME.test(v.def.name) && !v.def.constant) privileged.add(v.key);
  return { ctx, contract, functions, entries, summaries: map, userWritable, anyoneSets, privileged };
}

const configured = (dest: Sources, view: ContractView) =>
  dest.size > 0 &&
  [...dest].every(
    (x) =>
      x === 'created' || (x.startsWith('state:') && !x.startsWith('state:ref:') && !view.userWritable.has(x.slice(6))),
  );

const userControlled = (s: Sources, view: ContractView) =>
  hasParam(s) || stateKeys(s).some((k) => view.userWritable.has(k));

/** Detectors over a contract's externally callable functions, seen from the contract. */
function contractDetectors(view: ContractView, out: RawFinding[]): void {
  const add = (detector: string, func: Func | null, span: Span) =>
    out.push({
      detector,
      func,
      contract: func?.contract ?? view.contract,
      file: func?.unit.file ?? view.contract.unit.file,
      span,
      ...(func?.contract && func.contract !== view.contract ? { context: view.contract } : {}),
    });
  const pushedByAnyone = new Set<string>();
  for (const { s } of view.entries) if (!s.accessCheck) for (const k of s.pushes) pushedByAnyone.add(k);

  for (const { func, s } of view.entries) {
    const stateChanging = isStateChanging(func);
    const protectedFn = s.accessCheck;
    // A call into code that is not in the input may hold the check: do not report what we cannot see.
    const unknown = s.unknownCallee;

    // Reentrancy: state read before a call that can re-enter, written after it.
    if (stateChanging && !s.guarded) {
      const reported = new Set<Interaction>();
      for (const w of s.writesAfterCalls) {
        if (reported.has(w.call) || w.variable.startsWith('ref:')) continue;
        if (!w.call.readsBefore.has(w.variable)) continue;
        // A call to a contract the protocol configured (an address only access-controlled code stores) or has
        // just deployed: its code is not the caller's to choose.
        if (configured(w.call.dest, view)) continue;
        reported.add(w.call);
        add(w.call.eth ? 'reentrancy-eth' : 'reentrancy-no-eth', func, w.call.at);
      }
    }

    if (!protectedFn && !unknown && !isOneTime(func, s)) {
      for (const i of s.interactions) {
        const onlyCaller = [...i.dest].every((x) => x === 'sender');
        if (i.eth && (i.kind === 'call' || i.kind === 'send' || i.kind === 'transfer' || i.kind === 'high')) {
          const refund = [...i.amount].every((x) => x === 'value');
          // A destination looked up in a record first (`require(shares[account] > 0)`) is a payee, not anyone.
          const vetted = s.conditions.some(
            (c) => [...i.dest].some((x) => /^p\d+$/.test(x) && c.has(x)) && stateKeys(c).length > 0,
          );
          if (!onlyCaller && !refund && !vetted && userControlled(i.dest, view)) add('arbitrary-send-eth', func, i.at);
          // To the caller, an amount of their choosing (or everything), with nothing recorded that limits it.
          const amountChosen = hasParam(i.amount) || i.amount.has('balance');
          const checksState = s.conditions.some((c) => stateKeys(c).length > 0);
          if (onlyCaller && i.dest.size && amountChosen && stateKeys(i.amount).length === 0 && !checksState) {
            add('unprotected-ether-withdrawal', func, i.at);
          }
        }
        if (i.kind === 'delegatecall' && userControlled(i.dest, view)) add('controlled-delegatecall', func, i.at);
      }
      for (const d of s.selfdestructs) add('suicidal', func, d.at);
      if (s.writesImplementation && stateChanging) add('unprotected-upgrade', func, s.writesImplementation);
      if (stateChanging) {
        const written = [...s.writes.keys()].find((k) => view.privileged.has(k));
        if (written) add('missing-access-control', func, func.def.nameSpan);
      }
    }

    // Transaction-order dependence: the ether paid to the caller is a stored amount another call sets.
    if (stateChanging && !protectedFn) {
      for (const i of s.interactions) {
        if (!i.eth || i.kind === 'delegatecall') continue;
        // A stored amount set for everyone (a reward, a price), not one kept per account.
        const amountState = stateKeys(i.amount).filter((k) => {
          const v = view.ctx.allStateVars().find((x) => x.key === k);
          return v?.def.type.k === 'elementary';
        });
        if (!amountState.length) continue;
        const setElsewhere = view.entries.some(
          (o) =>
            o.func !== func &&
            isStateChanging(o.func) &&
            amountState.some((k) => {
              const srcs = o.s.writes.get(k);
              return !!srcs && (hasParam(srcs) || srcs.has('value'));
            }),
        );
        // A caller who states what they expect (a bound on the amount) is not surprised by a reordering.
        const bounded = s.conditions.some((c) => hasParam(c) && stateKeys(c).some((k) => amountState.includes(k)));
        if (setElsewhere && !bounded) add('tod', func, i.at);
      }
    }

    // Denial of service: a payment to a stored address whose failure reverts the call.
    if (stateChanging && !protectedFn) {
      for (const i of s.interactions) {
        if (!i.eth || !i.revertsOnFailure) continue;
        // To an address someone else put there (the previous king, the previous bidder).
        const stored =
          stateKeys(i.dest).some((k) => view.anyoneSets.has(k)) && !i.dest.has('sender') && !hasParam(i.dest);
        if (stored) add('dos-failed-call', func, i.at);
      }
      for (const loop of s.loops) {
        if ([...loop.boundArrays].some((k) => pushedByAnyone.has(k))) add('dos-unbounded-loop', func, loop.at);
      }
    }

    // Missing zero-address check on an address parameter that is stored or paid.
    if (stateChanging) {
      func.def.params.forEach((p, idx) => {
        if (p.type?.k !== 'elementary' || !p.type.name.startsWith('address')) return;
        const src = `p${idx}`;
        if (s.conditions.some((c) => c.has(src))) return;
        const stored = [...s.writes.values()].some((w) => w.has(src));
        const paid = s.interactions.some((i) => i.eth && i.dest.has(src));
        if (stored || paid) add('missing-zero-check', func, p.span);
      });
    }
  }

  // A logic contract anyone can initialise, that can then be destroyed or made to delegatecall anywhere.
  // (OpenZeppelin's Initializable: an `initializer` modifier; a proxy's fallback delegatecall is its purpose.)
  const initializers = view.entries.filter(({ func }) =>
    func.def.modifiers.some((m) => ONE_TIME_MODIFIER.test(m.name)),
  );
  if (initializers.length) {
    const ctor = view.functions.find((f) => f.def.kind === 'constructor' && f.contract === view.contract);
    const ctorSummary = ctor ? view.summaries.get(ctor) : undefined;
    const disabled =
      !!ctor &&
      (ctor.def.modifiers.some((m) => ONE_TIME_MODIFIER.test(m.name)) ||
        ((ctorSummary?.writes.size ?? 0) > 0 && callsDisable(ctor)));
    const destructible = view.entries.some(
      ({ func, s }) =>
        s.selfdestructs.length > 0 ||
        (func.def.kind !== 'fallback' && s.interactions.some((i) => i.kind === 'delegatecall')),
    );
    if (!disabled && destructible) {
      for (const { func, s } of initializers) if (!s.accessCheck) add('unprotected-upgrade', func, func.def.nameSpan);
    }
  }

  // Locked ether: it can receive ether and nothing it runs can send any out.
  if (view.contract.def.kind === 'contract' && !view.contract.def.abstract) {
    const receives = view.functions.some((f) => f.def.mutability === 'payable' && f.def.kind !== 'constructor');
    const sends = [...view.summaries.values()].some(
      (s) => s.opaque || s.selfdestructs.length > 0 || s.interactions.some((i) => i.eth) || s.unknownCallee,
    );
    if (receives && !sends) add('locked-ether', null, view.contract.def.nameSpan);
  }
}

function callsDisable(ctor: Func): boolean {
  return /_disableInitializers|disableInitializers/.test(JSON.stringify(ctor.def.body ?? {}));
}

/** Detectors over one function's own body. */
function localDetectors(func: Func, s: Summary, out: RawFinding[]): void {
  const add = (detector: string, span: Span) =>
    out.push({ detector, func, contract: func.contract ?? null, file: func.unit.file, span });
  const l = s.local;
  for (const span of l.originChecks) add('tx-origin', span);
  for (const span of l.uncheckedLowLevel) add('unchecked-lowlevel', span);
  for (const span of l.uncheckedSend) add('unchecked-send', span);
  for (const span of l.prng) add('weak-prng', span);
  for (const span of l.strictBalance) add('incorrect-equality', span);
  if (l.timestamps[0]) add('timestamp', l.timestamps[0]);
  if (l.assembly[0]) add('assembly', l.assembly[0]);
  if (l.lowLevel[0]) add('low-level-calls', l.lowLevel[0]);
  const calledInLoop = s.interactions.find((i) => i.loopHere && !i.view && !i.toSelf);
  if (calledInLoop) add('calls-loop', calledInLoop.at);
  const old = (() => {
    const v = parseVersion(func.unit.parsedAs);
    return !!v && compareVersions(v, [0, 8, 0]) < 0;
  })();
  for (const a of l.arithmetic) {
    if (!old && !a.unchecked) continue;
    // msg.value is bounded by the ether in existence: adding it cannot wrap a uint256.
    const chosen = [...a.operands].filter((x) => /^p\d+$/.test(x));
    if (!chosen.length) continue;
    const bounded = s.conditions.some((c) => chosen.every((x) => c.has(x)));
    if (!bounded) add('integer-overflow', a.at);
  }
}

/** `solc-version`: one finding per pragma that allows a compiler older than 0.8.0. */
function fileDetectors(project: Project, available: readonly string[], out: RawFinding[]): void {
  for (const unit of project.units) {
    for (const p of unit.pragmas) {
      const lowest = lowestAllowed([p.text], available);
      if (lowest && compareVersions(parseVersion(lowest)!, parseVersion(OLDEST_ACCEPTED_COMPILER)!) < 0) {
        out.push({ detector: 'solc-version', func: null, contract: null, file: unit.file, span: p.span });
      }
    }
  }
}

/** Runs every detector over the project. */
export function runDetectors(project: Project, summaries: Summaries, available: readonly string[]): RawFinding[] {
  const out: RawFinding[] = [];
  const concrete = project.contracts.filter((c) => c.def.kind === 'contract' && !c.def.abstract);
  const covered = new Set<Contract>();
  for (const c of concrete) {
    for (const base of project.linearisation(c)) covered.add(base);
    contractDetectors(viewOf(project, summaries, c), out);
  }
  // Abstract contracts no concrete contract of the input inherits: analysed as they stand.
  for (const c of project.contracts) {
    if (c.def.kind === 'contract' && c.def.abstract && !covered.has(c))
      contractDetectors(viewOf(project, summaries, c), out);
  }
  for (const c of project.contracts) {
    if (c.def.kind === 'interface') continue;
    const ctx = project.context(c);
    for (const def of [...c.def.functions, ...c.def.modifiers]) {
      if (!def.body) continue;
      const func = funcOf(def, c, c.unit);
      localDetectors(func, summaries.of(func, ctx), out);
    }
  }
  for (const unit of project.units) {
    for (const def of unit.freeFunctions) {
      if (!def.body) continue;
      const func = funcOf(def, undefined, unit);
      localDetectors(func, summaries.of(func, undefined), out);
    }
  }
  fileDetectors(project, available, out);
  return out;
}
