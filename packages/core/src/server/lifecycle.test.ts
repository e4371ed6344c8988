import { describe, expect, it } from 'vitest';
import { Lifecycle } from './lifecycle.js';

describe('Lifecycle', () => {
  it('only moves forward and tells listeners each change', () => {
    const seen: string[] = [];
    const lifecycle = new Lifecycle(() => {});
    lifecycle.subscribe((state, previous) => seen.push(`${previous}->${state}`));
    lifecycle.advance('ready');
    lifecycle.advance('starting');
    lifecycle.advance('draining');
    lifecycle.advance('closed');
    expect(seen).toEqual(['starting->ready', 'ready->draining', 'draining->closed']);
  });
});
