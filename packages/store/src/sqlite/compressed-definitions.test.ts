import { join } from 'node:path';
import { newService } from '@cyrnel/core/testing';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../../test/support/temp-dirs';
import { openSqliteStore } from './open-sqlite-store';

const tempDir = useTempDirs('definitions');

function tempFile() {
  const dir = tempDir();
  return join(dir, 'data.db');
}

/** A definition as large and as repetitive as a real description, with text beyond ASCII. */
const largeDefinition = JSON.stringify({
  openapi: '3.1.0',
  info: { title: 'Größe … 🚀', version: '1' },
  paths: Object.fromEntries(
    Array.from({ length: 2000 }, (_, i) => [
      `/items/${i}`,
      { get: { operationId: `get_${i}`, summary: 'Gets an item' } },
    ]),
  ),
});

function storedColumn(filename: string, id: string) {
  const db = new Database(filename, { readonly: true });
  try {
    return db
      .prepare('select typeof(definition) as type, length(definition) as bytes from services where id = ?')
      .get(id) as {
      type: string;
      bytes: number;
    };
  } finally {
    db.close();
  }
}

describe('definitions on SQLite', () => {
  it('are stored compressed and read back as the text, whether or not the caller gave its bytes', async () => {
    const filename = tempFile();
    const store = await openSqliteStore({ filename });
    await store.catalog.insertService(newService('plain', { definition: largeDefinition }));
    await store.catalog.insertService(
      newService('bytes', {
        definition: largeDefinition,
        definitionUtf8: Buffer.from(largeDefinition, 'utf8'),
      }),
    );
    expect(await store.catalog.getServiceDefinitionText('plain')).toBe(largeDefinition);
    expect(await store.catalog.getServiceDefinitionText('bytes')).toBe(largeDefinition);
    await store.close();
    for (const id of ['plain', 'bytes']) {
      const column = storedColumn(filename, id);
      expect(column.type).toBe('blob');
      expect(column.bytes).toBeLessThan(Buffer.byteLength(largeDefinition) / 10);
    }
  });

  it('replace the text compressed, and a row written as text before reads as it was', async () => {
    const filename = tempFile();
    const store = await openSqliteStore({ filename });
    await store.catalog.insertService(newService('svc'));
    await store.catalog.replaceServiceDefinition(
      'svc',
      { ...newService('svc'), definition: 'v2 ✓' },
      false,
      'later',
    );
    expect(await store.catalog.getServiceDefinitionText('svc')).toBe('v2 ✓');
    expect(storedColumn(filename, 'svc').type).toBe('blob');
    await store.catalog.insertService(newService('old'));
    const db = new Database(filename);
    db.prepare("update services set definition = 'written as text' where id = 'old'").run();
    db.close();
    expect(storedColumn(filename, 'old').type).toBe('text');
    expect(await store.catalog.getServiceDefinitionText('old')).toBe('written as text');
    expect(await store.catalog.getServiceDefinitionText('none')).toBeUndefined();
    await store.close();
  });
});
