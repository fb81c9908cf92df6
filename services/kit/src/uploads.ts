import FileType from 'file-type';
import type { Request, RequestHandler } from 'express';
import multer from 'multer';
import { badRequest, HttpError } from './errors';

import { IMAGE_MAX_BYTES, IMAGE_TEXTS, IMAGE_TYPES } from './forms';

export interface CheckedImage {
  buffer: Buffer;
  contentType: string;
  extension: string;
}

/**
 * Reads a multipart form with at most one image under `field`, kept in memory (3 MB at most).
 * Form fields land in req.body; the file, if any, in req.file. Nothing is stored here.
 */
export function imageForm(field: string): RequestHandler {
  // Room for a created product's 20 extra fields (three parts each) and its own six.
  return oneFileForm(
    field,
    { fileSize: IMAGE_MAX_BYTES, files: 1, fields: 70, fieldSize: 10_000, parts: 71 },
    IMAGE_TEXTS.tooLarge,
    'image',
  );
}

/** Reads a multipart form with at most one text file under `field`, kept in memory. */
export function textFileForm(field: string, maxBytes: number, tooLarge: string): RequestHandler {
  return oneFileForm(
    field,
    { fileSize: maxBytes, files: 1, fields: 5, fieldSize: 1_000, parts: 6 },
    tooLarge,
    'file',
  );
}

function oneFileForm(
  field: string,
  limits: multer.Options['limits'],
  tooLarge: string,
  what: string,
): RequestHandler {
  const parse = multer({ storage: multer.memoryStorage(), limits }).single(field);
  return (req, res, next) => {
    parse(req, res, (err: unknown) => {
      if (!err) return next();
      if (err instanceof multer.MulterError) {
        if (err.code === 'LIMIT_FILE_SIZE') return next(badRequest(tooLarge));
        if (err.code === 'LIMIT_UNEXPECTED_FILE') return next(badRequest(`Send the ${what} as "${field}".`));
        return next(badRequest('The form could not be read.'));
      }
      next(err instanceof HttpError ? err : badRequest('The form could not be read.'));
    });
  };
}

export interface UploadedFile {
  buffer: Buffer;
  size: number;
  originalname: string;
}

/** The file imageForm read, if the form had one. */
export function uploadedFile(req: Request): UploadedFile | undefined {
  return (req as Request & { file?: UploadedFile }).file;
}

/** Checks an uploaded file by its content (magic bytes), not by its name or declared type. */
export async function checkImage(file: { buffer: Buffer; size: number } | undefined): Promise<CheckedImage> {
  if (!file || file.size === 0) throw badRequest(IMAGE_TEXTS.wrongType);
  if (file.size > IMAGE_MAX_BYTES) throw badRequest(IMAGE_TEXTS.tooLarge);
  const detected = await FileType.fromBuffer(file.buffer);
  const extension = detected && IMAGE_TYPES.get(detected.mime);
  if (!detected || !extension) throw badRequest(IMAGE_TEXTS.wrongType);
  return { buffer: file.buffer, contentType: detected.mime, extension };
}
