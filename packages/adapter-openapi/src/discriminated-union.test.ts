import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { type ServiceDefinition, withSharedSchemas } from '@cyrnel/sdk';
import { describe, expect, it } from 'vitest';
import { problemsOf, useSchemaChecker } from '../test/schema-check';
import { generateDefinition } from './generate-definition';

const require = createRequire(import.meta.url);
const checker = useSchemaChecker();

function bodyErrors(definition: ServiceDefinition, toolId: string, body: unknown): Promise<string[]> {
  const tool = definition.tools.find((t) => t.id === toolId);
  if (!tool) throw new Error(`no tool ${toolId}`);
  return problemsOf(checker, withSharedSchemas(tool.inputSchema, definition.schemas), { body });
}

// The OpenAPI specification's own example: Cat, Dog and Lizard inherit Pet (allOf), and the open
// objects overlap, so a plain oneOf matches every body more than once.
const petDocument = (body: Record<string, unknown>) => ({
  openapi: '3.0.3',
  info: { title: 'pets', version: '1' },
  paths: {
    '/pets': {
      post: { operationId: 'addPet', requestBody: { content: { 'application/json': { schema: body } } } },
    },
  },
  components: {
    schemas: {
      Pet: {
        type: 'object',
        required: ['petType'],
        properties: { petType: { type: 'string' } },
        discriminator: { propertyName: 'petType', mapping: { dog: 'Dog' } },
      },
      Cat: {
        allOf: [{ $ref: '#/components/schemas/Pet' }, { properties: { name: { type: 'string' } } }],
      },
      Dog: {
        allOf: [{ $ref: '#/components/schemas/Pet' }, { properties: { bark: { type: 'string' } } }],
      },
      Lizard: {
        allOf: [{ $ref: '#/components/schemas/Pet' }, { properties: { lovesRocks: { type: 'boolean' } } }],
      },
    },
  },
});

const branches = ['Cat', 'Dog', 'Lizard'].map((name) => ({ $ref: `#/components/schemas/${name}` }));

describe('discriminated unions', () => {
  it('does let the tag of a top-level discriminator select the branch (mapping, then schema names)', async () => {
    const definition = generateDefinition(
      JSON.stringify(
        petDocument({
          oneOf: branches,
          discriminator: { propertyName: 'petType', mapping: { dog: '#/components/schemas/Dog' } },
        }),
      ),
    );
    expect(await bodyErrors(definition, 'addPet', { petType: 'Cat', name: 'misty' })).toEqual([]);
    expect(await bodyErrors(definition, 'addPet', { petType: 'dog', bark: 'soft' })).toEqual([]);
    expect(await bodyErrors(definition, 'addPet', { petType: 'Lizard', lovesRocks: true })).toEqual([]);
    expect(await bodyErrors(definition, 'addPet', { petType: 'Cat', name: 3 })).not.toEqual([]);
    expect(await bodyErrors(definition, 'addPet', { petType: 'dog', bark: false })).not.toEqual([]);
    expect(await bodyErrors(definition, 'addPet', { petType: 'Lizard', lovesRocks: 'yes' })).not.toEqual([]);
    expect(await bodyErrors(definition, 'addPet', { name: 'no tag' })).not.toEqual([]);
  });

  it('does use a discriminator the branches inherit through allOf (embedded, with a bare-name mapping)', async () => {
    const definition = generateDefinition(JSON.stringify(petDocument({ oneOf: branches })));
    expect(await bodyErrors(definition, 'addPet', { petType: 'Cat', name: 'misty' })).toEqual([]);
    expect(await bodyErrors(definition, 'addPet', { petType: 'dog', bark: 'soft' })).toEqual([]);
    expect(await bodyErrors(definition, 'addPet', { petType: 'dog', bark: 1 })).not.toEqual([]);
    expect(await bodyErrors(definition, 'addPet', { petType: 'Lizard', lovesRocks: 'yes' })).not.toEqual([]);
    const schema = definition.schemas as Record<string, { discriminator?: unknown }>;
    expect(schema.Pet?.discriminator).toEqual({ propertyName: 'petType', mapping: { dog: '#/$defs/Dog' } });
  });

  it('does accept valid bodies of the oas-examples discriminator tools and refuse a tag with the wrong shape', async () => {
    const file = require.resolve('@readme/oas-examples/3.0/json/discriminators.json');
    const definition = generateDefinition(readFileSync(file, 'utf8'));
    const cases: Array<[string, unknown, unknown]> = [
      [
        'oneOfWithTopLevelDiscriminatorAndMapping',
        { discrim: 'Option One', optionone: 1 },
        { discrim: 'Option One', optionone: 'one' },
      ],
      [
        'patch_embedded_discriminator',
        { pet_type: 'Cat', hunts: true, age: 3 },
        { pet_type: 'Cat', age: 'old' },
      ],
      [
        'patch_oneof_allof_top_level_disc',
        { pet_type: 'DogNoDisc', bark: true, breed: 'Husky' },
        { pet_type: 'DogNoDisc', breed: 'Poodle' },
      ],
      [
        'patch_mapping_of_schema_names',
        { discrim: 'Option Two', optiontwo: 'x' },
        { discrim: 'Option Two', optiontwo: 2 },
      ],
    ];
    for (const [toolId, valid, wrongShape] of cases) {
      expect({ toolId, errors: await bodyErrors(definition, toolId, valid) }).toEqual({ toolId, errors: [] });
      expect({ toolId, valid: (await bodyErrors(definition, toolId, wrongShape)).length === 0 }).toEqual({
        toolId,
        valid: false,
      });
    }
  });

  it('does leave a oneOf without any discriminator exact', async () => {
    const definition = generateDefinition(
      JSON.stringify(
        petDocument({
          oneOf: [
            { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
            { type: 'object', properties: { b: { type: 'string' } }, required: ['b'] },
          ],
        }),
      ),
    );
    expect(await bodyErrors(definition, 'addPet', { a: 'x' })).toEqual([]);
    expect(await bodyErrors(definition, 'addPet', { a: 'x', b: 'y' })).not.toEqual([]);
  });
});
