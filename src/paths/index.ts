export {
  type CompiledPath,
  compilePath,
  documentPath,
  fillTemplate,
  type ResolvedParams,
  resolveParams,
  type Segment,
} from './compile.js';
export { oneOf, seeListing, unknownEntity } from './entity.js';
export {
  canonicalSegment,
  EXPECTED,
  MAX_PAGE_SIZE,
  MAX_SEGMENT_LENGTH,
  PARAM_KINDS,
  type ParamKind,
  quoteSegment,
  type SegmentCase,
} from './params.js';
export type { PathDef, PathParams, PathShape, UnknownEntity } from './types.js';
