# One image for both processes:
#   API:    node dist/src/main/api.js     (the default CMD)
#   worker: node dist/src/main/worker.js
# There is no HEALTHCHECK here on purpose: the two processes need different checks, so the
# orchestrator (docker-compose.yml) defines them.

# Both stages use the same base so the native Temporal core bridge installed by npm matches
# the runtime's glibc.
ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
# Manifests first, so editing source does not invalidate the dependency layer.
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm npm ci
COPY . .
# Emits dist/ (tsc -p tsconfig.build.json) and dist/workflow-bundle.js, so the worker does
# not need webpack or the workflow sources at start-up.
RUN npm run build

FROM ${NODE_IMAGE}
ENV NODE_ENV=production
# The worker loads this pre-built bundle instead of bundling workflows/ at start.
ENV WORKFLOW_BUNDLE_PATH=/app/dist/workflow-bundle.js
# The Temporal SDK's Rust core checks TLS certificates (e.g. Temporal Cloud) against the OS
# trust store, which the slim image does not ship; Node's own fetch bundles its roots.
RUN apt-get update \
  && apt-get install -y --no-install-recommends ca-certificates \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm npm ci --omit=dev
# Owned by root and not writable by `node`: the app has no reason to change its own code.
COPY --from=build /app/dist ./dist
USER node
EXPOSE 3000
CMD ["node", "dist/src/main/api.js"]
