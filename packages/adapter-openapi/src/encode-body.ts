import { randomUUID } from 'node:crypto';
import { isPlainObject } from '@cyrnel/sdk';
import type { BodyPlan, ParameterPlan } from './operation-model';
import { serializeQuery } from './serialize-parameter';

/** Bytes and Content-Type of a request body. */
export interface EncodedBody {
  readonly bytes: Buffer;
  readonly contentType: string;
}

/** A file value of a multipart or binary body. */
interface FileValue {
  base64: string;
  filename?: string;
  contentType?: string;
}

function isFileValue(value: unknown): value is FileValue {
  return (
    isPlainObject(value) &&
    typeof value.base64 === 'string' &&
    Object.keys(value).every((k) => k === 'base64' || k === 'filename' || k === 'contentType')
  );
}

function firstType(list: string | undefined): string | undefined {
  return list?.split(',')[0]?.trim() || undefined;
}

function concreteType(mediaType: string, fallback: string): string {
  return mediaType.includes('*') ? fallback : mediaType;
}

/** How one field of a form-urlencoded body is serialised: its `encoding`, by default form, explode true. */
export function formFieldPlan(plan: BodyPlan, name: string): ParameterPlan {
  const enc = plan.encoding?.[name];
  return {
    name,
    in: 'query',
    style: enc?.style ?? 'form',
    explode: enc?.explode ?? (enc?.style === undefined || enc.style === 'form'),
    ...(enc?.allowReserved ? { allowReserved: true } : {}),
    ...(enc?.contentType && !enc.style ? { contentType: enc.contentType } : {}),
  };
}

function formBody(plan: BodyPlan, value: unknown): EncodedBody {
  const pairs: string[] = [];
  if (isPlainObject(value)) {
    for (const [name, item] of Object.entries(value))
      pairs.push(...serializeQuery(formFieldPlan(plan, name), item));
  }
  return { bytes: Buffer.from(pairs.join('&')), contentType: plan.mediaType };
}

function multipartBody(plan: BodyPlan, value: unknown): EncodedBody {
  const boundary = `cyrnel-${randomUUID()}`;
  const chunks: Buffer[] = [];
  const part = (name: string, headers: string[], content: Buffer) => {
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${escapeQuoted(name)}"${headers.join('')}\r\n\r\n`,
      ),
      content,
      Buffer.from('\r\n'),
    );
  };
  const field = (name: string, item: unknown) => {
    const enc = plan.encoding?.[name];
    const declared = firstType(enc?.contentType);
    if (isFileValue(item) || (enc?.file && typeof item === 'string')) {
      const file = isFileValue(item) ? item : undefined;
      const filename = file?.filename ?? name;
      const binary = file !== undefined && !enc?.base64;
      const type = file?.contentType ?? declared ?? (binary ? 'application/octet-stream' : 'text/plain');
      // A base64 field (3.1 contentEncoding) is sent as the base64 text the document asks for.
      const bytes = file ? Buffer.from(file.base64, binary ? 'base64' : 'utf8') : Buffer.from(item as string);
      part(name, [`; filename="${escapeQuoted(filename)}"\r\nContent-Type: ${type}`], bytes);
    } else if (isPlainObject(item) || Array.isArray(item)) {
      part(name, [`\r\nContent-Type: ${declared ?? 'application/json'}`], Buffer.from(JSON.stringify(item)));
    } else {
      part(
        name,
        declared ? [`\r\nContent-Type: ${declared}`] : [],
        Buffer.from(item === null ? '' : String(item)),
      );
    }
  };
  if (isPlainObject(value)) {
    for (const [name, item] of Object.entries(value)) {
      if (item === undefined) continue;
      // An array of scalars or files is sent as repeated parts (OpenAPI multipart arrays).
      if (Array.isArray(item) && item.every((v) => !isPlainObject(v) || isFileValue(v)))
        for (const v of item) field(name, v);
      else field(name, item);
    }
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { bytes: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

function escapeQuoted(text: string): string {
  return text.replace(/["\\\r\n]/g, (c) => (c === '"' ? '%22' : c === '\\' ? '\\\\' : ' '));
}

/** Encode the `body` slot per the operation's chosen media type. */
export function encodeBody(plan: BodyPlan, value: unknown): EncodedBody {
  switch (plan.kind) {
    case 'json':
      return {
        bytes: Buffer.from(JSON.stringify(value)),
        contentType: concreteType(plan.mediaType, 'application/json'),
      };
    case 'form':
      return formBody(plan, value);
    case 'multipart':
      return multipartBody(plan, value);
    case 'text':
      return {
        bytes: Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)),
        contentType: concreteType(plan.mediaType, 'text/plain'),
      };
    default: {
      if (isFileValue(value)) {
        return {
          bytes: Buffer.from(value.base64, 'base64'),
          contentType: value.contentType ?? concreteType(plan.mediaType, 'application/octet-stream'),
        };
      }
      if (typeof value === 'string')
        return {
          bytes: Buffer.from(value),
          contentType: concreteType(plan.mediaType, 'text/plain; charset=utf-8'),
        };
      return {
        bytes: Buffer.from(JSON.stringify(value)),
        contentType: concreteType(plan.mediaType, 'application/json'),
      };
    }
  }
}
