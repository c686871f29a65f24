/** Makes the per-request link builder from the configuration. */
import { Inject, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { CONFIG, type Config } from '../config.js';
import { Links } from './links.js';

@Injectable()
export class LinkFactory {
  constructor(@Inject(CONFIG) private readonly config: Config) {}

  for(request: FastifyRequest): Links {
    return new Links(request, this.config.publicBaseUrl, this.config.publicLinkBase);
  }

  origin(request: FastifyRequest): string {
    return this.config.publicBaseUrl ?? `${request.protocol}://${request.host}`;
  }
}
