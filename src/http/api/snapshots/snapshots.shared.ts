import { Type } from 'typebox';
import type { FastifyRequest } from 'fastify';
import { addressedSnapshot, type AddressedSnapshot, type Addressing } from '../../../application/snapshots/addressed-snapshot.ts';
import { requireApproverOf } from '../../auth/authorize.ts';
import type { HttpDeps } from '../../http-deps.ts';

// Preview limits (docs/marketplaces.md): "file listing capped at 2000 entries; file text cut at 128 KiB with truncated
// true and the full size still reported, binary blobs return metadata with no text; diff entry list
// capped at 500 and each unified diff at 128 KiB. Paths are matched against tree entries only."
export const previewLimits = {
  files: 2000,
  fileBytes: 128 * 1024,
  diffEntries: 500,
  diffBytes: 128 * 1024,
  treeEntries: 10_000,
} as const;

export const tags = ['snapshots'];
export const NullableString = Type.Union([Type.String(), Type.Null()]);

/** The snapshot a preview addresses, once the caller approves for its marketplace (403 without standing). */
export async function previewed(
  deps: HttpDeps,
  request: FastifyRequest,
  id: number,
  addressing: Addressing = {},
): Promise<AddressedSnapshot> {
  const addressed = await addressedSnapshot(deps, id, addressing);
  await requireApproverOf(deps, request, addressed.marketplace);
  return addressed;
}
