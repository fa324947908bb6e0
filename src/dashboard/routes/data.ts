import { Router } from 'express';

// Stub until helper "data" delivers the home, timeline, request log, keys and uploads routes.
export function dashboardDataRoutes(_deps: unknown): Router {
  return Router();
}
