import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  NoSuchKey,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';

export type BucketSettings = Readonly<{ bucket: string; region: string; endpoint: string | null }>;

/** An object of a listing: its key and entity tag (which changes whenever the object is rewritten). */
export type Listed = Readonly<{ key: string; etag: string }>;

const absent = (error: unknown): boolean =>
  error instanceof NoSuchKey || (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404);

/**
 * The few object operations the git store needs, on one bucket, through `@aws-sdk/client-s3`.
 * Credentials come from the SDK's default chain (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, profiles,
 * web identity, container or instance roles). With an endpoint (an S3-compatible service) requests use
 * path-style addressing, which such services expect.
 */
export class Bucket {
  private readonly client: S3Client;

  readonly settings: BucketSettings;
  constructor(settings: BucketSettings) {
    this.settings = settings;
    this.client = new S3Client({
      region: settings.region,
      ...(settings.endpoint ? { endpoint: settings.endpoint, forcePathStyle: true } : {}),
    });
  }

  get name(): string {
    return this.settings.bucket;
  }

  /** The object's bytes, or null when there is no such object. */
  async get(key: string): Promise<Buffer | null> {
    try {
      const answer = await this.client.send(new GetObjectCommand({ Bucket: this.name, Key: key }));
      return Buffer.from(await answer.Body!.transformToByteArray());
    } catch (error) {
      if (absent(error)) return null;
      throw error;
    }
  }

  /** Streams the object into `file`; throws when it is absent or the transfer breaks. */
  async download(key: string, file: string): Promise<void> {
    const answer = await this.client.send(new GetObjectCommand({ Bucket: this.name, Key: key }));
    await pipeline(answer.Body as Readable, createWriteStream(file));
  }

  async put(key: string, body: Buffer | string, contentType = 'application/octet-stream'): Promise<void> {
    await this.client.send(new PutObjectCommand({ Bucket: this.name, Key: key, Body: body, ContentType: contentType }));
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.name, Key: key }));
  }

  /** Every object under `prefix`, page after page. */
  async list(prefix: string): Promise<Listed[]> {
    const listed: Listed[] = [];
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.name, Prefix: prefix, ...(token ? { ContinuationToken: token } : {}) }),
      );
      for (const item of page.Contents ?? []) if (item.Key) listed.push({ key: item.Key, etag: item.ETag ?? '' });
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return listed;
  }

  close(): void {
    this.client.destroy();
  }
}
