import express, { type Router } from 'express';
import { ApiProblem } from '../../contract/problems';
import { negotiateLanguage } from '../../contract/i18n';
import { CSV_TYPES, MAX_UPLOAD_BYTES, previewUpload, UploadUnreadable, XLSX_TYPE } from '../data/bulk-upload';
import { newRouter, route } from '../../api/routing';

// POST /dashboard/api/payouts/bulk/preview: a spreadsheet of payouts checked row by row, nothing
// sent (docs/bulk-payouts.md, From a spreadsheet). The page then posts the valid items to
// /dashboard/api/v1/payouts/bulk in chunks of the bulk limit.

export function uploadRoutes(): Router {
  const router = newRouter('/dashboard/api');
  const types = [...CSV_TYPES, XLSX_TYPE];
  route(
    router,
    'POST /dashboard/api/payouts/bulk/preview',
    (req, _res, next) => {
      const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      next(types.includes(type) ? undefined : new ApiProblem('UNSUPPORTED_MEDIA_TYPE'));
    },
    express.raw({ type: types, limit: MAX_UPLOAD_BYTES }),
    async (req, res) => {
      if (!Buffer.isBuffer(req.body) || req.body.length === 0) throw new ApiProblem('UPLOAD_UNREADABLE');
      try {
        res.json(await previewUpload(req.body, req.headers['content-type'] ?? '', negotiateLanguage(req)));
      } catch (err) {
        if (err instanceof UploadUnreadable) throw new ApiProblem('UPLOAD_UNREADABLE');
        throw err;
      }
    },
  );
  return router;
}
