import { badRequest } from '@raseed/kit';
import { parse } from 'csv-parse/sync';
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import type { NewCode } from '../data/codes';

/** The most codes one upload may hold. */
export const MAX_CODES_PER_UPLOAD = 10_000;

export const codeTexts = {
  none: 'The file holds no codes.',
  tooLarge: 'The file is larger than 2 MB: upload the codes in parts.',
  tooMany: `At most ${MAX_CODES_PER_UPLOAD.toLocaleString('en-US')} codes an upload.`,
  unreadable: 'The file could not be read as text or CSV (one code a line: code, serial, PIN, expiry).',
  badExpiry: (line: number) => `Line ${line}: the expiry is not a date (use YYYY-MM-DD).`,
  tooLong: (line: number) => `Line ${line}: a code, serial or PIN is longer than 200 characters.`,
  notStocked: 'Only a product the store created can hold codes.',
  outOfStock: 'Out of stock',
  settingsSaved: 'Stock settings saved.',
};

/** What a customer gets for one code: the code, and its serial, PIN and expiry when it has them. */
export interface CodeContent {
  code: string;
  serial?: string;
  pin?: string;
  expires?: string;
}

/**
 * Seals codes at rest with AES-256-GCM (a fresh IV each, the product id bound as associated
 * data, so a sealed code moved to another product does not open) and finds repeats by an HMAC,
 * both keyed from CODES_KEY.
 */
export class CodeVault {
  private readonly sealKey: Buffer;
  private readonly digestKey: Buffer;

  constructor(secret: string) {
    const derive = (info: string) => Buffer.from(hkdfSync('sha256', secret, 'raseed-codes', info, 32));
    this.sealKey = derive('seal');
    this.digestKey = derive('digest');
  }

  seal(productId: string, content: CodeContent): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.sealKey, iv);
    cipher.setAAD(Buffer.from(productId));
    const body = Buffer.concat([cipher.update(JSON.stringify(content), 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
  }

  open(productId: string, sealed: string): CodeContent {
    const raw = Buffer.from(sealed, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.sealKey, raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(productId));
    decipher.setAuthTag(raw.subarray(12, 28));
    const text = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    return JSON.parse(text) as CodeContent;
  }

  digest(productId: string, code: string): string {
    return createHmac('sha256', this.digestKey).update(`${productId}\n${code}`).digest('base64url');
  }
}

/** What admins see of a code: its last four characters. */
export const maskCode = (code: string) => `••••${code.slice(-4)}`;

/**
 * Reads an upload: one code a line, optionally `code,serial,pin,expiry` (CSV, quotes allowed).
 * Blank lines are counted, not codes; a bad line refuses the whole upload, naming the line.
 */
export function readCodes(
  text: string,
  vault: CodeVault,
  productId: string,
): { codes: NewCode[]; blank: number } {
  let rows: string[][];
  try {
    rows = parse(text.replace(/^\uFEFF/, ''), {
      relax_column_count: true,
      skip_empty_lines: false,
      trim: true,
    }) as string[][];
  } catch {
    throw badRequest(codeTexts.unreadable);
  }
  const codes: NewCode[] = [];
  let blank = 0;
  rows.forEach((row, index) => {
    const [code = '', serial = '', pin = '', expiry = ''] = row;
    if (!code) {
      blank++;
      return;
    }
    const line = index + 1;
    if ([code, serial, pin].some((part) => part.length > 200)) throw badRequest(codeTexts.tooLong(line));
    let expiresAt: Date | null = null;
    if (expiry) {
      if (!/^\d{4}-\d{2}-\d{2}$/.test(expiry) || Number.isNaN(Date.parse(`${expiry}T23:59:59Z`)))
        throw badRequest(codeTexts.badExpiry(line));
      expiresAt = new Date(`${expiry}T23:59:59Z`);
    }
    const content: CodeContent = {
      code,
      ...(serial && { serial }),
      ...(pin && { pin }),
      ...(expiry && { expires: expiry }),
    };
    codes.push({
      digest: vault.digest(productId, code),
      sealed: vault.seal(productId, content),
      mask: maskCode(code),
      expiresAt,
    });
    if (codes.length > MAX_CODES_PER_UPLOAD) throw badRequest(codeTexts.tooMany);
  });
  if (!codes.length) throw badRequest(codeTexts.none);
  return { codes, blank };
}
