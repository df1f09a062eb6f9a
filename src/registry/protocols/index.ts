import type { ProtocolEntry } from '../types.js';
import { aave } from './aave.js';
import { balancer } from './balancer.js';
import { chainlink } from './chainlink.js';
import { chronos } from './chronos.js';
import { compound } from './compound.js';
import { convex } from './convex.js';
import { curve } from './curve.js';
import { dydx } from './dydx.js';
import { fraxfinance } from './fraxfinance.js';
import { gmx } from './gmx.js';
import { harvest } from './harvest.js';
import { idle } from './idle.js';
import { instadapp } from './instadapp.js';
import { lido } from './lido.js';
import { liquity } from './liquity.js';
import { makerdao } from './makerdao.js';
import { maverick } from './maverick.js';
import { morpho } from './morpho.js';
import { notional } from './notional.js';
import { pancakeswap } from './pancakeswap.js';
import { radiantcapital } from './radiantcapital.js';
import { reflexer } from './reflexer.js';
import { spark } from './spark.js';
import { swaap } from './swaap.js';
import { synthetix } from './synthetix.js';
import { uniswap } from './uniswap.js';
import { velodrome } from './velodrome.js';
import { yearn } from './yearn.js';

/** Every supported protocol, sorted by id. */
export const PROTOCOLS: readonly ProtocolEntry[] = [
  aave,
  balancer,
  chainlink,
  chronos,
  compound,
  convex,
  curve,
  dydx,
  fraxfinance,
  gmx,
  harvest,
  idle,
  instadapp,
  lido,
  liquity,
  makerdao,
  maverick,
  morpho,
  notional,
  pancakeswap,
  radiantcapital,
  reflexer,
  spark,
  swaap,
  synthetix,
  uniswap,
  velodrome,
  yearn,
];
