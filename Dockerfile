# protoscore: one image for every role (`start`, `serve`, `worker`, `migrate`, `keys`, `jobs`, `sandbox run`).
# compose.yaml runs it scaled out; docs/operations.md; test/packaging.test.ts checks what this file names.

# Node.js 24 (LTS), the line CI runs the suite on besides the machine's 20 (.ci/run); docs/operations.md, "Node.js".
FROM node:24-trixie-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY bin ./bin
COPY src ./src
# No install script is needed on Node.js 24: better-sqlite3 13 ships prebuilt Node-API binaries, and the Node.js 20
# driver (better-sqlite3-node20, src/store/sqlite-driver.ts) is never loaded here, so it goes with no compiler
# installed. Then tsc into dist/ (what the `prepare` script does), and the dev dependencies go.
RUN npm ci --ignore-scripts --no-audit --no-fund \
  && npm run build \
  && npm prune --omit=dev --no-audit --no-fund \
  && rm -rf node_modules/better-sqlite3-node20

FROM node:24-trixie-slim
ENV NODE_ENV=production \
    DATA_DIR=/data \
    HOST=0.0.0.0 \
    PORT=8080 \
    LOG_FORMAT=json
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/bin ./bin
RUN mkdir -p /data /sandbox && chown node:node /data /sandbox
USER node
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "bin/protoscore.js"]
CMD ["start"]
