import { Type } from 'typebox';
import type { FastifyRequest } from 'fastify';
import {
  addressedSnapshot,
  type AddressedSnapshot,
  type Addressing,
} from '../../../application/snapshots/addressed-snapshot.ts';
import { requireApproverOf } from '../../auth/authorize.ts';
import type { HttpDeps } from '../../http-deps.ts';

export { previewLimits } from '../../../application/snapshots/snapshot-preview.use-case.ts';

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
