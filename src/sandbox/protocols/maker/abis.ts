/** The MCD contracts' functions and events the Maker actors and their readings call (viem ABIs). */
import { parseAbi } from 'viem';

export const vatAbi = parseAbi([
  'function ilks(bytes32) view returns (uint256 Art, uint256 rate, uint256 spot, uint256 line, uint256 dust)',
  'function urns(bytes32, address) view returns (uint256 ink, uint256 art)',
  'function dai(address) view returns (uint256)',
  'function gem(bytes32, address) view returns (uint256)',
  'function debt() view returns (uint256)',
  'function frob(bytes32 i, address u, address v, address w, int256 dink, int256 dart)',
  'function hope(address usr)',
]);
export const gemJoinAbi = parseAbi([
  'function join(address usr, uint256 wad)',
  'function exit(address usr, uint256 wad)',
]);
export const daiJoinAbi = parseAbi([
  'function join(address usr, uint256 wad)',
  'function exit(address usr, uint256 wad)',
]);
export const dogAbi = parseAbi([
  'function bark(bytes32 ilk, address urn, address kpr) returns (uint256 id)',
  'function ilks(bytes32) view returns (address clip, uint256 chop, uint256 hole, uint256 dirt)',
  'function Hole() view returns (uint256)',
  'function Dirt() view returns (uint256)',
]);
export const clipperAbi = parseAbi([
  'function list() view returns (uint256[])',
  'function sales(uint256 id) view returns (uint256 pos, uint256 tab, uint256 lot, address usr, uint96 tic, uint256 top)',
  'function calc() view returns (address)',
  'function tail() view returns (uint256)',
  'function cusp() view returns (uint256)',
  'function take(uint256 id, uint256 amt, uint256 max, address who, bytes data)',
  'function redo(uint256 id, address kpr)',
  'function upchost()',
  'event Kick(uint256 indexed id, uint256 top, uint256 tab, uint256 lot, address indexed usr, address indexed kpr, uint256 coin)',
  'event Take(uint256 indexed id, uint256 max, uint256 price, uint256 owe, uint256 tab, uint256 lot, address indexed usr)',
]);
export const calcAbi = parseAbi(['function price(uint256 top, uint256 dur) view returns (uint256)']);
export const spotAbi = parseAbi([
  'function poke(bytes32 ilk)',
  'function ilks(bytes32) view returns (address pip, uint256 mat)',
]);
export const pipAbi = parseAbi(['function poke(bytes32 wut)']);
export const jugAbi = parseAbi(['function drip(bytes32 ilk) returns (uint256)']);
export const potAbi = parseAbi(['function drip() returns (uint256)']);
export const pairReservesAbi = parseAbi([
  'function getReserves() view returns (uint112 reserve0, uint112 reserve1, uint32 blockTimestampLast)',
]);
export const routerAbi = parseAbi([
  'function addLiquidity(address tokenA, address tokenB, uint256 amountADesired, uint256 amountBDesired, uint256 amountAMin, uint256 amountBMin, address to, uint256 deadline) returns (uint256 amountA, uint256 amountB, uint256 liquidity)',
]);
