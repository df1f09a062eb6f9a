/**
 * `x ** y` for the seeded simulation, the same on every Node.js line.
 *
 * Why: V8 12.x switched `Math.pow` and `**` from its fdlibm port to the C library's `pow` (the V8 flag
 * `--use-std-math-pow`, on by default from Node.js 22): about one result in ten moved by an ulp (`10 ** 29` is
 * `1.0000000000000001e29` on Node.js 20 and `1e29` on 24). The simulation feeds those results into amounts it
 * sends to the chain, so the same seed built another chain on Node.js 24 than on 20 (issue 31). `Math.exp`,
 * `Math.log`, `Math.sqrt`, `Math.cos` and `Math.sin` did not change between 20, 24 and 26.
 *
 * This is fdlibm's `pow` (Sun Microsystems, 1993: "Permission to use, copy, modify, and distribute this software is
 * freely granted, provided that this notice is preserved"), the algorithm Node.js 20's `Math.pow` runs, written out
 * in JavaScript double arithmetic, which rounds as the C code does (IEEE 754 binary64, round to nearest, no fused
 * multiply-add). It returns bit for bit what Node.js 20 returns, so worlds made on Node.js 20 keep their chain.
 * Every `**` and `Math.pow` on a number in src/sandbox goes through it (pow.test.ts checks the source).
 *
 * Method: write |x| = 2^n·(1+f); compute log2|x| in two parts t1 + t2 (t1 with its low 32 bits clear), multiply by
 * y = y1 + y2 in extra precision to p_h + p_l = m + r with m an integer and |r| ≤ 0.5, and return 2^m·2^r.
 */

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);
/** Index of the high (sign, exponent, top of the fraction) 32-bit word in `u32`. */
const HI = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0;
const LO = 1 - HI;

/** The signed high word of a double (the C code's `int`). */
function hiWord(x: number): number {
  f64[0] = x;
  return u32[HI]! | 0;
}

/** The unsigned low word of a double. */
function loWord(x: number): number {
  f64[0] = x;
  return u32[LO]!;
}

function fromWords(hi: number, lo: number): number {
  u32[HI] = hi >>> 0;
  u32[LO] = lo >>> 0;
  return f64[0]!;
}

function withLoWord(x: number, lo: number): number {
  f64[0] = x;
  u32[LO] = lo >>> 0;
  return f64[0]!;
}

function withHiWord(x: number, hi: number): number {
  f64[0] = x;
  u32[HI] = hi >>> 0;
  return f64[0]!;
}

// The constants, given by their bits (the decimal values are what they round to).
const BP = [1.0, 1.5];
const DP_H = [0.0, fromWords(0x3fe2b803, 0x40000000)]; // log2(1.5), high part
const DP_L = [0.0, fromWords(0x3e4cfdeb, 0x43cfd006)]; // log2(1.5), low part
const TWO53 = fromWords(0x43400000, 0);
const HUGE = 1.0e300;
const TINY = 1.0e-300;
// Polynomial coefficients of (3/2)·(log(x) - 2s - 2/3·s³)
const L1 = fromWords(0x3fe33333, 0x33333303);
const L2 = fromWords(0x3fdb6db6, 0xdb6fabff);
const L3 = fromWords(0x3fd55555, 0x518f264d);
const L4 = fromWords(0x3fd17460, 0xa91d4101);
const L5 = fromWords(0x3fcd864a, 0x93c9db65);
const L6 = fromWords(0x3fca7e28, 0x4a454eef);
// Polynomial coefficients of exp
const P1 = fromWords(0x3fc55555, 0x5555553e);
const P2 = fromWords(0xbf66c16c, 0x16bebd93);
const P3 = fromWords(0x3f11566a, 0xaf25de2c);
const P4 = fromWords(0xbebbbd41, 0xc5d26bf1);
const P5 = fromWords(0x3e663769, 0x72bea4d0);
const LG2 = fromWords(0x3fe62e42, 0xfefa39ef);
const LG2_H = fromWords(0x3fe62e43, 0);
const LG2_L = fromWords(0xbe205c61, 0x0ca86c39);
/** -(1024 - log2(overflow threshold + half an ulp)) */
const OVT = 8.008566259537294e-17;
const CP = fromWords(0x3feec709, 0xdc3a03fd); // 2/(3·ln 2)
const CP_H = fromWords(0x3feec709, 0xe0000000);
const CP_L = fromWords(0xbe3e2fe0, 0x145b01f5);
const IVLN2 = fromWords(0x3ff71547, 0x652b82fe); // 1/ln 2
const IVLN2_H = fromWords(0x3ff71547, 0x60000000);
const IVLN2_L = fromWords(0x3e54ae0b, 0xf85ddf44);
const TWO_M54 = fromWords(0x3c900000, 0);

/** x·2^n, rounded once (fdlibm's scalbn), for the subnormal results of `pow`. */
function scalbn(x: number, n: number): number {
  let hx = hiWord(x);
  let k = (hx & 0x7ff00000) >> 20;
  if (k === 0) {
    if (((hx & 0x7fffffff) | loWord(x)) === 0) return x; // ±0
    x *= TWO53 * 2; // 2^54
    hx = hiWord(x);
    k = ((hx & 0x7ff00000) >> 20) - 54;
  }
  if (k === 0x7ff) return x + x; // NaN or Inf
  k += n;
  if (n > 50000 || k > 0x7fe) return HUGE * Math.sign(x) * HUGE;
  if (n < -50000 || k <= -54) return TINY * Math.sign(x) * TINY;
  if (k > 0) return withHiWord(x, (hx & 0x800fffff) | (k << 20));
  return withHiWord(x, (hx & 0x800fffff) | ((k + 54) << 20)) * TWO_M54;
}

/** `x ** y` as Node.js 20 computes it (fdlibm), on every Node.js line. */
export function pow(x: number, y: number): number {
  const hx = hiWord(x);
  const lx = loWord(x);
  const hy = hiWord(y);
  const ly = loWord(y);
  let ix = hx & 0x7fffffff;
  const iy = hy & 0x7fffffff;

  if ((iy | ly) === 0) return 1; // x ** ±0
  if (ix > 0x7ff00000 || (ix === 0x7ff00000 && lx !== 0) || iy > 0x7ff00000 || (iy === 0x7ff00000 && ly !== 0)) {
    return x + y; // NaN
  }

  // For x < 0: is y an odd integer (1), an even integer (2), or not an integer (0)?
  let yisint = 0;
  if (hx < 0) {
    if (iy >= 0x43400000) yisint = 2;
    else if (iy >= 0x3ff00000) {
      const e = (iy >> 20) - 0x3ff;
      if (e > 20) {
        const j = ly >>> (52 - e);
        if (j << (52 - e) === (ly | 0)) yisint = 2 - (j & 1);
      } else if (ly === 0) {
        const j = iy >> (20 - e);
        if (j << (20 - e) === iy) yisint = 2 - (j & 1);
      }
    }
  }

  if (ly === 0) {
    if (iy === 0x7ff00000) {
      // y = ±Infinity
      if (((ix - 0x3ff00000) | lx) === 0) return y - y; // ±1 ** ±Infinity is NaN in JavaScript
      if (ix >= 0x3ff00000) return hy >= 0 ? y : 0;
      return hy < 0 ? -y : 0;
    }
    if (iy === 0x3ff00000) return hy < 0 ? 1 / x : x; // y = ±1
    if (hy === 0x40000000) return x * x; // y = 2
    if (hy === 0x3fe00000 && hx >= 0) return Math.sqrt(x); // y = 0.5, x ≥ +0
  }

  let ax = Math.abs(x);
  if (lx === 0 && (ix === 0x7ff00000 || ix === 0 || ix === 0x3ff00000)) {
    // x is ±0, ±Infinity or ±1
    let z = ax;
    if (hy < 0) z = 1 / z;
    if (hx < 0) {
      if (((ix - 0x3ff00000) | yisint) === 0)
        z = Number.NaN; // (-1) ** non-integer
      else if (yisint === 1) z = -z;
    }
    return z;
  }

  let n = (hx >> 31) + 1; // 0 for x < 0, 1 otherwise
  if ((n | yisint) === 0) return Number.NaN; // (x < 0) ** non-integer
  const s = (n | (yisint - 1)) === 0 ? -1 : 1; // sign of the result: (x < 0) ** odd integer is negative

  let t1: number;
  let t2: number;
  if (iy > 0x41e00000) {
    // |y| > 2^31
    if (iy > 0x43f00000) {
      // |y| > 2^64: overflows or underflows
      if (ix <= 0x3fefffff) return hy < 0 ? HUGE * HUGE : TINY * TINY;
      if (ix >= 0x3ff00000) return hy > 0 ? HUGE * HUGE : TINY * TINY;
    }
    if (ix < 0x3fefffff) return hy < 0 ? s * HUGE * HUGE : s * TINY * TINY;
    if (ix > 0x3ff00000) return hy > 0 ? s * HUGE * HUGE : s * TINY * TINY;
    // |1 - x| ≤ 2^-20: log(x) by x - x²/2 + x³/3 - x⁴/4
    const t = ax - 1;
    const w = t * t * (0.5 - t * (0.3333333333333333 - t * 0.25));
    const u = IVLN2_H * t;
    const v = t * IVLN2_L - w * IVLN2;
    t1 = withLoWord(u + v, 0);
    t2 = v - (t1 - u);
  } else {
    n = 0;
    if (ix < 0x00100000) {
      // subnormal x
      ax *= TWO53;
      n -= 53;
      ix = hiWord(ax);
    }
    n += (ix >> 20) - 0x3ff;
    const j = ix & 0x000fffff;
    ix = j | 0x3ff00000; // normalised
    let k: number;
    if (j <= 0x3988e)
      k = 0; // |x| < sqrt(3/2)
    else if (j < 0xbb67a)
      k = 1; // |x| < sqrt(3)
    else {
      k = 0;
      n += 1;
      ix -= 0x00100000;
    }
    ax = withHiWord(ax, ix);

    // ss = s_h + s_l = (x - 1)/(x + 1) or (x - 1.5)/(x + 1.5)
    let u = ax - BP[k]!;
    let v = 1 / (ax + BP[k]!);
    const ss = u * v;
    const sH = withLoWord(ss, 0);
    let tH = fromWords(((ix >> 1) | 0x20000000) + 0x00080000 + (k << 18), 0); // ax + bp[k], high part
    let tL = ax - (tH - BP[k]!);
    const sL = v * (u - sH * tH - sH * tL);
    // log(ax)
    let s2 = ss * ss;
    let r = s2 * s2 * (L1 + s2 * (L2 + s2 * (L3 + s2 * (L4 + s2 * (L5 + s2 * L6)))));
    r += sL * (sH + ss);
    s2 = sH * sH;
    tH = withLoWord(3.0 + s2 + r, 0);
    tL = r - (tH - 3.0 - s2);
    u = sH * tH;
    v = sL * tH + tL * ss;
    // 2/(3·ln 2)·(ss + …)
    const pH = withLoWord(u + v, 0);
    const pL = v - (pH - u);
    const zH = CP_H * pH;
    const zL = CP_L * pH + pL * CP + DP_L[k]!;
    // log2(ax) = n + dp_h + z_h + z_l
    const t = n;
    t1 = withLoWord(zH + zL + DP_H[k]! + t, 0);
    t2 = zL - (t1 - t - DP_H[k]! - zH);
  }

  // (y1 + y2)·(t1 + t2), with y1 the high part of y
  const y1 = withLoWord(y, 0);
  const pL = (y - y1) * t1 + y * t2;
  let pH = y1 * t1;
  let z = pL + pH;
  let j = hiWord(z);
  let i = loWord(z) | 0;
  if (j >= 0x40900000) {
    // z ≥ 1024
    if (((j - 0x40900000) | i) !== 0) return s * HUGE * HUGE;
    if (pL + OVT > z - pH) return s * HUGE * HUGE;
  } else if ((j & 0x7fffffff) >= 0x4090cc00) {
    // z ≤ -1075
    if (((j - 0xc090cc00) | i) !== 0) return s * TINY * TINY;
    if (pL <= z - pH) return s * TINY * TINY;
  }

  // 2^(p_h + p_l)
  i = j & 0x7fffffff;
  let k = (i >> 20) - 0x3ff;
  n = 0;
  if (i > 0x3fe00000) {
    // |z| > 0.5: n = [z + 0.5]
    n = (j + (0x00100000 >> (k + 1))) | 0;
    k = ((n & 0x7fffffff) >> 20) - 0x3ff;
    const t = fromWords(n & ~(0x000fffff >> k), 0);
    n = ((n & 0x000fffff) | 0x00100000) >> (20 - k);
    if (j < 0) n = -n;
    pH -= t;
  }
  const t = withLoWord(pL + pH, 0);
  const u = t * LG2_H;
  const v = (pL - (t - pH)) * LG2 + t * LG2_L;
  z = u + v;
  const w = v - (z - u);
  const tt = z * z;
  const t1e = z - tt * (P1 + tt * (P2 + tt * (P3 + tt * (P4 + tt * P5))));
  const r = (z * t1e) / (t1e - 2 - (w + z * w));
  z = 1 - (r - z);
  j = (hiWord(z) + (n << 20)) | 0;
  if (j >> 20 <= 0) z = scalbn(z, n);
  else z = withHiWord(z, (hiWord(z) + (n << 20)) | 0);
  return s * z;
}
