/**
 * Serves the embedded library that `npm run build` puts in dist/public/js/v1 (docs/embedding.md,
 * "Adding the library"): the script build, the ES module build and their integrity hashes.
 */
import { Controller, Get, Logger, Param, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { NotFoundError } from '../../platform/errors.js';

/** Where the build puts the library: the same from src/ (tests) and dist/ (npm start). */
export const LIBRARY_DIR = fileURLToPath(new URL('../../../dist/public/js/v1/', import.meta.url));

const FILES: Record<string, string> = {
  'referral.js': 'text/javascript; charset=utf-8',
  'referral.mjs': 'text/javascript; charset=utf-8',
  'integrity.json': 'application/json; charset=utf-8',
};

interface LibraryFile {
  body: Buffer;
  type: string;
  etag: string;
}

/** The built files, read once: they change only with a new build, which comes with a restart. */
function load(dir: string): Map<string, LibraryFile> {
  const files = new Map<string, LibraryFile>();
  for (const [name, type] of Object.entries(FILES)) {
    const path = `${dir}${name}`;
    if (!existsSync(path)) continue;
    const body = readFileSync(path);
    files.set(name, { body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` });
  }
  if (files.size < Object.keys(FILES).length) Logger.warn(`the embedded library is not built (${dir}): run npm run build`, 'Library');
  return files;
}

@ApiExcludeController()
@Controller('js/v1')
export class LibraryController {
  private readonly files = load(LIBRARY_DIR);

  @Get(':file')
  serve(@Param('file') name: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply): void {
    const file = this.files.get(name);
    if (!file) {
      throw new NotFoundError(
        name in FILES
          ? [`${name} is not built on this server (npm run build)`]
          : [`no file ${name.slice(0, 64)} here: the library is referral.js, referral.mjs and integrity.json`],
      );
    }
    reply.headers({
      'content-type': file.type,
      // The versioned path keeps its interface; its content may be updated, so caches check back after five minutes.
      'cache-control': 'public, max-age=300, stale-while-revalidate=86400',
      etag: file.etag,
      // Public files any page may load, also as a module script or with `integrity` (both fetched in CORS mode).
      'access-control-allow-origin': '*',
      'cross-origin-resource-policy': 'cross-origin',
      'x-content-type-options': 'nosniff',
    });
    if (request.headers['if-none-match'] === file.etag) {
      reply.status(304).send();
      return;
    }
    reply.status(200).send(file.body);
  }
}
