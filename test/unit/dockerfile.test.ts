import { read } from '../helpers/compose';

// The image's build file and context, checked structurally (no Docker engine runs in CI).

describe('Dockerfile', () => {
  const dockerfile = read('Dockerfile');
  // Stages start at each FROM; the last one is the image that ships.
  const stages = dockerfile.split(/^FROM\s/m).slice(1);
  const finalStage = stages[stages.length - 1] ?? '';

  it('builds in a separate stage from the bookworm-slim Node 20 image', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(dockerfile).toMatch(/node:20-bookworm-slim/);
    expect(dockerfile).toMatch(/^FROM\s+\S+\s+AS\s+build$/im);
    expect(dockerfile).toMatch(/^RUN\s.*npm run build/m);
  });

  it('ships production dependencies and dist/ only, as the non-root node user', () => {
    expect(finalStage).toMatch(/^RUN\s.*npm ci --omit=dev/m);
    expect(finalStage).toMatch(/^COPY --from=build \S*dist/m);
    expect(finalStage).toMatch(/^ENV NODE_ENV=production$/m);
    expect(finalStage).toMatch(/^USER node$/m);
    expect(finalStage).toMatch(/^CMD \["node", ?"dist\/src\/main\/api\.js"\]$/m);
  });

  it('points the worker at the pre-built workflow bundle', () => {
    expect(finalStage).toMatch(/^ENV WORKFLOW_BUNDLE_PATH=\S*dist\/workflow-bundle\.js$/m);
  });
});

describe('.dockerignore', () => {
  const ignored = read('.dockerignore')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));

  it('keeps host dependencies, build output and local data out of the build context', () => {
    for (const entry of ['node_modules', 'dist', '.data', '.git']) expect(ignored).toContain(entry);
  });
});
