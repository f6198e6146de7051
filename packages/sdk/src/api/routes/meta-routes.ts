import type { HealthResponse, OpenApiResponse } from '../common';
import type { Identity } from '../identity';
import { ref } from '../record-schemas';
import { defineRoute, jsonAnswer } from '../route';

/**
 * `/health` and `/openapi.json`, what anyone may read without a key, and `/me`, who the caller is
 * (any key: an agent key learns its role without trying routes it may not use).
 */
export const META_ROUTES = {
  health: defineRoute({
    method: 'GET',
    path: '/health',
    role: 'none',
    summary: 'Liveness (no key needed)',
    params: {},
    answer: jsonAnswer<HealthResponse>(ref('Health')),
    reasons: [],
  }),
  openapi: defineRoute({
    method: 'GET',
    path: '/openapi.json',
    role: 'none',
    summary: 'This document',
    params: {},
    answer: jsonAnswer<OpenApiResponse>({ type: 'object' }),
    reasons: [],
  }),
  me: defineRoute({
    method: 'GET',
    path: '/me',
    role: 'agent',
    summary: "The caller's own identity: how it signed in, its role, its key and principal (never the key)",
    params: {},
    answer: jsonAnswer<Identity>(ref('Identity')),
    reasons: [],
  }),
};
