import type { Router } from 'express';
import { z } from 'zod';
import { parseOr400 } from '../../api/validate';
import { newRouter, route } from '../../api/routing';
import { ApiProblem } from '../../contract/problems';
import { negotiateLanguage } from '../../contract/i18n';
import { savedFilterBody, savedFilterLists, type SavedFilterStore } from '../data/saved-filters';

/** The member's own saved filters of a list: read, save under a name, remove (saved-filters.md). */
export function savedFilterRoutes(store: SavedFilterStore): Router {
  const router = newRouter('/dashboard/api');

  route(router, 'GET /dashboard/api/saved-filters', async (req, res) => {
    const q = parseOr400(z.strictObject({ list: z.enum(savedFilterLists) }), req.query, req);
    res.json({ data: await store.list(req.member!.id, q.list) });
  });

  route(router, 'POST /dashboard/api/saved-filters', async (req, res) => {
    const body = parseOr400(savedFilterBody, req.body, req);
    const saved = await store.save(req.member!.id, body);
    if (saved === 'full') throw new ApiProblem('SAVED_FILTERS_FULL');
    if (saved === 'duplicate') {
      const lang = negotiateLanguage(req);
      // Said next to the name field: another name saves it, or the older one is removed first.
      throw new ApiProblem('SAVED_FILTER_NAME_TAKEN', {
        errors: [
          {
            path: 'name',
            message:
              lang === 'fr'
                ? 'Vous avez déjà des filtres enregistrés sous ce nom.'
                : 'You already have filters saved under this name.',
          },
        ],
      });
    }
    res.status(201).json(saved);
  });

  route(router, 'DELETE /dashboard/api/saved-filters/:id', async (req, res) => {
    const id = req.params.id;
    if (!/^sf_[a-f0-9]{24}$/.test(id) || !(await store.remove(req.member!.id, id)))
      throw new ApiProblem('SAVED_FILTER_NOT_FOUND');
    res.status(204).end();
  });

  return router;
}
