import type { HealthResponse, OpenApiResponse } from '../common';
import { ref } from '../record-schemas';
import { defineRoute, jsonAnswer } from '../route';

/** `/health` and `/openapi.json`: what anyone may read without a key. */
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
};
