import type { Router } from 'express';
import { ApiProblem } from '../../contract/problems';
import { parseOr400 } from '../../api/validate';
import type { TimelineReader } from '../data/timeline';
import { NOTES_PER_TRANSACTION, noteBody, type NoteStore } from '../data/notes';
import { newRouter, route } from '../../api/routing';

const idPattern = /^(pi|pr|rf)_[A-Za-z0-9]{1,64}$/;

/**
 * GET /dashboard/api/transactions/:id/timeline, with the staff's notes; POST …/notes adds one.
 * Another scope's id answers as an unknown one (404).
 */
export function timelineRoutes(reader: TimelineReader, notes: NoteStore): Router {
  const router = newRouter('/dashboard/api');
  route(router, 'GET /dashboard/api/transactions/:id/timeline', async (req, res) => {
    const id = req.params.id;
    const timeline = idPattern.test(id) ? await reader.of(req.merchantId!, id) : null;
    if (!timeline) throw new ApiProblem('TRANSACTION_NOT_FOUND');
    res.json({ ...timeline, notes: await notes.list(req.merchantId!, id) });
  });

  route(router, 'POST /dashboard/api/transactions/:id/notes', async (req, res) => {
    const id = req.params.id;
    const body = parseOr400(noteBody, req.body, req);
    const scope = req.merchantId!;
    if (!idPattern.test(id) || !(await reader.exists(scope, id)))
      throw new ApiProblem('TRANSACTION_NOT_FOUND');
    // A soft bound (two writers may both pass it): the timeline reads every note.
    if ((await notes.count(scope, id)) >= NOTES_PER_TRANSACTION) throw new ApiProblem('NOTES_LIMIT_REACHED');
    const member = req.member!;
    res.status(201).json(await notes.add(scope, id, { id: member.id, name: member.name }, body.text));
  });
  return router;
}
