// A reader of OTLP/HTTP protobuf trace exports for the tests' collector: it turns an
// `ExportTraceServiceRequest` into the shape of its JSON encoding (ids in hex, `AnyValue` objects),
// so one decoder of spans reads both encodings. Hand-written (about 100 lines) rather than
// protobufjs and the .proto files: the tests need only these few messages, read in full.

/** One field of a protobuf message: its number and its value (a varint, fixed bytes or a payload). */
interface Field {
  readonly no: number;
  readonly wire: number;
  readonly varint?: bigint;
  readonly bytes?: Buffer;
}

function fieldsOf(buffer: Buffer): Field[] {
  const fields: Field[] = [];
  let at = 0;
  const varint = (): bigint => {
    let value = 0n;
    for (let shift = 0n; ; shift += 7n) {
      if (at >= buffer.length) throw new Error('protobuf: a varint runs past the end');
      const byte = buffer[at++] as number;
      value |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return value;
    }
  };
  const take = (length: number): Buffer => {
    if (at + length > buffer.length) throw new Error('protobuf: a field runs past the end');
    const bytes = buffer.subarray(at, at + length);
    at += length;
    return bytes;
  };
  while (at < buffer.length) {
    const tag = Number(varint());
    const no = tag >>> 3;
    const wire = tag & 7;
    if (wire === 0) fields.push({ no, wire, varint: varint() });
    else if (wire === 1) fields.push({ no, wire, bytes: take(8) });
    else if (wire === 2) fields.push({ no, wire, bytes: take(Number(varint())) });
    else if (wire === 5) fields.push({ no, wire, bytes: take(4) });
    else throw new Error(`protobuf: wire type ${wire} is not used by OTLP`);
  }
  return fields;
}

const all = (fields: Field[], no: number) => fields.filter((field) => field.no === no);
const one = (fields: Field[], no: number) => fields.find((field) => field.no === no);
const text = (field: Field | undefined) => field?.bytes?.toString('utf8');
const hex = (field: Field | undefined) => field?.bytes?.toString('hex') ?? '';
const nanos = (field: Field | undefined) => (field?.bytes ? field.bytes.readBigUInt64LE(0).toString() : '0');

type Json = Record<string, unknown>;

function anyValue(buffer: Buffer): Json {
  const [field] = fieldsOf(buffer);
  if (!field) return {};
  switch (field.no) {
    case 1:
      return { stringValue: text(field) };
    case 2:
      return { boolValue: field.varint === 1n };
    case 3:
      return { intValue: BigInt.asIntN(64, field.varint ?? 0n).toString() };
    case 4:
      return { doubleValue: field.bytes?.readDoubleLE(0) };
    case 5:
      return {
        arrayValue: {
          values: all(fieldsOf(field.bytes as Buffer), 1).map((v) => anyValue(v.bytes as Buffer)),
        },
      };
    case 6:
      return { kvlistValue: { values: keyValues(fieldsOf(field.bytes as Buffer), 1) } };
    default:
      return { bytesValue: field.bytes?.toString('base64') };
  }
}

function keyValues(fields: Field[], no: number): Json[] {
  return all(fields, no).map((entry) => {
    const kv = fieldsOf(entry.bytes as Buffer);
    const value = one(kv, 2);
    return { key: text(one(kv, 1)) ?? '', ...(value?.bytes ? { value: anyValue(value.bytes) } : {}) };
  });
}

function span(fields: Field[]): Json {
  const status = one(fields, 15);
  const statusFields = status?.bytes ? fieldsOf(status.bytes) : [];
  return {
    traceId: hex(one(fields, 1)),
    spanId: hex(one(fields, 2)),
    traceState: text(one(fields, 3)) ?? '',
    parentSpanId: hex(one(fields, 4)),
    name: text(one(fields, 5)) ?? '',
    kind: Number(one(fields, 6)?.varint ?? 0n),
    startTimeUnixNano: nanos(one(fields, 7)),
    endTimeUnixNano: nanos(one(fields, 8)),
    attributes: keyValues(fields, 9),
    events: all(fields, 11).map((event) => {
      const own = fieldsOf(event.bytes as Buffer);
      return {
        timeUnixNano: nanos(one(own, 1)),
        name: text(one(own, 2)) ?? '',
        attributes: keyValues(own, 3),
      };
    }),
    links: all(fields, 13).map((link) => {
      const own = fieldsOf(link.bytes as Buffer);
      return { traceId: hex(one(own, 1)), spanId: hex(one(own, 2)), attributes: keyValues(own, 4) };
    }),
    status: {
      ...(one(statusFields, 2) ? { message: text(one(statusFields, 2)) } : {}),
      code: Number(one(statusFields, 3)?.varint ?? 0n),
    },
  };
}

/**
 * An OTLP/HTTP protobuf `ExportTraceServiceRequest` in the shape of its JSON encoding.
 *
 * @example
 * ```ts
 * const spans = decodeOtlpJson(decodeOtlpProtobuf(body));
 * ```
 */
export function decodeOtlpProtobuf(body: Buffer): Json {
  return {
    resourceSpans: all(fieldsOf(body), 1).map((resourceSpans) => {
      const own = fieldsOf(resourceSpans.bytes as Buffer);
      const resource = one(own, 1);
      return {
        resource: { attributes: resource?.bytes ? keyValues(fieldsOf(resource.bytes), 1) : [] },
        scopeSpans: all(own, 2).map((scopeSpans) => {
          const inner = fieldsOf(scopeSpans.bytes as Buffer);
          const scope = one(inner, 1);
          const scopeFields = scope?.bytes ? fieldsOf(scope.bytes) : [];
          return {
            scope: { name: text(one(scopeFields, 1)) ?? '', version: text(one(scopeFields, 2)) ?? '' },
            spans: all(inner, 2).map((s) => span(fieldsOf(s.bytes as Buffer))),
          };
        }),
      };
    }),
  };
}
