# The service image: built with the same npm scripts as on a developer machine.
# Node 22 LTS: the newest line the embedded store runs on (docs/operations.md, "Node versions").
FROM node:22-bookworm AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY web ./web
RUN npm run build && npm prune --omit=dev

FROM node:22-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production PORT=3000 DATA_DIR=/data
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
# Owned by the user the service runs as before it becomes a volume: a volume Docker makes for a
# path the image lacks is root's, and the embedded store could not open its file there.
RUN mkdir -p /data && chown node:node /data
VOLUME /data
EXPOSE 3000
USER node
# Liveness through /health (the slim image has no curl; Node's fetch does it).
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "--max-semi-space-size=64", "dist/main.js"]
