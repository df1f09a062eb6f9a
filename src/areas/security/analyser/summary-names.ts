/** The name lists the function summaries apply (hashed into the rule set through `TUNING`). */
export const LOW_LEVEL = new Set(['call', 'delegatecall', 'staticcall', 'callcode']);
export const BUILTIN_MEMBERS = new Set([
  'push',
  'pop',
  'encode',
  'encodePacked',
  'encodeWithSelector',
  'encodeWithSignature',
  'encodeCall',
  'decode',
  'concat',
  'selector',
  'length',
  'wrap',
  'unwrap',
  'slot',
  'offset',
  'code',
  'codehash',
]);
export const HASHES = new Set(['keccak256', 'sha3', 'sha256', 'ripemd160', 'ecrecover', 'addmod', 'mulmod']);
export const IMPLEMENTATION_VAR = /^_?(implementation|impl|logic|masterCopy|singleton)$/i;
export const IMPLEMENTATION_SETTER =
  /^_?(setImplementation|upgradeTo|upgradeToAndCall|upgradeToAndCallUUPS|upgradeToAndCallSecure)$/;
export const IMPLEMENTATION_SLOT = /IMPLEMENTATION_SLOT$|^IMPLEMENTATION$/i;

/** Names an access-control modifier goes by, when its body is not in the input. */
export const ACCESS_MODIFIER_NAME = /^only|auth|restricted|admin|owner|governance|role/i;

/** The name lists the analysis applies, hashed into the rule set. */
export const TUNING = {
  implementationVar: IMPLEMENTATION_VAR.source,
  implementationSetter: IMPLEMENTATION_SETTER.source,
  implementationSlot: IMPLEMENTATION_SLOT.source,
  accessModifierName: ACCESS_MODIFIER_NAME.source,
};

/** Names a reentrancy guard goes by, when its body is not in the input. */
export const GUARD_NAME =
  /^(nonReentrant|noReentrancy|nonReentrantView|reentrancyGuard|lock|locked|mutex|noReentrant)$/i;

export const SLOT_NAME = /_SLOT$|^SLOT_/i;

export const ELEMENTARY = /^(address|payable|address payable|u?int\d*|bytes\d*|bool|string|byte|u?fixed[\dx]*)$/;

export const BUILTIN_FUNCTIONS = new Set([
  'require',
  'assert',
  'revert',
  'keccak256',
  'sha3',
  'sha256',
  'ripemd160',
  'ecrecover',
  'addmod',
  'mulmod',
  'gasleft',
  'blockhash',
  'type',
  'selfdestruct',
  'suicide',
]);

export function isBuiltinFunction(name: string): boolean {
  return BUILTIN_FUNCTIONS.has(name);
}
